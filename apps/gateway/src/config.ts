import { BaseConfig } from '@rota/service-kit';
import { isIP } from 'node:net';
import { z } from 'zod';

/** An IPv4 or IPv6 address, with an optional prefix length that fits it. */
function validCidr(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  const n = Number(bits);
  return /^\d{1,3}$/.test(bits) && n >= 0 && n <= (family === 4 ? 32 : 128);
}

export const GatewayConfig = BaseConfig.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /**
   * The address clients and browsers reach the gateway at (behind a proxy or
   * load balancer, its public URL). Session MCP URLs, the OpenAPI `servers`
   * entry and OAuth redirect URIs are built from it. Unset: the address the
   * gateway listens on.
   */
  ROTA_PUBLIC_URL: z
    .url({
      protocol: /^https?$/,
      error: 'ROTA_PUBLIC_URL must be an absolute http(s) URL such as https://rota.example.com',
    })
    .optional()
    .or(z.literal('')),
  /**
   * How long a verified API key is trusted without asking Postgres again.
   * Capped at one second so a revoked key is refused everywhere within a second.
   */
  ROTA_AUTH_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(500),
  /**
   * Failed authentications (401s) one source address may cause per window,
   * counted in Redis across replicas; past it the address gets 429 until the
   * window ends. 0 turns the limit off.
   */
  ROTA_AUTH_FAIL_LIMIT: z.coerce.number().int().min(0).default(30),
  ROTA_AUTH_FAIL_WINDOW_S: z.coerce.number().int().positive().default(60),
  /** Short-lived keys one key may mint per minute (`POST /v1/keys`), counted in Redis across replicas; 0 turns the limit off. */
  ROTA_KEYS_MINT_PER_MIN: z.coerce.number().int().min(0).default(60),
  /**
   * Key lookups that may find nothing per second, all addresses together.
   * An address in back-off gets its well-formed keys looked up only while
   * this budget has room (a valid key is then served); 0 turns it off.
   */
  ROTA_AUTH_FAILED_LOOKUPS_PER_S: z.coerce.number().int().min(0).default(50),
  /**
   * Proxies in front of the gateway whose `X-Forwarded-For` is believed:
   * comma-separated addresses or CIDRs. Empty (the default): the address
   * that connected is the client's, whatever a header says.
   */
  ROTA_TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine(
      (list) => list.every(validCidr),
      'must be comma-separated IP addresses or CIDRs (10.0.0.0/8, 2001:db8::/32)',
    ),
  /**
   * How long a gateway replica trusts the rate limits it read for a project
   * (ms); a `PUT /v1/rate-limits` reaches every replica within this.
   */
  ROTA_RATE_LIMIT_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  /**
   * Stretches every rate-limit window by this factor (1 in production). Tests
   * set a large factor so "5 per second" means "5 in this test", and assert
   * counts without depending on how fast the machine is.
   */
  ROTA_RATE_LIMIT_WINDOW_SCALE: z.coerce.number().int().min(1).max(3600).default(1),
  /**
   * Browser origins allowed to call the MCP endpoints, comma-separated, or
   * `*`. A request carrying any other `Origin` is refused with 403; requests
   * without one (every non-browser client) are not affected.
   */
  ROTA_MCP_ALLOWED_ORIGINS: z.string().default(''),
  /** Deadline of each service ping in `/health/ready`. */
  ROTA_READY_TIMEOUT_MS: z.coerce.number().int().positive().default(1000),
  /** How often an open `GET /v1/logs/stream` gets a comment line (and its key is checked again). */
  ROTA_SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).default(15_000),
  /** Log streams one gateway replica serves at once; past it, 503 `unavailable`. */
  ROTA_SSE_MAX_SUBSCRIBERS: z.coerce.number().int().min(1).default(1000),
  /** Lifetime of a dashboard cookie (`POST /dashboard/session`), in seconds. */
  ROTA_DASHBOARD_SESSION_S: z.coerce.number().int().min(60).max(86_400).default(900),
  /** Adds `Secure` to the dashboard cookie; set it wherever the gateway is served over HTTPS. */
  ROTA_DASHBOARD_SECURE_COOKIE: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;
