import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { createEmbedder, type EmbedderEnv } from '@rota/catalog/config';
import { createPrisma, type PrismaClient } from '@rota/db';
import { createLogger, type BaseConfig } from '@rota/service-kit';
import type { DiscoverConfig } from './config';
import { DiscoverController } from './discover.controller';
import { DiscoverRepository } from './discover.repository';
import { DiscoverService } from './discover.service';

const PRISMA = Symbol('SEARCH_PRISMA');

/** Releases the search service's database pool once the transport has drained. */
@Injectable()
class PrismaLifecycle implements OnApplicationShutdown {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}
  async onApplicationShutdown() {
    await this.prisma.$disconnect();
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
        { provide: PRISMA, useFactory: () => createPrisma(config.DATABASE_URL) },
        PrismaLifecycle,
        {
          provide: DiscoverService,
          inject: [PRISMA],
          useFactory: (prisma: PrismaClient) =>
            new DiscoverService(new DiscoverRepository(prisma), createEmbedder(config), config, { warn: (msg, meta) => log.warn(meta ?? {}, msg) }),
        },
      ],
    };
  }
}
