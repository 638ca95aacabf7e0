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

/** Generation counter: taken by each refresh before it reads the database. */
function generationKey(prefix: string, t: Tenant): string {
  return `${prefix}:router:elig-gen:${t.org_id}:${t.project_id}:${t.environment}`;
}

/** The generation of the stored set. */
function storedGenerationKey(prefix: string, t: Tenant): string {
  return `${prefix}:router:elig-stored-gen:${t.org_id}:${t.project_id}:${t.environment}`;
}

/**
 * KEYS: set, stored generation, refresh counter. ARGV: generation, set JSON,
 * set TTL, bookkeeping TTL. Stores the set unless a refresh that started
 * later already stored its own (and it is still there); answers null when
 * stored, else the newer set.
 */
const STORE_IF_NEWER = `
redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[3], ARGV[4])
local stored = tonumber(redis.call('GET', KEYS[2]) or '0')
if stored > tonumber(ARGV[1]) then
  local newer = redis.call('GET', KEYS[1])
  if newer then return newer end
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[4])
return false`;

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

  /**
   * Recomputes the set from the database and stores it. Idempotent.
   *
   * Two refreshes of one tenant may overlap (two connection writes, or a
   * lookup's recompute next to a write's refresh): the one that read the
   * database first could finish last and store a set that misses the other
   * write. So each takes a generation before it reads, and a set is stored
   * only if no refresh that started later has stored one; the later read saw
   * every write committed before the earlier one began. The loser answers
   * the newer stored set.
   */
  async refresh(tenant: Tenant): Promise<EligibilitySet> {
    const { prefix, ttlSeconds: ttl } = this.options;
    const bookkeepingTtl = Math.max(ttl, 86_400);
    const gen = generationKey(prefix, tenant);
    const taken = await this.redis.multi().incr(gen).expire(gen, bookkeepingTtl).exec();
    const generation = Number(taken?.[0]?.[1]);
    if (!Number.isSafeInteger(generation)) throw new Error('eligibility: no generation from Redis');
    const access = await this.repo.providerAccess(tenant.project_id, tenant.environment, RAIL_PROVIDER_IDS);
    const set = computeEligibility(tenant, access, this.now());
    const newer = (await this.redis.eval(
      STORE_IF_NEWER,
      3,
      eligibilityKey(prefix, tenant),
      storedGenerationKey(prefix, tenant),
      eligibilityRefreshesKey(prefix, tenant),
      generation,
      JSON.stringify(set),
      ttl,
      bookkeepingTtl,
    )) as string | null;
    return newer ? (JSON.parse(newer) as EligibilitySet) : set;
  }
}
