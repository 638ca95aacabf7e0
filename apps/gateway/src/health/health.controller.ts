import { Controller, Inject, Res } from '@nestjs/common';
import { ROUTES, SERVICES, type Readiness, type ServiceName } from '@rota/contracts';
import type { PrismaClient } from '@rota/db';
import { CONFIG, PRISMA, REDIS, RpcClient } from '@rota/service-kit';
import type { FastifyReply } from 'fastify';
import type Redis from 'ioredis';
import { Route } from '../http/route';
import type { GatewayConfig } from '../config';

type Check = Readiness['checks']['postgres'];

async function timed(fn: () => Promise<unknown>, budgetMs: number): Promise<Check> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, rej) => (timer = setTimeout(() => rej(new Error('timed out')), budgetMs))),
    ]);
    // Which replica answered stays out: this route needs no credential.
    return { ok: true, ms: Math.round(performance.now() - t0) };
  } catch (err) {
    return {
      ok: false,
      ms: Math.round(performance.now() - t0),
      error: (err as { code?: string }).code ?? (err as Error).message,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness and readiness for orchestrators; no credential needed. */
@Controller()
export class HealthController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Route(ROUTES.healthLive)
  healthLive() {
    return { status: 'ok' };
  }

  /**
   * Ready when Postgres and Redis answer, every service answers a ping over
   * the transport, and Redis holds every job scheduler of the worker (a Redis
   * restart without persistence drops them, and their sweeps stop until the
   * worker puts them back).
   */
  @Route(ROUTES.healthReady)
  async healthReady(@Res({ passthrough: true }) reply: FastifyReply): Promise<Readiness> {
    const budget = this.config.ROTA_READY_TIMEOUT_MS;
    let missing: string[] = [];
    const [postgres, redis, schedulers, ...services] = await Promise.all([
      timed(() => this.prisma.$queryRaw`SELECT 1`, budget),
      timed(() => this.redis.ping(), budget),
      timed(async () => {
        missing = (await this.rpc.send('worker.schedulers', {}, { timeoutMs: budget })).missing;
        if (missing.length > 0) throw new Error(`missing job schedulers: ${missing.join(', ')}`);
      }, budget),
      ...SERVICES.map((s: ServiceName) => timed(() => this.rpc.send(`${s}.ping`, {}, { timeoutMs: budget }), budget)),
    ]);
    const checks = {
      postgres,
      redis,
      services: Object.fromEntries(SERVICES.map((s, i) => [s, services[i]!])),
      schedulers: { ...schedulers, missing },
    };
    const ok = postgres.ok && redis.ok && schedulers.ok && services.every((c) => c.ok);
    void reply.status(ok ? 200 : 503);
    return { status: ok ? 'ready' : 'not_ready', checks };
  }
}
