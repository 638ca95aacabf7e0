import { z } from 'zod';

/** BullMQ queues. Job payloads carry ids only; handlers reload state. */
export const QUEUES = { maintenance: 'maintenance' } as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Every job name with its queue and payload schema. The worker refuses to boot unless each has exactly one handler. */
export const JOBS = {
  /** Marks sessions idle past the configured time as `expired`. Scheduled. */
  'sessions.expire': { queue: QUEUES.maintenance, payload: z.object({}).strict() },
} as const satisfies Record<string, { queue: QueueName; payload: z.ZodType }>;

export type JobName = keyof typeof JOBS;
export type JobPayload<J extends JobName> = z.infer<(typeof JOBS)[J]['payload']>;
