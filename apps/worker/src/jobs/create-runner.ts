import { createEmbedder } from '@rota/catalog';
import type { PrismaClient } from '@rota/db';
import { createLogger } from '@rota/service-kit';
import Redis from 'ioredis';
import type { WorkerConfig } from '../config';
import { CatalogJobs } from './catalog.jobs';
import { catalogJobOptions, JobRunner } from './runner';
import { SessionsRepository } from './sessions.repository';

/** Builds the worker's job runner from its config (the module and the tests share this). */
export function createJobRunner(config: WorkerConfig, prisma: PrismaClient): JobRunner {
  const log = createLogger('worker', config.LOG_LEVEL);
  const catalog = new CatalogJobs(
    prisma,
    createEmbedder(config, { maxInputsPerRequest: config.ROTA_EMBED_BATCH_SIZE }),
    // The transaction of one batch outlives the embedding call's own deadline.
    {
      batchSize: config.ROTA_EMBED_BATCH_SIZE,
      batchTimeoutMs: config.ROTA_EMBED_TIMEOUT_MS * 2 + 30_000,
      jobOptions: catalogJobOptions(config),
      reindexThreshold: config.ROTA_EMBED_REINDEX_THRESHOLD,
    },
    log,
  );
  return new JobRunner(new Redis(config.REDIS_URL, { maxRetriesPerRequest: null }) as never, `${config.ROTA_REDIS_PREFIX}:bull`, {
    config,
    sessions: new SessionsRepository(prisma),
    catalog,
    log,
  });
}
