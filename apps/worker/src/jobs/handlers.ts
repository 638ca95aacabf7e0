import { JOBS, QUEUES, type JobName, type JobPayload, type QueueName } from '@rota/contracts';
import type { Job, Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
import type { CatalogJobs } from './catalog.jobs';
import type { SessionsRepository } from './sessions.repository';

export interface JobDeps {
  config: WorkerConfig;
  sessions: SessionsRepository;
  catalog: CatalogJobs;
  log: Logger;
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
  'calls.reconcile': async (_payload, { sessions, config, log }) => {
    const reconciled = await sessions.reconcilePending(config.ROTA_RECONCILE_AFTER_S);
    if (reconciled > 0) log.warn({ reconciled }, 'provider calls left pending are now outcome_unknown');
    return { reconciled };
  },
  'catalog.sweep': (_payload, { catalog }, { job, queue }) => catalog.sweep(queue(QUEUES.catalog), job),
  'catalog.embed': ({ ids }, { catalog }, { job }) => catalog.embed(ids, job),
  'catalog.reindex': (_payload, { catalog }, { job, token, queue }) => catalog.reindex(queue(QUEUES.catalog), job, token),
};

/** Boot check: every declared job has exactly one handler and no handler is orphaned. */
export function assertHandlersComplete(handlers: Record<string, unknown> = HANDLERS) {
  const declared = Object.keys(JOBS).sort();
  const present = Object.keys(handlers).sort();
  if (declared.join() !== present.join()) {
    throw new Error(`Job handlers do not match the declared jobs: declared [${declared}], handled [${present}]`);
  }
}
