import { Controller, Get, Inject, Res } from '@nestjs/common';
import { SERVICES, type ServiceName } from '@rota/contracts';
import type { PrismaClient } from '@rota/db';
import { RpcClient } from '@rota/service-kit';
import type { FastifyReply } from 'fastify';
import type Redis from 'ioredis';
import { Public } from '../auth/decorators';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { PRISMA, REDIS } from '../infra/infra.module';

interface Check {
  ok: boolean;
  ms: number;
  replica?: string;
  error?: string;
}

async function timed(fn: () => Promise<unknown>, budgetMs: number): Promise<Check> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const out = await Promise.race([fn(), new Promise((_, rej) => (timer = setTimeout(() => rej(new Error('timed out')), budgetMs)))]);
    const replica = (out as { replica?: string } | undefined)?.replica;
    return { ok: true, ms: Math.round(performance.now() - t0), ...(replica ? { replica } : {}) };
  } catch (err) {
    return { ok: false, ms: Math.round(performance.now() - t0), error: (err as { code?: string }).code ?? (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness and readiness for orchestrators; no credential needed. */
@Controller('health')
@Public()
export class HealthController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  /** Ready when Postgres and Redis answer and every service answers a ping over the transport. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const budget = this.config.ROTA_READY_TIMEOUT_MS;
    const [postgres, redis, ...services] = await Promise.all([
      timed(() => this.prisma.$queryRaw`SELECT 1`, budget),
      timed(() => this.redis.ping(), budget),
      ...SERVICES.map((s: ServiceName) => timed(() => this.rpc.send(`${s}.ping`, {}, { timeoutMs: budget }), budget)),
    ]);
    const checks = { postgres, redis, services: Object.fromEntries(SERVICES.map((s, i) => [s, services[i]])) };
    const ok = postgres.ok && redis.ok && services.every((c) => c.ok);
    void reply.status(ok ? 200 : 503);
    return { status: ok ? 'ready' : 'not_ready', checks };
  }
}
