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
  /** Deadline of each service ping in `/health/ready`. */
  ROTA_READY_TIMEOUT_MS: z.coerce.number().int().positive().default(1000),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;
