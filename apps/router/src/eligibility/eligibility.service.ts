import type { Environment, Tenant } from '@rota/contracts';
import type Redis from 'ioredis';
import { RAIL_PROVIDER_IDS } from '../rails/rails';
import type { EligibilityRepository, ProviderAccess } from './eligibility.repository';

/** Why a provider's rails are eligible for a project. */
export type ConnectionState = 'connected' | 'not_required' | 'sandbox';

/**
 * The providers whose rails one project may use in one environment. Stored in
 * Redis as one small JSON value per org, project and environment, so routing
 * reads it with a single GET on every replica.
 */
export interface EligibilitySet {
  org_id: string;
  project_id: string;
  environment: Environment;
  /** Eligible provider → why. */
  providers: Record<string, ConnectionState>;
  /** Providers of the rail catalog that exist in the provider table when this set was computed. */
  catalog: string[];
  refreshed_at: string;
}

/** Pure: the set for a tenant from what the database says. */
export function computeEligibility(tenant: Tenant, access: ProviderAccess, now: Date): EligibilitySet {
  const connected = new Set(access.connected);
  const providers: Record<string, ConnectionState> = {};
  for (const p of access.catalog) {
    if (connected.has(p.id)) providers[p.id] = 'connected';
    else if (p.authType === 'none') providers[p.id] = 'not_required';
    // The shared sandbox: in `test`, providers that offer one need no connection of the project's own.
    else if (tenant.environment === 'test' && p.sandboxAvailable) providers[p.id] = 'sandbox';
  }
  return {
    org_id: tenant.org_id,
    project_id: tenant.project_id,
    environment: tenant.environment,
    providers,
    catalog: access.catalog.map((p) => p.id).sort(),
    refreshed_at: now.toISOString(),
  };
}

export function eligibilityKey(prefix: string, t: Tenant): string {
  return `${prefix}:router:elig:${t.org_id}:${t.project_id}:${t.environment}`;
}

/** How many times the set was (re)computed; read by operators and tests. */
export function eligibilityRefreshesKey(prefix: string, t: Tenant): string {
  return `${prefix}:router:elig-refreshes:${t.org_id}:${t.project_id}:${t.environment}`;
}

export interface EligibilityOptions {
  prefix: string;
  /** How long a stored set lives before it is recomputed on the next lookup. */
  ttlSeconds: number;
  now?: () => Date;
}

/** Reads, computes and refreshes eligibility sets. */
export class EligibilityService {
  private readonly now: () => Date;

  constructor(
    private readonly redis: Redis,
    private readonly repo: EligibilityRepository,
    private readonly options: EligibilityOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /** The stored set, computed and stored first when there is none (or it expired). */
  async get(tenant: Tenant): Promise<EligibilitySet> {
    const raw = await this.redis.get(eligibilityKey(this.options.prefix, tenant));
    if (raw) {
      try {
        return JSON.parse(raw) as EligibilitySet;
      } catch {
        // A value we cannot read is as good as none: recompute it.
      }
    }
    return this.refresh(tenant);
  }

  /** Recomputes the set from the database and stores it. Idempotent. */
  async refresh(tenant: Tenant): Promise<EligibilitySet> {
    const access = await this.repo.providerAccess(tenant.project_id, tenant.environment, RAIL_PROVIDER_IDS);
    const set = computeEligibility(tenant, access, this.now());
    const ttl = this.options.ttlSeconds;
    const counter = eligibilityRefreshesKey(this.options.prefix, tenant);
    await this.redis
      .multi()
      .set(eligibilityKey(this.options.prefix, tenant), JSON.stringify(set), 'EX', ttl)
      .incr(counter)
      .expire(counter, Math.max(ttl, 86_400))
      .exec();
    return set;
  }
}
