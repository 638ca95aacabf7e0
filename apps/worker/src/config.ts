import { EmbedderEnv } from '@rota/catalog';
import { BaseConfig } from '@rota/service-kit';
import { FX_FORMATS } from '@rota/contracts';
import { z } from 'zod';

/** A switch set in the environment: `true`/`1` or `false`/`0`; unset or empty, not given. */
const Switch = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v === 'true' || v === '1'));

/** The worker's environment as given; {@link WorkerConfig} resolves the names that mean the same. */
const WorkerEnv = BaseConfig.extend(EmbedderEnv.shape).extend({
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
  /** How often the worker evaluates the health rollup (deployment-wide and every project with connections), in seconds. */
  ROTA_HEALTH_INTERVAL_S: z.coerce.number().int().min(1).default(60),
  /** Budget of each health check, in ms. */
  ROTA_HEALTH_CHECK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(3000),
  /** Days of health snapshots kept (transitions are kept twice as long). */
  ROTA_HEALTH_RETENTION_DAYS: z.coerce.number().int().min(1).default(7),
  /** A currency pair last fetched longer ago than this is stale (the FX check degrades). */
  ROTA_FX_STALE_AFTER_H: z.coerce.number().int().min(1).default(72),
  /** HTTP source of exchange rates; unset: no refresh job (rates come from `rota fx import`). */
  ROTA_FX_URL: z
    .string()
    .url()
    .refine((u) => /^https?:/i.test(u), 'ROTA_FX_URL must be an http(s) URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Shape of the source's answer: `rates` ({base, rates: {QUOTE: rate}}) or `pairs` ({rates: [{base, quote, rate}]}); see docs/operations.md. */
  ROTA_FX_FORMAT: z.enum(FX_FORMATS).default('rates'),
  /** How often the refresh job fetches the source, in seconds. */
  ROTA_FX_REFRESH_S: z.coerce.number().int().min(60).default(3600),
  /** Deadline of one fetch of the source, in ms. */
  ROTA_FX_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  /**
   * The worker's own key (32 bytes, base64) that seals webhook signing
   * secrets at rest; never the credentials key. Unset: webhooks cannot be
   * created, except in ROTA_DEV_MODE, which uses a built-in key.
   */
  ROTA_WEBHOOK_KEY: z
    .string()
    .optional()
    .refine(
      (v) => !v || Buffer.from(v, 'base64').length === 32,
      'ROTA_WEBHOOK_KEY must be 32 bytes in base64 (openssl rand -base64 32)',
    ),
  /** Development only: a built-in webhook key when ROTA_WEBHOOK_KEY is unset. */
  ROTA_DEV_MODE: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  /** Attempts of one webhook delivery before it is dead (the dead-letter list). */
  ROTA_WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(30).default(8),
  /** First retry delay of a failed delivery; each further retry waits twice as long. */
  ROTA_WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(10).default(2000),
  /** Deadline of one delivery attempt, in ms. */
  ROTA_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  /**
   * Lets webhook URLs reach private and loopback addresses (local development
   * and tests only); off by default.
   */
  ROTA_WEBHOOKS_ALLOW_PRIVATE: Switch,
  /** The earlier name of `ROTA_WEBHOOKS_ALLOW_PRIVATE`, still read. */
  ROTA_WEBHOOK_ALLOW_PRIVATE: Switch,
  /** How often the outbox is swept for undispatched events (a transition also dispatches at once). */
  ROTA_EVENTS_DISPATCH_EVERY_MS: z.coerce.number().int().min(100).default(10_000),
});

/** The worker's configuration, validated at boot (`loadConfig`). */
export const WorkerConfig = WorkerEnv.transform(
  ({ ROTA_WEBHOOKS_ALLOW_PRIVATE: allowPrivate, ROTA_WEBHOOK_ALLOW_PRIVATE: earlierName, ...config }, ctx) => {
    if (allowPrivate !== undefined && earlierName !== undefined && allowPrivate !== earlierName) {
      ctx.addIssue({
        code: 'custom',
        path: ['ROTA_WEBHOOKS_ALLOW_PRIVATE'],
        message: 'disagrees with ROTA_WEBHOOK_ALLOW_PRIVATE (its earlier name); set only ROTA_WEBHOOKS_ALLOW_PRIVATE',
      });
      return z.NEVER;
    }
    // One answer, under the key the webhook code reads, whichever name set it.
    return { ...config, ROTA_WEBHOOK_ALLOW_PRIVATE: allowPrivate ?? earlierName ?? false };
  },
);
export type WorkerConfig = z.infer<typeof WorkerConfig>;
