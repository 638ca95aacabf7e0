import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { createEmbedder, type EmbedderEnv } from '@rota/catalog/config';
import { createLogger, type BaseConfig } from '@rota/service-kit';
import type { DiscoverConfig } from './config';
import { DiscoverController } from './discover.controller';
import { DiscoverRepository } from './discover.repository';
import { DiscoverService } from './discover.service';

const REPOSITORY = Symbol('DISCOVER_REPOSITORY');

/** Releases discover's database pool once the transport has drained. */
@Injectable()
class PoolLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REPOSITORY) private readonly repo: DiscoverRepository) {}
  async onApplicationShutdown() {
    await this.repo.close();
  }
}

/** `codespar_discover`: the search service's only reader of the catalog tables. */
@Module({})
export class DiscoverModule {
  static forConfig(config: BaseConfig & DiscoverConfig & EmbedderEnv): DynamicModule {
    const log = createLogger('search', config.LOG_LEVEL);
    return {
      module: DiscoverModule,
      controllers: [DiscoverController],
      providers: [
        {
          provide: REPOSITORY,
          useFactory: () => DiscoverRepository.connect(config.DATABASE_URL, config),
        },
        PoolLifecycle,
        {
          provide: DiscoverService,
          inject: [REPOSITORY],
          useFactory: (repo: DiscoverRepository) =>
            new DiscoverService(repo, createEmbedder(config), config, {
              warn: (msg, meta) => log.warn(meta ?? {}, msg),
              info: (msg, meta) => log.info(meta ?? {}, msg),
            }),
        },
      ],
    };
  }
}
