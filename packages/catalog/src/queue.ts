import { JOBS, QUEUES, type JobName, type JobPayload } from '@rota/contracts';
import { Queue, type ConnectionOptions, type Job, type JobsOptions } from 'bullmq';
import IORedis from 'ioredis';

/** Id of the sweep requested after an import; a second request while it waits is the same job. */
export const SWEEP_JOB_ID = 'catalog-sweep';
/** One follow-up sweep may wait behind a running one. */
export const SWEEP_FOLLOWUP_JOB_ID = 'catalog-sweep-next';

/** Queue settings shared by whoever adds catalog jobs (the worker, the CLI, the search service). */
export const CATALOG_JOB_OPTIONS = {
  attempts: 6,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { count: 1000, age: 24 * 3600 },
  removeOnFail: { count: 5000 },
} as const;

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/**
 * Adds a job under a deterministic id. BullMQ ignores an add while a job with
 * that id exists; a finished one (kept for a while for inspection) would then
 * block the same work forever, so a completed job is replaced and a failed one
 * is retried.
 */
export async function addUnique<J extends JobName>(
  queue: Queue,
  name: J,
  data: JobPayload<J>,
  jobId: string,
  opts: { removeOnComplete?: boolean; jobOptions?: JobsOptions } = {},
): Promise<Job> {
  const existing = await queue.getJob(jobId);
  if (existing) {
    const state = await existing.getState();
    if (state === 'failed') {
      await existing.retry('failed', { resetAttemptsMade: true });
      return existing;
    }
    if (state === 'completed') await existing.remove().catch(() => undefined);
    else return existing;
  }
  return queue.add(name, JOBS[name].payload.parse(data), {
    ...(opts.jobOptions ?? CATALOG_JOB_OPTIONS),
    jobId,
    ...(opts.removeOnComplete ? { removeOnComplete: true, removeOnFail: true } : {}),
  });
}

/**
 * Requests a sweep of stale rows. While one waits, that one will see the new
 * rows; while one runs, a single follow-up is queued behind it.
 */
export async function requestSweep(queue: Queue): Promise<void> {
  const current = await queue.getJob(SWEEP_JOB_ID);
  const state = current ? await current.getState() : undefined;
  if (state === 'active') {
    await addUnique(queue, 'catalog.sweep', {}, SWEEP_FOLLOWUP_JOB_ID, { removeOnComplete: true });
    return;
  }
  await addUnique(queue, 'catalog.sweep', {}, SWEEP_JOB_ID, { removeOnComplete: true });
}

/** Rejects when `p` has not settled within `ms` (BullMQ waits for a connection indefinitely). */
function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms while ${what}`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** A handle on the catalog queue for processes that only add jobs or read counts. */
export class CatalogQueue {
  readonly queue: Queue;
  private owned?: IORedis;
  constructor(connection: ConnectionOptions, prefix: string) {
    this.queue = new Queue(QUEUES.catalog, { connection, prefix });
    // Connection trouble surfaces as rejected calls; an unhandled 'error' event would end the process.
    // BullMQ stops forwarding its connection's errors once the queue is closing, so listen there too.
    this.queue.on('error', () => undefined);
    (this.queue as unknown as { connection?: { on?(event: 'error', fn: () => void): void } }).connection?.on?.(
      'error',
      () => undefined,
    );
  }
  /**
   * A queue handle on its own Redis connection, closed by {@link close}.
   * `redisPrefix` is ROTA_REDIS_PREFIX. Calls give up after a deadline
   * while Redis is unreachable; `failFast` (for one-shot commands) also stops
   * reconnecting after a few tries so a CLI never hangs.
   */
  static connect(redisUrl: string, redisPrefix: string, opts: { failFast?: boolean } = {}): CatalogQueue {
    const redis = new IORedis(redisUrl, {
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      retryStrategy: (n) => (opts.failFast && n > 2 ? null : Math.min(200 * n, 2000)),
    });
    redis.on('error', () => undefined);
    const q = new CatalogQueue(redis, CatalogQueue.prefixFor(redisPrefix));
    q.owned = redis;
    return q;
  }

  /** BullMQ prefix the worker uses for a given ROTA_REDIS_PREFIX. */
  static prefixFor(redisPrefix: string): string {
    return `${redisPrefix}:bull`;
  }
  /** Queues a sweep (see {@link requestSweep}); rejects rather than waits while Redis is unreachable. */
  requestSweep(timeoutMs = 3000): Promise<void> {
    return deadline(requestSweep(this.queue), timeoutMs, 'queueing the sweep');
  }
  counts(timeoutMs = 2000): Promise<QueueCounts> {
    return deadline(this.rawCounts(), timeoutMs, 'reading the queue');
  }
  private async rawCounts(): Promise<QueueCounts> {
    // One after the other: BullMQ's getJobSchedulersCount leaves a rejection
    // unhandled when Redis is unreachable, so it runs only once a call worked.
    const c = await this.queue.getJobCounts(
      'waiting',
      'active',
      'delayed',
      'failed',
      'prioritized',
      'waiting-children',
    );
    const schedulers = await this.queue.getJobSchedulersCount();
    // Each job scheduler keeps its next run waiting as a delayed job; that is not work queued.
    const delayed = Math.max(0, (c.delayed ?? 0) - schedulers);
    return {
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0) + (c['waiting-children'] ?? 0),
      active: c.active ?? 0,
      delayed,
      failed: c.failed ?? 0,
    };
  }
  async close(): Promise<void> {
    await deadline(this.queue.close(), 2000, 'closing the queue').catch(() => undefined);
    // BullMQ leaves a connection it was handed open.
    await this.owned?.quit().catch(() => undefined);
  }
}
