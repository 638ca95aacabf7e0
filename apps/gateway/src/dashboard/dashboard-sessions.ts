import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '@rota/contracts';
import { CONFIG, REDIS } from '@rota/service-kit';
import type Redis from 'ioredis';
import { ApiKeyService } from '../auth/api-key.service';
import { AuthFailureLimiter } from '../auth/auth-failures';
import type { Principal } from '../auth/principal';
import type { GatewayConfig } from '../config';
import { DashboardRepository } from './dashboard.repository';

export const DASHBOARD_COOKIE = 'rota_dashboard';

/**
 * Dashboard sessions: a key is exchanged once for a random token, sent back
 * as an HttpOnly, SameSite=Strict cookie scoped to `/dashboard`. Redis holds
 * only the token's hash and the key's principal, for every gateway replica,
 * until the cookie expires; a revoked key's token stops working at once.
 */
@Injectable()
export class DashboardSessions {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly failures: AuthFailureLimiter,
    private readonly repo: DashboardRepository,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  private redisKey(token: string) {
    return `${this.config.ROTA_REDIS_PREFIX}:dashboard:${createHash('sha256').update(token).digest('hex')}`;
  }

  /** The `Set-Cookie` value for a valid key; 401 otherwise. */
  async open(key: string, address: string): Promise<string> {
    // Guesses here count with the API's own failed authentications.
    // As on the API: an address in back-off still gets a valid key served, while the failed-lookup budget has room.
    const wait = await this.failures.retryAfter(address);
    const header = `Bearer ${key}`;
    const refused = () =>
      new AppError('rate_limited', `Too many failed authentications from this address; retry in ${wait} s.`);
    if (
      wait > 0 &&
      (!this.keys.wellFormed(header) || this.keys.knownInvalid(header) || !(await this.failures.lookupAllowed()))
    )
      throw refused();
    const principal = await this.keys.verify(header);
    if (!principal) {
      await this.failures.fail(address);
      if (this.keys.wellFormed(header)) await this.failures.failedLookup();
      if (wait > 0) throw refused();
      throw new AppError('unauthorized', 'unauthorized');
    }
    // The dashboards show the whole project: a key that may see one session or one user's share of it never opens them.
    if (principal.kind === 'project' && (principal.sessionId !== undefined || principal.userId !== undefined)) {
      throw new AppError(
        'forbidden',
        'This key is bound to one session or one end user; the dashboards need a key of the whole project.',
      );
    }
    const token = randomBytes(32).toString('base64url');
    // A short-lived key's cookie ends with the key.
    const untilExpiry =
      principal.expiresAt !== undefined ? Math.ceil((principal.expiresAt - Date.now()) / 1000) : Infinity;
    const ttl = Math.max(1, Math.min(this.config.ROTA_DASHBOARD_SESSION_S, untilExpiry));
    await this.redis.set(this.redisKey(token), JSON.stringify(principal), 'EX', ttl);
    return `${DASHBOARD_COOKIE}=${token}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${ttl}${this.config.ROTA_DASHBOARD_SECURE_COOKIE ? '; Secure' : ''}`;
  }

  /** The principal behind the request's cookie; 401 when there is none, it expired, or its key was revoked. */
  async principal(cookieHeader: string | undefined): Promise<Principal> {
    const token = readCookie(cookieHeader, DASHBOARD_COOKIE);
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) throw new AppError('unauthorized', 'unauthorized');
    const stored = await this.redis.get(this.redisKey(token));
    if (!stored) throw new AppError('unauthorized', 'unauthorized');
    const principal = JSON.parse(stored) as Principal;
    if (!(await this.repo.keyActive(principal.keyId))) {
      await this.redis.del(this.redisKey(token));
      throw new AppError('unauthorized', 'unauthorized');
    }
    return principal;
  }
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
