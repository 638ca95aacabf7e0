/**
 * The ids of the worker's job schedulers. Kept apart from the runner, with no
 * imports, so tools outside the worker (`pnpm reliability` checks that every
 * one survives a Redis restart) read the same list from the build.
 */
export const SCHEDULERS = {
  sessionsExpire: 'sessions-expire',
  callsReconcile: 'calls-reconcile',
  catalogSweep: 'catalog-sweep',
  healthEvaluate: 'health-evaluate',
  eventsDispatch: 'events-dispatch',
} as const;

/** Scheduled only while an FX source (`ROTA_FX_URL`) is configured. */
export const FX_SCHEDULER = 'fx-refresh';

/** Every scheduler a worker with this configuration keeps in Redis. */
export function expectedSchedulers(config: { ROTA_FX_URL?: string | undefined }): string[] {
  return [...Object.values(SCHEDULERS), ...(config.ROTA_FX_URL ? [FX_SCHEDULER] : [])];
}
