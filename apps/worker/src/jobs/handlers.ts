import { JOBS, QUEUES, type JobName, type JobPayload, type QueueName } from '@rota/contracts';
import type { Job, Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
import type { FxService } from '../fx/fx.service';
import type { HealthService } from '../health/health.service';
import { deliverWebhook, dispatchEvents } from '../webhooks/jobs';
import type { WebhooksService } from '../webhooks/webhooks.service';
import type { CatalogJobs } from './catalog.jobs';
import { finishStuckKeys, reconcileCalls, type CallLookup, type SettledPublisher } from './calls-reconcile';
import type { SessionsRepository } from './sessions.repository';

export interface JobDeps {
  config: WorkerConfig;
  sessions: SessionsRepository;
  catalog: CatalogJobs;
  health: HealthService;
  fx: FxService;
  webhooks: WebhooksService;
  log: Logger;
  /** Asks a provider what a call left pending made; absent, such calls become `outcome_unknown` unasked. */
  lookupCall?: CallLookup;
  publishSettled?: SettledPublisher;
}

/** What a handler may touch besides its payload: the running job (progress) and the queues (follow-up jobs). */
export interface JobContext {
  job: Job;
  /** The lock token of this run, for moving the job back to delayed. */
  token?: string;
  queue(name: QueueName): Queue;
}

type Handler<J extends JobName> = (payload: JobPayload<J>, deps: JobDeps, ctx: JobContext) => Promise<unknown>;
export type HandlerTable = { [J in JobName]: Handler<J> };

/** One handler per job name; the mapped type makes a missing one a compile error. */
export const HANDLERS: HandlerTable = {
  'sessions.expire': async (_payload, { sessions, config, log }) => {
    const expired = await sessions.expireIdle(config.ROTA_SESSION_IDLE_MINUTES);
    if (expired > 0) log.info({ expired }, 'expired idle sessions');
    return { expired };
  },
  'calls.reconcile': async (_payload, { sessions, config, log, lookupCall, publishSettled }) => {
    const settled = await reconcileCalls(sessions, lookupCall, config.ROTA_RECONCILE_AFTER_S, log, publishSettled);
    const keys = await finishStuckKeys(sessions, log);
    return { ...settled, keys };
  },
  'catalog.sweep': (_payload, { catalog }, { job, queue }) => catalog.sweep(queue(QUEUES.catalog), job),
  'catalog.embed': ({ ids }, { catalog }, { job }) => catalog.embed(ids, job),
  'catalog.reindex': (_payload, { catalog }, { job, token, queue }) =>
    catalog.reindex(queue(QUEUES.catalog), job, token),
  'health.evaluate': (_payload, { health }) => health.evaluateAll(),
  'fx.refresh': (_payload, { fx }) => fx.refresh(),
  'events.dispatch': (_payload, { webhooks, config }, { queue }) =>
    dispatchEvents(webhooks, queue(QUEUES.webhooks), config),
  'webhooks.deliver': ({ delivery_id }, { webhooks }, { job }) => deliverWebhook(webhooks, delivery_id, job),
};

/** Boot check: every declared job has exactly one handler and no handler is orphaned. */
export function assertHandlersComplete(handlers: Record<string, unknown> = HANDLERS) {
  const declared = Object.keys(JOBS).sort();
  const present = Object.keys(handlers).sort();
  if (declared.join() !== present.join()) {
    throw new Error(`Job handlers do not match the declared jobs: declared [${declared}], handled [${present}]`);
  }
}
