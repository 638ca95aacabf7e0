import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { createPrisma, type PrismaClient } from '@rota/db';
import { createLogger, loadConfig } from '@rota/service-kit';
import Redis from 'ioredis';
import { RouterConfig } from './config';
import { EligibilityRepository } from './eligibility/eligibility.repository';
import { EligibilityService } from './eligibility/eligibility';
import { createExtractor } from './nl/extractor';
import { PathCController } from './path-c.controller';
import { PingController } from './ping.controller';
import { RouteService } from './routing/route.service';
import { TelemetryStore } from './telemetry/telemetry.store';

const PRISMA = Symbol('ROUTER_PRISMA');
const REDIS = Symbol('ROUTER_REDIS');

/** Closes the router's own connections on shutdown. */
@Injectable()
class Lifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}
  async onApplicationShutdown() {
    this.redis.disconnect();
    await this.prisma.$disconnect();
  }
}

@Module({})
export class RouterModule {
  static forConfig(config: RouterConfig = loadConfig(RouterConfig)): DynamicModule {
    const log = createLogger('router', config.LOG_LEVEL);
    // Built at boot so a bad NL_EXTRACTOR setting stops the service with a clear message.
    const extractor = createExtractor(config);
    return {
      module: RouterModule,
      controllers: [PingController, PathCController],
      providers: [
        { provide: PRISMA, useFactory: () => createPrisma(config.DATABASE_URL) },
        { provide: REDIS, useFactory: () => new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1 }) },
        {
          provide: EligibilityService,
          useFactory: (redis: Redis, prisma: PrismaClient) =>
            new EligibilityService(redis, new EligibilityRepository(prisma), { prefix: config.ROTA_REDIS_PREFIX, ttlSeconds: config.ROTA_ROUTER_ELIGIBILITY_TTL_S }),
          inject: [REDIS, PRISMA],
        },
        { provide: TelemetryStore, useFactory: (redis: Redis) => new TelemetryStore(redis, config.ROTA_REDIS_PREFIX), inject: [REDIS] },
        {
          provide: RouteService,
          useFactory: (redis: Redis, eligibility: EligibilityService, telemetry: TelemetryStore) =>
            new RouteService(
              redis,
              eligibility,
              telemetry,
              extractor,
              {
                prefix: config.ROTA_REDIS_PREFIX,
                repairCooldownMs: config.ROTA_ROUTER_REPAIR_COOLDOWN_MS,
                weights: {
                  success: config.ROTA_ROUTER_WEIGHT_SUCCESS,
                  latency: config.ROTA_ROUTER_WEIGHT_LATENCY,
                  cost: config.ROTA_ROUTER_WEIGHT_COST,
                  urgency: config.ROTA_ROUTER_WEIGHT_URGENCY,
                  connection: config.ROTA_ROUTER_WEIGHT_CONNECTION,
                },
              },
              { info: (meta, msg) => log.info(meta, msg) },
            ),
          inject: [REDIS, EligibilityService, TelemetryStore],
        },
        Lifecycle,
      ],
    };
  }
}
