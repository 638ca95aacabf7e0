import {
  OAuth2TokenCache,
  ProviderClient,
  SANDBOX_TENANT_HEADER,
  type ConnectionRef,
  type ProviderPolicy,
  type Sealer,
} from '@rota/providers';
import { createLogger } from '@rota/service-kit';
import type Redis from 'ioredis';
import type { ProviderLimits, SessionConfig } from '../config';
import type { ConnectionsService } from './connections.service';

/** The two clients: test calls may reach the private sandbox providers, live calls never reach a private address. */
export interface ProviderClients {
  live: ProviderClient;
  test: ProviderClient;
}

/** Where a refresh token the provider rotated is sealed and stored: the connection it belongs to. */
export type RefreshTokenStore = Pick<ConnectionsService, 'rotateRefreshToken' | 'credentialsFor'>;

/**
 * The OAuth2 access tokens of provider calls: sealed with the credentials
 * keyring, in Redis, shared by every replica (and by every instance made
 * here, since they share the key prefix). A refresh token the provider
 * rotates replaces the spent one in the connection's sealed credentials;
 * thrown away, the connection's next refresh would fail (`invalid_grant`).
 */
export function oauth2Tokens(
  config: SessionConfig,
  keyring: Sealer,
  redis: Redis,
  connections: RefreshTokenStore,
): OAuth2TokenCache {
  const logger = createLogger('providers', config.LOG_LEVEL);
  return new OAuth2TokenCache({
    redis,
    sealer: keyring,
    keyPrefix: `${config.ROTA_REDIS_PREFIX}:oauth2`,
    tokenTimeoutMs: config.ROTA_PROVIDER_TIMEOUT_MS,
    logger,
    onRefreshToken: async (c: ConnectionRef, refreshToken: string, previous: string | undefined) => {
      const stored = await connections.rotateRefreshToken(c.tenant, c.providerId, refreshToken, previous);
      // Superseded: the connection was saved again or deleted since the refresh began; its own credentials stand.
      if (stored === 'superseded')
        logger.info({ provider: c.providerId }, 'rotated refresh token not stored: the connection changed meanwhile');
    },
    // Under the refresh lock: another replica may have rotated the token since this request read the connection.
    currentRefreshToken: async (c: ConnectionRef) =>
      (await connections.credentialsFor(c.tenant.project_id, c.tenant.environment, c.providerId))?.refresh_token,
  });
}

/** `ROTA_PROVIDER_LIMITS` in the adapter's terms: the fields an operator set, nothing else. */
export function providerPolicies(limits: Record<string, ProviderLimits>): Record<string, Partial<ProviderPolicy>> {
  const out: Record<string, Partial<ProviderPolicy>> = {};
  for (const [id, l] of Object.entries(limits)) {
    const policy: Partial<ProviderPolicy> = {};
    if (l.connect_timeout_ms !== undefined) policy.connectTimeoutMs = l.connect_timeout_ms;
    if (l.timeout_ms !== undefined) policy.responseTimeoutMs = l.timeout_ms;
    if (l.max_response_bytes !== undefined) policy.maxResponseBytes = l.max_response_bytes;
    if (l.concurrency !== undefined) policy.concurrency = l.concurrency;
    if (l.queue !== undefined) policy.queue = l.queue;
    if (l.breaker_failures !== undefined) policy.breakerFailures = l.breaker_failures;
    if (l.breaker_half_open_ms !== undefined) policy.breakerHalfOpenAfterMs = l.breaker_half_open_ms;
    out[id] = policy;
  }
  return out;
}

/** The ids in `ROTA_PRIVATE_PROVIDERS`. */
export function privateProviderIds(config: Pick<SessionConfig, 'ROTA_PRIVATE_PROVIDERS'>): string[] {
  return config.ROTA_PRIVATE_PROVIDERS.split(',')
    .map((id) => id.trim())
    .filter(Boolean);
}

/**
 * One client per environment, sharing one OAuth2 token cache. Only the test
 * client may reach private addresses, and only for the operator's entries
 * of the providers named in ROTA_PRIVATE_PROVIDERS (the sandbox provider
 * server beside Rota), which are told the tenant in the sandbox's tenant
 * header; both clients strip that header from everything else. Both apply
 * the global deadlines and, per provider, ROTA_PROVIDER_LIMITS.
 */
export function providerClients(
  config: SessionConfig,
  keyring: Sealer,
  redis: Redis,
  connections: RefreshTokenStore,
): ProviderClients {
  const logger = createLogger('providers', config.LOG_LEVEL);
  const tokens = oauth2Tokens(config, keyring, redis, connections);
  const defaults = {
    connectTimeoutMs: config.ROTA_PROVIDER_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: config.ROTA_PROVIDER_TIMEOUT_MS,
  };
  const providers = providerPolicies(config.ROTA_PROVIDER_LIMITS);
  return {
    live: new ProviderClient({ defaults, providers, tokens, logger, tenantHeader: SANDBOX_TENANT_HEADER }),
    test: new ProviderClient({
      defaults,
      providers,
      tokens,
      logger,
      allowPrivateAddresses: privateProviderIds(config),
      tenantHeader: SANDBOX_TENANT_HEADER,
    }),
  };
}
