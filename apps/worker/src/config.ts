import { BaseConfig } from '@rota/service-kit';
import { z } from 'zod';

export const WorkerConfig = BaseConfig.extend({
  /** Jobs one worker process runs at once. */
  ROTA_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** A session with no activity for this long is expired by the sweep. */
  ROTA_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).default(30),
  /** How often scheduled sweeps run. */
  ROTA_SWEEP_EVERY_MS: z.coerce.number().int().min(1000).default(60_000),
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;
