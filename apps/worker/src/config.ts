import { EmbedderEnv } from '@rota/catalog';
import { BaseConfig } from '@rota/service-kit';
import { z } from 'zod';

export const WorkerConfig = BaseConfig.extend(EmbedderEnv.shape).extend({
  /** Jobs one worker process runs at once. */
  ROTA_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** A session with no activity for this long is expired by the sweep. */
  ROTA_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).default(30),
  /** How often scheduled sweeps run. */
  ROTA_SWEEP_EVERY_MS: z.coerce.number().int().min(1000).default(60_000),
  /**
   * A provider call still `pending` this long after it started is marked
   * `outcome_unknown` by the reconcile sweep. Keep it well above the provider
   * and transport deadlines, so a call that is merely slow is never touched.
   */
  ROTA_RECONCILE_AFTER_S: z.coerce.number().int().min(10).default(120),
  /** How often the catalog sweep looks for rows without a vector of the current model. */
  ROTA_EMBED_SWEEP_EVERY_MS: z.coerce.number().int().min(1000).default(60_000),
  /** Rows per embedding job, and per embedding call (the OpenAI API takes up to 2048 inputs). */
  ROTA_EMBED_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(256),
  /** Embedding jobs one worker process runs at once. */
  ROTA_EMBED_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** First retry delay of a failed embedding job; each further retry waits twice as long. */
  ROTA_EMBED_BACKOFF_MS: z.coerce.number().int().min(10).default(1000),
  /**
   * A sweep that finds at least this many rows without a vector, and at least
   * half of the table, drops the HNSW index, lets the batches run, and builds
   * the index once at the end: inserting rows into HNSW one by one costs far
   * more than one build. 0 turns this off.
   */
  ROTA_EMBED_REINDEX_THRESHOLD: z.coerce.number().int().min(0).default(1000),
  /** A job held by a worker that died is retried after this long. */
  ROTA_WORKER_LOCK_MS: z.coerce.number().int().min(1000).default(30_000),
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;
