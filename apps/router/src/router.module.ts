import { Module, type DynamicModule } from '@nestjs/common';
import { createPrisma } from '@rota/db';
import { InfraModule, loadConfig, LOGGER, REDIS, type Logger } from '@rota/service-kit';
import type Redis from 'ioredis';
import { RouterConfig } from './config';
import { EligibilityRepository } from './eligibility/eligibility.repository';
import { EligibilityController } from './eligibility/eligibility.controller';
import { EligibilityService } from './eligibility/eligibility.service';
import { createExtractor } from './nl/extractor';
import { PingController } from './ping.controller';
import { RouteController } from './route/route.controller';
import { RouteService } from './route/route.service';
import { TelemetryController } from './telemetry/telemetry.controller';
import { TelemetryStore } from './telemetry/telemetry.store';

@Module({})
export class RouterModule {
  static forConfig(config: RouterConfig = loadConfig(RouterConfig)): DynamicModule {
    // Built at boot so a bad NL_EXTRACTOR setting stops the service with a clear message.
    const extractor = createExtractor(config);
    return {
      module: RouterModule,
      imports: [InfraModule.forRoot({ app: 'router', config, prisma: createPrisma, redis: { maxRetriesPerRequest: 1 } })],
      controllers: [PingController, RouteController, TelemetryController, EligibilityController],
      providers: [
        EligibilityRepository,
        // The services below take settings derived from the config, so they are built here.
        {
          provide: EligibilityService,
          inject: [REDIS, EligibilityRepository],
          useFactory: (redis: Redis, repo: EligibilityRepository) =>
            new EligibilityService(redis, repo, { prefix: config.ROTA_REDIS_PREFIX, ttlSeconds: config.ROTA_ROUTER_ELIGIBILITY_TTL_S }),
        },
        { provide: TelemetryStore, inject: [REDIS], useFactory: (redis: Redis) => new TelemetryStore(redis, config.ROTA_REDIS_PREFIX) },
        {
          provide: RouteService,
          useFactory: (redis: Redis, eligibility: EligibilityService, telemetry: TelemetryStore, log: Logger) =>
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
          inject: [REDIS, EligibilityService, TelemetryStore, LOGGER],
        },
      ],
    };
  }
}
