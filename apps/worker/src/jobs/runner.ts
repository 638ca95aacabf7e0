import { hostname } from 'node:os';
import { CATALOG_JOB_OPTIONS, requestSweep } from '@rota/catalog';
import { JOBS, QUEUES, type JobName, type QueueName } from '@rota/contracts';
import { SpanKind } from '@opentelemetry/api';
import { contextFromCarrier, inSpan, traceCarrier, type TraceCarrier } from '@rota/service-kit';
import { Queue, Worker, type ConnectionOptions, type Job, type JobsOptions } from 'bullmq';
import { assertHandlersComplete, HANDLERS, type JobDeps } from './handlers';
import { watchQueue } from './metrics';
import { enqueueDelivery } from '../webhooks/jobs';
import { expectedSchedulers, FX_SCHEDULER, SCHEDULERS } from './schedulers';

export { FX_SCHEDULER, SCHEDULERS } from './schedulers';

/** Catalog jobs: the package defaults with this worker's backoff. */
export function catalogJobOptions(config: JobDeps['config']) {
  return { ...CATALOG_JOB_OPTIONS, backoff: { type: 'exponential', delay: config.ROTA_EMBED_BACKOFF_MS } };
}

/**
 * A queue whose jobs carry the trace context they were added in, in BullMQ's
 * own propagation field (`telemetry.metadata`, beside the payload, which
 * stays ids only), so a job continues the request or job that asked for it.
 * Jobs of the schedulers are added outside any trace and start their own.
 */
export class TracedQueue extends Queue {
  protected override addJob(name: string, data: unknown, opts?: JobsOptions): Promise<Job> {
    const carrier = opts?.telemetry?.metadata ? undefined : traceCarrier();
    return super.addJob(
      name,
      data,
      carrier ? { ...opts, telemetry: { ...opts?.telemetry, metadata: JSON.stringify(carrier) } } : opts,
    );
  }
}

/** The trace context a job was added in, if it carries a readable one. */
export function jobTraceCarrier(job: Job): TraceCarrier | undefined {
  const metadata = job.opts.telemetry?.metadata;
  if (!metadata) return undefined;
  try {
    const parsed = JSON.parse(metadata) as unknown;
    return parsed && typeof parsed === 'object' && typeof (parsed as TraceCarrier).traceparent === 'string'
      ? (parsed as TraceCarrier)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Owns the BullMQ queues and workers of this process: validates payloads,
 * dispatches by job name, installs the schedules, and drains on close.
 */
export class JobRunner {
  readonly queues = new Map<QueueName, Queue>();
  private readonly workers: Worker[] = [];
  private readonly unwatch: (() => void)[] = [];

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
      this.queues.set(name, new TracedQueue(name, { ...common, defaultJobOptions: defaults }));
      const worker = new Worker(name, (job, token) => this.dispatch(job, token), {
        ...common,
        // Recorded on each job it runs (`processedBy`), so a job says which replica ran it.
        name: `${hostname()}:${process.pid}`,
        concurrency: name === QUEUES.catalog ? config.ROTA_EMBED_CONCURRENCY : config.ROTA_WORKER_CONCURRENCY,
        // A job whose worker died is handed to another one after this long.
        lockDuration: config.ROTA_WORKER_LOCK_MS,
        stalledInterval: config.ROTA_WORKER_LOCK_MS,
      });
      worker.on('failed', (job, err) =>
        this.deps.log.warn({ job: job?.name, id: job?.id, err: err.message }, 'job failed'),
      );
      // Connection trouble and a job whose keys Redis lost (a restart without persistence) surface here; unheard, they would print as unhandled.
      worker.on('error', (err) => this.deps.log.warn({ queue: name, err: err.message }, 'queue worker error'));
      this.workers.push(worker);
      this.unwatch.push(watchQueue(this.queues.get(name)!, worker));
    }
    await this.ensureSchedulers();
    // A health transition pages at once instead of waiting for the next dispatch sweep.
    this.deps.health.onTransition(() => this.requestDispatch());
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
        this.deps.log.warn(
          { err: err.message },
          'could not restore the job schedulers; retrying on the next reconnection',
        ),
      );
    });
    // And one sweep now, so a fresh start or a model switch does not wait a whole period.
    await requestSweep(this.queues.get(QUEUES.catalog)!);
  }

  /** The scheduled jobs, created or left as they are. */
  async ensureSchedulers() {
    const config = this.deps.config;
    const maintenance = this.queues.get(QUEUES.maintenance)!;
    await maintenance.upsertJobScheduler(
      SCHEDULERS.sessionsExpire,
      { every: config.ROTA_SWEEP_EVERY_MS },
      { name: 'sessions.expire', data: {} },
    );
    await maintenance.upsertJobScheduler(
      SCHEDULERS.callsReconcile,
      { every: config.ROTA_SWEEP_EVERY_MS },
      { name: 'calls.reconcile', data: {} },
    );
    await this.queues
      .get(QUEUES.catalog)!
      .upsertJobScheduler(
        SCHEDULERS.catalogSweep,
        { every: config.ROTA_EMBED_SWEEP_EVERY_MS },
        { name: 'catalog.sweep', data: {} },
      );
    await maintenance.upsertJobScheduler(
      SCHEDULERS.healthEvaluate,
      { every: config.ROTA_HEALTH_INTERVAL_S * 1000 },
      { name: 'health.evaluate', data: {} },
    );
    await this.queues
      .get(QUEUES.webhooks)!
      .upsertJobScheduler(
        SCHEDULERS.eventsDispatch,
        { every: config.ROTA_EVENTS_DISPATCH_EVERY_MS },
        { name: 'events.dispatch', data: {} },
      );
    if (config.ROTA_FX_URL)
      await maintenance.upsertJobScheduler(
        FX_SCHEDULER,
        { every: config.ROTA_FX_REFRESH_S * 1000 },
        { name: 'fx.refresh', data: {} },
      );
    else await maintenance.removeJobScheduler(FX_SCHEDULER);
  }

  /** Fans the outbox out now (after a transition); a failure is left to the scheduled sweep. */
  requestDispatch(): void {
    this.queues
      .get(QUEUES.webhooks)
      ?.add('events.dispatch', {}, { removeOnComplete: 100 })
      .catch((err: Error) =>
        this.deps.log.warn({ err: err.message }, 'could not request an event dispatch; the sweep will'),
      );
  }

  /** Sends one delivery (again, for a replay). */
  enqueueDelivery(deliveryId: string, replay = false): Promise<void> {
    return enqueueDelivery(this.queues.get(QUEUES.webhooks)!, this.deps.config, deliveryId, replay);
  }

  /** Scheduler ids missing from Redis right now (readiness and catalog status report them). */
  async missingSchedulers(): Promise<string[]> {
    const present = new Set<string>();
    for (const q of this.queues.values()) for (const s of await q.getJobSchedulers()) if (s.key) present.add(s.key);
    return expectedSchedulers(this.deps.config).filter((id) => !present.has(id));
  }

  private async dispatch(job: Job, token?: string) {
    const name = job.name as JobName;
    const spec = JOBS[name];
    if (!spec) throw new Error(`Unknown job ${job.name}`);
    // Each run is a span of its own, in the trace the job was added in (a
    // retry is a second span there); never in whatever context the worker's
    // loop happens to run in.
    return inSpan(
      'rota.worker',
      name,
      {
        kind: SpanKind.CONSUMER,
        parent: contextFromCarrier(jobTraceCarrier(job)),
        attributes: {
          'messaging.system': 'bullmq',
          'messaging.operation.type': 'process',
          'messaging.destination.name': job.queueName,
          'messaging.message.id': String(job.id),
          'rota.job.attempt': job.attemptsMade + 1,
        },
      },
      () => {
        const payload = spec.payload.parse(job.data);
        return HANDLERS[name](payload as never, this.deps, { job, token, queue: (q) => this.queues.get(q)! });
      },
    );
  }

  /** Stops taking jobs and waits for the running ones to finish. */
  async close() {
    await Promise.all(this.workers.map((w) => w.close()));
    for (const stop of this.unwatch.splice(0)) stop();
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    // BullMQ leaves a connection it was handed open; it is ours to close.
    await this.connection.quit?.().catch(() => undefined);
  }
}
