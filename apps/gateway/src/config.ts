import { BaseConfig } from '@rota/service-kit';
import { z } from 'zod';

export const GatewayConfig = BaseConfig.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /**
   * How long a verified API key is trusted without asking Postgres again.
   * Capped at one second so a revoked key is refused everywhere within a second.
   */
  ROTA_AUTH_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(1000),
  /**
   * Failed authentications (401s) one source address may cause per window,
   * counted in Redis across replicas; past it the address gets 429 until the
   * window ends. 0 turns the limit off.
   */
  ROTA_AUTH_FAIL_LIMIT: z.coerce.number().int().min(0).default(30),
  ROTA_AUTH_FAIL_WINDOW_S: z.coerce.number().int().positive().default(60),
  /** Deadline of each service ping in `/health/ready`. */
  ROTA_READY_TIMEOUT_MS: z.coerce.number().int().positive().default(1000),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;
