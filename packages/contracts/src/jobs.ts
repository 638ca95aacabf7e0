import { z } from 'zod';

/** BullMQ queues. Job payloads carry ids only; handlers reload state. */
export const QUEUES = { maintenance: 'maintenance', catalog: 'catalog', webhooks: 'webhooks' } as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Every job name with its queue and payload schema. The worker refuses to boot unless each has exactly one handler. */
export const JOBS = {
  /** Marks sessions idle past the configured time as `expired`. Scheduled. */
  'sessions.expire': { queue: QUEUES.maintenance, payload: z.object({}).strict() },
  /**
   * Provider calls left `pending` (written down, then the service stopped
   * before completing them) become `outcome_unknown`, with their idempotency
   * keys, so a retry with the same key learns the outcome is unknown instead
   * of waiting forever. Scheduled.
   */
  'calls.reconcile': { queue: QUEUES.maintenance, payload: z.object({}).strict() },
  /** Finds catalog rows without a vector of the current model and enqueues them as `catalog.embed` batches. Scheduled, and requested after imports. */
  'catalog.sweep': { queue: QUEUES.catalog, payload: z.object({}).strict() },
  /** Embeds one batch of `mcp_tools` rows in one embedding call (compare-and-set on each row's hash). */
  'catalog.embed': { queue: QUEUES.catalog, payload: z.object({ ids: z.array(z.uuid()).min(1).max(2048) }).strict() },
  /** Builds the HNSW index again after a bulk re-embed dropped it, once no catalog job is pending. */
  'catalog.reindex': { queue: QUEUES.catalog, payload: z.object({}).strict() },
  /** Evaluates the deployment's health and that of every project with connections, storing snapshots and transitions. Scheduled every `ROTA_HEALTH_INTERVAL_S`. */
  'health.evaluate': { queue: QUEUES.maintenance, payload: z.object({}).strict() },
  /** Fetches exchange rates from the configured HTTP source (`ROTA_FX_URL`). Scheduled when a source is set. */
  'fx.refresh': { queue: QUEUES.maintenance, payload: z.object({}).strict() },
  /** Fans undispatched events of the outbox out to the subscriptions that match them, one delivery each. Scheduled, and requested after a transition. */
  'events.dispatch': { queue: QUEUES.webhooks, payload: z.object({}).strict() },
  /** Sends one delivery (signed), retried with exponential backoff; after the last attempt it is dead (the dead-letter list). `jobId` is the delivery id. */
  'webhooks.deliver': {
    queue: QUEUES.webhooks,
    payload: z.object({ delivery_id: z.string().regex(/^wdl_[A-Za-z0-9]{1,64}$/) }).strict(),
  },
} as const satisfies Record<string, { queue: QueueName; payload: z.ZodType }>;

export type JobName = keyof typeof JOBS;
export type JobPayload<J extends JobName> = z.infer<(typeof JOBS)[J]['payload']>;
