import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { API_KEY_PATTERN, AppError, type Environment, type Scope } from '@rota/contracts';
import { ApiKeyRepository } from '@rota/db';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import type { Principal } from './principal';

interface CacheEntry {
  principal: Principal | null;
  expires: number;
}

const MAX_CACHE = 10_000;

/**
 * Verifies bearer keys against their stored hashes. Answers are kept at most
 * `ROTA_AUTH_CACHE_MS` (≤ 1 s), which bounds how long a revoked key keeps
 * working on any replica; concurrent look-ups of one key share one query.
 */
@Injectable()
export class ApiKeyService {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<Principal | null>>();

  constructor(
    private readonly keys: ApiKeyRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async verify(header: string | undefined): Promise<Principal | null> {
    if (!header) return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !API_KEY_PATTERN.test(match[1])) return null;
    const key = match[1];
    const cacheKey = createHash('sha256').update(key).digest('hex');
    const now = Date.now();
    const hit = this.cache.get(cacheKey);
    if (hit && hit.expires > now) return hit.principal;

    let pending = this.inflight.get(cacheKey);
    if (!pending) {
      pending = this.lookup(key).finally(() => this.inflight.delete(cacheKey));
      this.inflight.set(cacheKey, pending);
    }
    const principal = await pending;
    if (this.config.ROTA_AUTH_CACHE_MS > 0) {
      if (this.cache.size >= MAX_CACHE) this.cache.clear();
      this.cache.set(cacheKey, { principal, expires: Date.now() + this.config.ROTA_AUTH_CACHE_MS });
    }
    return principal;
  }

  private async lookup(key: string): Promise<Principal | null> {
    try {
      const found = await this.keys.findActiveByKey(key);
      if (!found) return null;
      return {
        keyId: found.id,
        orgId: found.orgId,
        projectId: found.projectId,
        environment: found.environment as Environment,
        scopes: found.scopes as Scope[],
      };
    } catch {
      throw new AppError('unavailable', 'The credential store is unavailable.');
    }
  }
}
