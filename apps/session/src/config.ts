import { BaseConfig } from '@rota/service-kit';
import { z } from 'zod';

const OAuthClient = z.strictObject({
  client_id: z.string().min(1).max(500),
  client_secret: z.string().min(1).max(2000),
});
const OAuthClients = z.strictObject({
  live: z.record(z.string(), OAuthClient).optional(),
  test: z.record(z.string(), OAuthClient).optional(),
});

/**
 * The demo catalog's providers whose `test` base URL is the sandbox provider
 * server (`${ROTA_SANDBOX_URL}/…`); connections/clients.spec.ts keeps this
 * list equal to the catalog's.
 */
export const SANDBOX_PROVIDERS = [
  'asaas',
  'mercadopago',
  'focusnfe',
  'melhorenvio',
  'inter',
  'idwall',
  'circle',
  'vtex',
  'blnk',
  'pomelo',
  'whatsapp',
  'openpay',
  'wise',
  'wompi',
  'transbank',
  'culqi',
  'facturapi',
  'envia',
  'zenvia',
] as const;

/**
 * Limits of one provider's calls, overriding the global ones; every field is
 * optional. See `ProviderPolicy` in @rota/providers for what each one does.
 */
export const ProviderLimits = z.strictObject({
  /** TCP connect plus TLS handshake. */
  connect_timeout_ms: z.number().int().positive().max(600_000).optional(),
  /** From the first byte sent to the last byte of the answer. */
  timeout_ms: z.number().int().positive().max(600_000).optional(),
  /** Larger answers are not read (the call's outcome is then unknown). */
  max_response_bytes: z
    .number()
    .int()
    .positive()
    .max(1024 * 1024 * 1024)
    .optional(),
  /** Calls in flight at once (also the connections kept to the provider). */
  concurrency: z.number().int().positive().max(10_000).optional(),
  /** Calls waiting for a slot; beyond them a call is refused, nothing sent. */
  queue: z.number().int().min(0).max(100_000).optional(),
  /** Consecutive provider failures that open the circuit. */
  breaker_failures: z.number().int().positive().max(10_000).optional(),
  /** How long an open circuit refuses calls before one is let through to test it. */
  breaker_half_open_ms: z.number().int().positive().max(86_400_000).optional(),
});
export type ProviderLimits = z.infer<typeof ProviderLimits>;

const ProviderLimitsMap = z.record(
  z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9._-]+$/, 'a provider id'),
  ProviderLimits,
);

const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .default('false')
  .transform((v) => v === 'true' || v === '1');

export const SessionConfig = BaseConfig.extend({
  /**
   * A session with no activity for this long is `expired`. The worker's sweep
   * reads the same variable; the session service also applies it on read, so
   * an idle session never runs a tool between two sweeps.
   */
  ROTA_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).default(30),
  /**
   * Granularity of `last_active_at`: an execute rewrites it only when it is at
   * least this many seconds old, so a burst of calls costs one write, not one
   * per call. A session may therefore expire up to this long before a full
   * idle period after its very last call. 0 rewrites on every call.
   */
  ROTA_SESSION_TOUCH_SECONDS: z.coerce.number().int().min(0).max(600).default(15),
  /** Credentials key: base64 of 32 bytes. See credentials/keyring.ts for rotation. */
  ROTA_CREDENTIALS_KEY: z.string().optional(),
  /** Keyring for rotation: `id:base64,id:base64`. */
  ROTA_CREDENTIALS_KEYS: z.string().optional(),
  /** Which key of the keyring (or the id given to ROTA_CREDENTIALS_KEY) seals new credentials. */
  ROTA_CREDENTIALS_KEY_ID: z.string().optional(),
  /**
   * Explicit development mode: without a credentials key, seal with the
   * public built-in key instead of refusing to start. Never in production.
   */
  ROTA_DEV_MODE: flag,
  /** Refuse execute with 403 `quota_exceeded` once an org has used its monthly calls. Off by default. */
  ROTA_QUOTA_ENFORCE: flag,
  /** Monthly calls of an org whose `quota_monthly_calls` is null. */
  ROTA_QUOTA_DEFAULT_MONTHLY_CALLS: z.coerce.number().int().min(0).default(10_000),
  /** Refuse a tool action whose scope the key lacks (403 `forbidden`). Off by default, as documented. */
  META_TOOL_ACTION_SCOPES_ENFORCE: flag,
  /**
   * How long a session replica trusts the policy rules it read for a project
   * (ms). A change through `PUT /v1/policy` is seen by that replica at once
   * and by the others within this. 0 reads them on every call.
   */
  ROTA_POLICY_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  /**
   * Provider ids whose test base URL may resolve to a private or loopback
   * address (the sandbox provider server beside Rota). Live calls never reach
   * a private address, whatever this says.
   */
  ROTA_PRIVATE_PROVIDERS: z.string().default(SANDBOX_PROVIDERS.join(',')),
  /** Connect deadline of one provider request. */
  ROTA_PROVIDER_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
  /**
   * Deadline of one provider answer. Keep it under ROTA_RPC_TIMEOUT_MS, so
   * the session service knows the outcome before the gateway stops waiting.
   */
  ROTA_PROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().default(4000),
  /**
   * Per-provider limits over the two deadlines above and the adapter's
   * defaults (5 MiB answers, 32 calls in flight, 64 waiting, circuit open
   * after 5 failures for 30 s), as JSON keyed by provider id:
   * `{"mercadopago":{"timeout_ms":8000,"concurrency":8},"melhorenvio":{"max_response_bytes":1048576}}`.
   * Fields: connect_timeout_ms, timeout_ms, max_response_bytes, concurrency,
   * queue, breaker_failures, breaker_half_open_ms. Applies to live and test calls.
   */
  ROTA_PROVIDER_LIMITS: z
    .string()
    .default('')
    .transform((text, ctx) => {
      if (!text.trim()) return {};
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: 'must be JSON like {"<provider>":{"timeout_ms":8000,"concurrency":8}}',
        });
        return z.NEVER;
      }
      const parsed = ProviderLimitsMap.safeParse(json);
      if (parsed.success) return parsed.data;
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ code: 'custom', message: `${issue.path.join('.') || '(root)'}: ${issue.message}` });
      }
      return z.NEVER;
    }),
  /** Upper bound of one `codespar_discover` call to the search service. */
  ROTA_DISCOVER_TIMEOUT_MS: z.coerce.number().int().positive().default(4000),
  /**
   * The address browsers and clients reach the gateway at (the gateway reads
   * it too). Connect flows build their OAuth2 redirect URI from it:
   * `<ROTA_PUBLIC_URL>/v1/connections/oauth/callback`.
   */
  ROTA_PUBLIC_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .or(z.literal('')),
  /**
   * OAuth clients this deployment registered with providers, used by
   * `connect_start` when the caller brings none:
   * `{"live":{"mercadopago":{"client_id":"…","client_secret":"…"}},"test":{…}}`.
   */
  ROTA_OAUTH_CLIENTS: z
    .string()
    .default('')
    .transform((text, ctx) => {
      if (!text.trim()) return {};
      try {
        const parsed = OAuthClients.safeParse(JSON.parse(text));
        if (parsed.success) return parsed.data;
      } catch {
        // reported below
      }
      ctx.addIssue({
        code: 'custom',
        message: 'must be JSON like {"test":{"<provider>":{"client_id":"…","client_secret":"…"}}}',
      });
      return z.NEVER;
    }),
  /**
   * Append every finished call to the deployment's log stream in Redis
   * (`GET /v1/logs/stream`). Off, calls are still recorded for `GET /v1/logs`
   * but nothing is streamed (the benchmark measures the difference).
   */
  ROTA_LOG_STREAM: z
    .enum(['true', 'false', '1', '0', ''])
    .default('true')
    .transform((v) => v !== 'false' && v !== '0'),
  /**
   * Entries the log stream keeps (approximately; older ones are trimmed as
   * new ones arrive): the window within which `Last-Event-ID` resumes with
   * no gap. About 1 KiB each.
   */
  ROTA_LOG_STREAM_MAXLEN: z.coerce.number().int().min(100).default(100_000),
  /**
   * Tests only, refused when NODE_ENV=production: a request whose
   * idempotency key starts with `pause-after-claim-` waits this long (ms)
   * after it first claims its key and before it writes its call row, the
   * stall (GC, CPU, a lock wait) a retry may take the key over in. 0: never.
   */
  ROTA_TEST_PAUSE_AFTER_CLAIM_MS: z.coerce.number().int().min(0).max(60_000).default(0),
}).refine((c) => c.NODE_ENV !== 'production' || c.ROTA_TEST_PAUSE_AFTER_CLAIM_MS === 0, {
  message: 'ROTA_TEST_PAUSE_AFTER_CLAIM_MS is a test-only pause point and is refused when NODE_ENV=production',
  path: ['ROTA_TEST_PAUSE_AFTER_CLAIM_MS'],
});
export type SessionConfig = z.infer<typeof SessionConfig>;
