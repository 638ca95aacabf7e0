import { OAuth2TokenCache, ProviderClient, type Sealer } from '@rota/providers';
import { createLogger } from '@rota/service-kit';
import type Redis from 'ioredis';
import type { SessionConfig } from '../config';
import type { ProviderClients } from './provider-calls.service';

/**
 * The OAuth2 access tokens of provider calls: sealed with the credentials
 * keyring, in Redis, shared by every replica (and by every instance made
 * here, since they share the key prefix).
 */
export function oauth2Tokens(config: SessionConfig, keyring: Sealer, redis: Redis): OAuth2TokenCache {
  return new OAuth2TokenCache({
    redis,
    sealer: keyring,
    keyPrefix: `${config.ROTA_REDIS_PREFIX}:oauth2`,
    tokenTimeoutMs: config.ROTA_PROVIDER_TIMEOUT_MS,
    logger: createLogger('providers', config.LOG_LEVEL),
  });
}

/**
 * One client per environment, sharing one OAuth2 token cache. Only the test
 * client may reach private addresses, and only for the providers named in
 * ROTA_PRIVATE_PROVIDERS (the sandbox provider server beside Rota).
 */
export function providerClients(config: SessionConfig, keyring: Sealer, redis: Redis): ProviderClients {
  const logger = createLogger('providers', config.LOG_LEVEL);
  const tokens = oauth2Tokens(config, keyring, redis);
  const defaults = { connectTimeoutMs: config.ROTA_PROVIDER_CONNECT_TIMEOUT_MS, responseTimeoutMs: config.ROTA_PROVIDER_TIMEOUT_MS };
  const privateProviders = config.ROTA_PRIVATE_PROVIDERS.split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  return {
    live: new ProviderClient({ defaults, tokens, logger }),
    test: new ProviderClient({ defaults, tokens, logger, allowPrivateAddresses: privateProviders }),
  };
}
