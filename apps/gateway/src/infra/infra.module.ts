import { Global, Inject, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ApiKeyRepository, createPrisma, type PrismaClient } from '@rota/db';
import { RpcClient } from '@rota/service-kit';
import Redis from 'ioredis';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';

export const PRISMA = Symbol('PRISMA');
export const REDIS = Symbol('REDIS');

/** Closes connections once the HTTP server has stopped taking requests. */
@Injectable()
class Lifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}
  async onModuleInit() {
    await this.rpc.connect();
  }
  async onApplicationShutdown() {
    await this.rpc.close();
    this.redis.disconnect();
    await this.prisma.$disconnect();
  }
}

/** Connections the gateway holds: Postgres, Redis and the service transport. */
@Global()
@Module({})
export class InfraModule {
  static forConfig(config: GatewayConfig) {
    return {
      module: InfraModule,
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: PRISMA, useFactory: () => createPrisma(config.DATABASE_URL) },
        {
          provide: REDIS,
          useFactory: () => {
            const r = new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 800, commandTimeout: 800 });
            r.on('error', () => undefined);
            return r;
          },
        },
        { provide: RpcClient, useFactory: () => new RpcClient({ url: config.REDIS_URL, prefix: config.ROTA_REDIS_PREFIX, timeoutMs: config.ROTA_RPC_TIMEOUT_MS }) },
        { provide: ApiKeyRepository, useFactory: (p: PrismaClient) => new ApiKeyRepository(p), inject: [PRISMA] },
        Lifecycle,
      ],
      exports: [GATEWAY_CONFIG, PRISMA, REDIS, RpcClient, ApiKeyRepository],
    };
  }
}
