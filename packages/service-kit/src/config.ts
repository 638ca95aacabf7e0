import { z } from 'zod';
import { TracingConfig } from './tracing';

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
  /**
   * Port of this process's Prometheus listener (`GET /metrics`, no
   * authentication). Unset or empty: no listener. The gateway also serves
   * `/metrics` on its own port to operator keys.
   */
  ROTA_METRICS_PORT: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce.number().int().min(0).max(65535).optional(),
  ),
  /** Address the metrics listener binds; keep it off public networks. */
  ROTA_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** OpenTelemetry export (see `TracingConfig`): off unless a collector address is set. */
  ...TracingConfig.shape,
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
