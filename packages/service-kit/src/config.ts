import { z } from 'zod';

/** Settings every app shares. Each app extends this with its own. */
export const BaseConfig = z.object({
  NODE_ENV: z.string().default('development'),
  DATABASE_URL: z.string().default('postgresql://postgres@127.0.0.1:5432/rota'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** Namespace for every Redis key Rota writes (streams, caches, queues). */
  ROTA_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('rota'),
  /** Default deadline of one service call, in ms. */
  ROTA_RPC_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** How long SIGTERM waits for in-flight work before exiting. */
  ROTA_DRAIN_TIMEOUT_MS: z.coerce.number().int().positive().default(10000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type BaseConfig = z.infer<typeof BaseConfig>;

/**
 * Validates the environment at boot. A bad value stops the app with a message
 * naming every variable at fault, instead of failing later at first use.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  return parsed.data;
}
