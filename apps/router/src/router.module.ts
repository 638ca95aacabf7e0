import { Module, type DynamicModule } from '@nestjs/common';
import { createPrisma, type PrismaClient } from '@rota/db';
import { InfraModule, loadConfig, LOGGER, PRISMA, REDIS, type Logger } from '@rota/service-kit';
import type Redis from 'ioredis';
import { RouterConfig } from './config';
import { EligibilityRepository } from './eligibility/eligibility.repository';
import { EligibilityController } from './eligibility/eligibility.controller';
import { EligibilityService } from './eligibility/eligibility.service';
import { FxRatesService } from './fx/fx-rates';
import { createExtractor } from './nl/extractor';
import { PingController } from './ping.controller';
import { RouteController } from './route/route.controller';
import { RouteService } from './route/route.service';
import { SelectService } from './route/select.service';
import { emptyStats } from './telemetry/window';
import { TelemetryController } from './telemetry/telemetry.controller';
import { TelemetryStore } from './telemetry/telemetry.store';

@Module({})
export class RouterModule {
  static forConfig(config: RouterConfig = loadConfig(RouterConfig)): DynamicModule {
    // Built at boot so a bad NL_EXTRACTOR setting stops the service with a clear message.
    const extractor = createExtractor(config);
    const weights = {
      success: config.ROTA_ROUTER_WEIGHT_SUCCESS,
      latency: config.ROTA_ROUTER_WEIGHT_LATENCY,
      cost: config.ROTA_ROUTER_WEIGHT_COST,
      urgency: config.ROTA_ROUTER_WEIGHT_URGENCY,
      connection: config.ROTA_ROUTER_WEIGHT_CONNECTION,
    };
    return {
      module: RouterModule,
      imports: [
        InfraModule.forRoot({
          app: 'router',
          config,
          prisma: createPrisma,
          redis: { maxRetriesPerRequest: 1, enableAutoPipelining: true },
        }),
      ],
      controllers: [PingController, RouteController, TelemetryController, EligibilityController],
      providers: [
        EligibilityRepository,
        // The services below take settings derived from the config, so they are built here.
        {
          provide: EligibilityService,
          inject: [REDIS, EligibilityRepository],
          useFactory: (redis: Redis, repo: EligibilityRepository) =>
            new EligibilityService(redis, repo, {
              prefix: config.ROTA_REDIS_PREFIX,
              ttlSeconds: config.ROTA_ROUTER_ELIGIBILITY_TTL_S,
            }),
        },
        {
          provide: TelemetryStore,
          inject: [REDIS],
          useFactory: (redis: Redis) => new TelemetryStore(redis, config.ROTA_REDIS_PREFIX),
        },
        {
          provide: FxRatesService,
          inject: [PRISMA, LOGGER],
          useFactory: (prisma: PrismaClient, log: Logger) =>
            new FxRatesService(prisma, config.ROTA_ROUTER_FX_CACHE_MS, (err) =>
              log.warn({ err }, 'fx rates not read; pricing with the last ones read'),
            ),
        },
        {
          provide: SelectService,
          inject: [EligibilityService, TelemetryStore, FxRatesService],
          useFactory: (eligibility: EligibilityService, telemetry: TelemetryStore, fx: FxRatesService) =>
            new SelectService(eligibility, telemetry, emptyStats, weights, fx),
        },
        {
          provide: RouteService,
          useFactory: (
            redis: Redis,
            eligibility: EligibilityService,
            telemetry: TelemetryStore,
            log: Logger,
            fx: FxRatesService,
          ) =>
            new RouteService(
              redis,
              eligibility,
              telemetry,
              extractor,
              {
                prefix: config.ROTA_REDIS_PREFIX,
                repairCooldownMs: config.ROTA_ROUTER_REPAIR_COOLDOWN_MS,
                weights,
              },
              { info: (meta, msg) => log.info(meta, msg) },
              fx,
            ),
          inject: [REDIS, EligibilityService, TelemetryStore, LOGGER, FxRatesService],
        },
      ],
    };
  }
}
