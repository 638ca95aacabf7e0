import { Module, type DynamicModule } from '@nestjs/common';
import {
  CatalogQueue,
  currentEmbeddingModel,
  fetchCatalogText,
  importAndRequestSweep,
  listMcpTools,
  type EmbedderEnv,
} from '@rota/catalog';
import { CatalogRepository } from '@rota/catalog/repository';
import type { PrismaClient } from '@rota/db';
import { InfraLifecycle, PRISMA, type BaseConfig } from '@rota/service-kit';
import { CatalogController } from './catalog.controller';
import { CatalogService } from './catalog.service';

export type CatalogModuleConfig = BaseConfig & EmbedderEnv;

/** Catalog reads (`/v1/providers`, tools, status) and the admin import. */
@Module({})
export class CatalogModule {
  static forConfig(config: CatalogModuleConfig): DynamicModule {
    return {
      module: CatalogModule,
      controllers: [CatalogController],
      providers: [
        {
          // The import asks the worker for a sweep through this queue, on its own Redis connection.
          provide: CatalogQueue,
          inject: [InfraLifecycle],
          useFactory: (lifecycle: InfraLifecycle) => {
            const queue = CatalogQueue.connect(config.REDIS_URL, config.ROTA_REDIS_PREFIX);
            lifecycle.closeOnShutdown('catalog queue', () => queue.close().catch(() => undefined));
            return queue;
          },
        },
        {
          // The service takes plain functions so its tests need neither Redis nor the network.
          provide: CatalogService,
          inject: [PRISMA, CatalogQueue],
          useFactory: (prisma: PrismaClient, queue: CatalogQueue) =>
            new CatalogService({
              repo: new CatalogRepository(prisma),
              model: currentEmbeddingModel(config),
              importer: (doc, opts) => importAndRequestSweep(prisma, queue, doc, opts),
              queueCounts: () => queue.counts(),
              // Public addresses only: the default policy, which nothing configures.
              fetchText: (url) => fetchCatalogText(url),
              listMcpTools: (url) => listMcpTools(url),
            }),
        },
      ],
    };
  }
}
