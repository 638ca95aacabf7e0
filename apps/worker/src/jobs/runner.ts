import { CATALOG_JOB_OPTIONS, requestSweep } from '@rota/catalog';
import { JOBS, QUEUES, type JobName, type QueueName } from '@rota/contracts';
import { Queue, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { assertHandlersComplete, HANDLERS, type JobDeps } from './handlers';

/** Catalog jobs: the package defaults with this worker's backoff. */
export function catalogJobOptions(config: JobDeps['config']) {
  return { ...CATALOG_JOB_OPTIONS, backoff: { type: 'exponential', delay: config.ROTA_EMBED_BACKOFF_MS } };
}

/**
 * Owns the BullMQ queues and workers of this process: validates payloads,
 * dispatches by job name, installs the schedules, and drains on close.
 */
/** The ids of the worker's job schedulers. */
export const SCHEDULERS = { sessionsExpire: 'sessions-expire', callsReconcile: 'calls-reconcile', catalogSweep: 'catalog-sweep' } as const;

export class JobRunner {
  readonly queues = new Map<QueueName, Queue>();
  private readonly workers: Worker[] = [];

  constructor(
    /** Shared by the queues and workers; BullMQ duplicates it for blocking reads. */
    private readonly connection: ConnectionOptions & { quit?: () => Promise<unknown> },
    private readonly prefix: string,
    private readonly deps: JobDeps,
  ) {
    assertHandlersComplete();
  }

  async start() {
    const { config } = this.deps;
    for (const name of Object.values(QUEUES)) {
      const common = { connection: this.connection, prefix: this.prefix };
      const defaults =
        name === QUEUES.catalog
          ? catalogJobOptions(config)
          : { removeOnComplete: 1000, removeOnFail: 5000, attempts: 5, backoff: { type: 'exponential', delay: 1000 } };
      this.queues.set(name, new Queue(name, { ...common, defaultJobOptions: defaults }));
      const worker = new Worker(name, (job, token) => this.dispatch(job, token), {
        ...common,
        concurrency: name === QUEUES.catalog ? config.ROTA_EMBED_CONCURRENCY : config.ROTA_WORKER_CONCURRENCY,
        // A job whose worker died is handed to another one after this long.
        lockDuration: config.ROTA_WORKER_LOCK_MS,
        stalledInterval: config.ROTA_WORKER_LOCK_MS,
      });
      worker.on('failed', (job, err) => this.deps.log.warn({ job: job?.name, id: job?.id, err: err.message }, 'job failed'));
      this.workers.push(worker);
    }
    await this.ensureSchedulers();
    // Redis keeps nothing on disk here: after a restart the schedulers are
    // gone, so every reconnection puts them back (upserts are idempotent).
    // Only after the connection was lost: the first 'ready' is the initial
    // connection, and an upsert then could start a second, concurrent sweep.
    const conn = this.connection as { on?: (event: string, listener: () => void) => unknown };
    let lost = false;
    conn.on?.('close', () => {
      lost = true;
    });
    conn.on?.('ready', () => {
      if (!lost) return;
      lost = false;
      this.ensureSchedulers().catch((err: Error) =>
        this.deps.log.warn({ err: err.message }, 'could not restore the job schedulers; retrying on the next reconnection'),
      );
    });
    // And one sweep now, so a fresh start or a model switch does not wait a whole period.
    await requestSweep(this.queues.get(QUEUES.catalog)!);
  }

  /** The scheduled jobs, created or left as they are. */
  async ensureSchedulers() {
    const config = this.deps.config;
    const maintenance = this.queues.get(QUEUES.maintenance)!;
    await maintenance.upsertJobScheduler(SCHEDULERS.sessionsExpire, { every: config.ROTA_SWEEP_EVERY_MS }, { name: 'sessions.expire', data: {} });
    await maintenance.upsertJobScheduler(SCHEDULERS.callsReconcile, { every: config.ROTA_SWEEP_EVERY_MS }, { name: 'calls.reconcile', data: {} });
    await this.queues
      .get(QUEUES.catalog)!
      .upsertJobScheduler(SCHEDULERS.catalogSweep, { every: config.ROTA_EMBED_SWEEP_EVERY_MS }, { name: 'catalog.sweep', data: {} });
  }

  /** Scheduler ids missing from Redis right now (readiness and catalog status report them). */
  async missingSchedulers(): Promise<string[]> {
    const present = new Set<string>();
    for (const q of this.queues.values()) for (const s of await q.getJobSchedulers()) if (s.key) present.add(s.key);
    return Object.values(SCHEDULERS).filter((id) => !present.has(id));
  }

  private async dispatch(job: Job, token?: string) {
    const name = job.name as JobName;
    const spec = JOBS[name];
    if (!spec) throw new Error(`Unknown job ${job.name}`);
    const payload = spec.payload.parse(job.data);
    return HANDLERS[name](payload as never, this.deps, { job, token, queue: (q) => this.queues.get(q)! });
  }

  /** Stops taking jobs and waits for the running ones to finish. */
  async close() {
    await Promise.all(this.workers.map((w) => w.close()));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    // BullMQ leaves a connection it was handed open; it is ours to close.
    await this.connection.quit?.().catch(() => undefined);
  }
}
