import { Inject, Injectable } from '@nestjs/common';
import { API_KEY_PATTERN, AppError, type Scope } from '@rota/contracts';
import { ApiKeyRepository } from '@rota/db';
import { CONFIG } from '@rota/service-kit';
import type { GatewayConfig } from '../config';
import type { Principal, ProjectPrincipal } from './principal';

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
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * The principal for an `Authorization` header, or null. A cached answer
   * comes back synchronously (no promise on the hot path); a miss returns a
   * promise of the database lookup.
   */
  verify(header: string | undefined): Principal | null | Promise<Principal | null> {
    if (!header) return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const key = match?.[1];
    if (!key || !API_KEY_PATTERN.test(key)) return null;
    // The cache is keyed by the presented key itself: hashing it costs more
    // than everything else here, and an entry lives at most ROTA_AUTH_CACHE_MS
    // (≤ 1 s) in a process that holds the same string in the request anyway.
    const hit = this.cache.get(key);
    if (hit && hit.expires > Date.now()) return hit.principal;
    return this.verifySlow(key);
  }

  /** Whether the header carries a key of the documented shape (`Bearer csk_live_…`): only those are ever looked up. */
  wellFormed(header: string | undefined): boolean {
    const key = header && /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    return !!key && API_KEY_PATTERN.test(key);
  }

  /** Whether this replica looked the header's key up within the last `ROTA_AUTH_CACHE_MS` and found nothing. */
  knownInvalid(header: string | undefined): boolean {
    const key = header && /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (!key) return false;
    const hit = this.cache.get(key);
    return !!hit && hit.expires > Date.now() && hit.principal === null;
  }

  /**
   * The principal of a key this replica verified within the last
   * `ROTA_AUTH_CACHE_MS`, without asking anyone; undefined otherwise.
   */
  cachedPrincipal(header: string | undefined): Principal | undefined {
    const key = header && /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (!key) return undefined;
    const hit = this.cache.get(key);
    return hit && hit.expires > Date.now() && hit.principal ? hit.principal : undefined;
  }

  private async verifySlow(key: string): Promise<Principal | null> {
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.lookup(key).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    const principal = await pending;
    if (this.config.ROTA_AUTH_CACHE_MS > 0) {
      if (this.cache.size >= MAX_CACHE) this.cache.clear();
      // A short-lived key is never trusted past its expiry, not even from the cache.
      const expires = Math.min(Date.now() + this.config.ROTA_AUTH_CACHE_MS, principal?.expiresAt ?? Infinity);
      this.cache.set(key, { principal, expires });
    }
    if (principal?.expiresAt !== undefined && principal.expiresAt <= Date.now()) return null;
    return principal;
  }

  private async lookup(key: string): Promise<Principal | null> {
    try {
      const found = await this.keys.findActiveByKey(key);
      if (!found) return null;
      const scopes = found.scopes as Scope[];
      // A key without a project is the deployment's operator key.
      if (found.projectId === null || found.orgId === null || found.environment === null) {
        return {
          kind: 'operator',
          keyId: found.id,
          scopes,
          ...(found.expiresAt ? { expiresAt: found.expiresAt.getTime() } : {}),
        };
      }
      const principal: ProjectPrincipal = {
        kind: 'project',
        keyId: found.id,
        orgId: found.orgId,
        projectId: found.projectId,
        environment: found.environment,
        scopes,
      };
      if (found.expiresAt) principal.expiresAt = found.expiresAt.getTime();
      if (found.sessionId) principal.sessionId = found.sessionId;
      if (found.userId) principal.userId = found.userId;
      if (found.parentId) principal.parentId = found.parentId;
      return principal;
    } catch {
      throw new AppError('unavailable', 'The credential store is unavailable.');
    }
  }
}
