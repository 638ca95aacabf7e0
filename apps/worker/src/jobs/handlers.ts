import { JOBS, type JobName, type JobPayload } from '@rota/contracts';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
import type { SessionsRepository } from './sessions.repository';

export interface JobDeps {
  config: WorkerConfig;
  sessions: SessionsRepository;
  log: Logger;
}

type Handler<J extends JobName> = (payload: JobPayload<J>, deps: JobDeps) => Promise<unknown>;
export type HandlerTable = { [J in JobName]: Handler<J> };

/** One handler per job name; the mapped type makes a missing one a compile error. */
export const HANDLERS: HandlerTable = {
  'sessions.expire': async (_payload, { sessions, config, log }) => {
    const expired = await sessions.expireIdle(config.ROTA_SESSION_IDLE_MINUTES);
    if (expired > 0) log.info({ expired }, 'expired idle sessions');
    return { expired };
  },
};

/** Boot check: every declared job has exactly one handler and no handler is orphaned. */
export function assertHandlersComplete(handlers: Record<string, unknown> = HANDLERS) {
  const declared = Object.keys(JOBS).sort();
  const present = Object.keys(handlers).sort();
  if (declared.join() !== present.join()) {
    throw new Error(`Job handlers do not match the declared jobs: declared [${declared}], handled [${present}]`);
  }
}
