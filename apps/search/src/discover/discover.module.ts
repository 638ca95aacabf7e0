import { Module, type DynamicModule } from '@nestjs/common';
import { createEmbedder, type EmbedderEnv } from '@rota/catalog/config';
import { InfraLifecycle, LOGGER, type BaseConfig, type Logger } from '@rota/service-kit';
import type { DiscoverConfig } from './config';
import { DiscoverController } from './discover.controller';
import { DiscoverRepository } from './discover.repository';
import { DiscoverService } from './discover.service';
import { registerEmbedderMetrics } from './embed-metrics';

/** `codespar_discover`: the search service's only reader of the catalog tables. */
@Module({})
export class DiscoverModule {
  static forConfig(config: BaseConfig & DiscoverConfig & EmbedderEnv): DynamicModule {
    return {
      module: DiscoverModule,
      controllers: [DiscoverController],
      providers: [
        {
          // Its own pool: its connections carry discover's planner settings.
          provide: DiscoverRepository,
          inject: [InfraLifecycle],
          useFactory: (lifecycle: InfraLifecycle) => {
            const repo = DiscoverRepository.connect(config.DATABASE_URL, config);
            lifecycle.closeOnShutdown('discover pool', () => repo.close());
            return repo;
          },
        },
        {
          provide: DiscoverService,
          inject: [DiscoverRepository, LOGGER],
          useFactory: (repo: DiscoverRepository, log: Logger) => {
            const embedder = createEmbedder(config);
            registerEmbedderMetrics(embedder);
            return new DiscoverService(repo, embedder, config, {
              warn: (msg, meta) => log.warn(meta ?? {}, msg),
              info: (msg, meta) => log.info(meta ?? {}, msg),
            });
          },
        },
      ],
    };
  }
}
