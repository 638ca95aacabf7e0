import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { CatalogQueue, CatalogRepository, currentEmbeddingModel, fetchCatalogText, importAndRequestSweep, listMcpTools, type EmbedderEnv } from '@rota/catalog';
import { createPrisma, type PrismaClient } from '@rota/db';
import type { BaseConfig } from '@rota/service-kit';
import { CatalogController } from './catalog.controller';
import { CatalogService } from './catalog.service';

const PRISMA = Symbol('CATALOG_PRISMA');
const QUEUE = Symbol('CATALOG_QUEUE');

export interface CatalogModuleConfig extends BaseConfig, EmbedderEnv {
  /** Let the import fetch URLs that resolve to loopback or private addresses. */
  ROTA_CATALOG_ALLOW_PRIVATE_URLS: boolean;
}

/** Closes the pool and the queue connection once the transport has drained. */
@Injectable()
class Lifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(QUEUE) private readonly queue: CatalogQueue,
  ) {}
  async onApplicationShutdown() {
    await this.queue.close().catch(() => undefined);
    await this.prisma.$disconnect();
  }
}

/** Catalog reads (`/v1/providers`, tools, status) and the admin import. */
@Module({})
export class CatalogModule {
  static forConfig(config: CatalogModuleConfig): DynamicModule {
    const policy = { allowPrivate: config.ROTA_CATALOG_ALLOW_PRIVATE_URLS };
    return {
      module: CatalogModule,
      controllers: [CatalogController],
      providers: [
        { provide: PRISMA, useFactory: () => createPrisma(config.DATABASE_URL, { poolMax: 5 }) },
        {
          provide: QUEUE,
          useFactory: () => CatalogQueue.connect(config.REDIS_URL, config.ROTA_REDIS_PREFIX),
        },
        Lifecycle,
        {
          provide: CatalogService,
          inject: [PRISMA, QUEUE],
          useFactory: (prisma: PrismaClient, queue: CatalogQueue) =>
            new CatalogService({
              repo: new CatalogRepository(prisma),
              model: currentEmbeddingModel(config),
              importer: (doc, opts) => importAndRequestSweep(prisma, queue, doc, opts),
              queueCounts: () => queue.counts(),
              fetchText: (url) => fetchCatalogText(url, policy),
              listMcpTools: (url) => listMcpTools(url, policy),
            }),
        },
      ],
    };
  }
}
