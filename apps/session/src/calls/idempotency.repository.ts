import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { IDEMPOTENCY_TTL_HOURS, type Tenant } from '@rota/contracts';
import { namedStatement, type SqlPool } from '@rota/db';
import { CONFIG, idempotencyMarkerKey, LOGGER, REDIS, SQL_POOL, type BaseConfig, type Logger } from '@rota/service-kit';
import type Redis from 'ioredis';

/**
 * Claims a key for a request, under a token of its own (`claim`). A new key,
 * an expired one, or one whose earlier request was abandoned before anything
 * was dispatched (still `running`, its deadline past, no call row, same
 * request) is taken over; anything else is left alone and read back by the
 * caller. A takeover changes the token, so the abandoned request, should it
 * wake up, finds the key no longer its own (see INSERT_PENDING) and sends
 * nothing. `fresh`: no request held the key before (a takeover is not fresh).
 */
const CLAIM = namedStatement(`
  INSERT INTO idempotency_keys (org_id, project_id, environment, key, request_hash, state, deadline, expires_at, claim)
  VALUES ($1::text, $2::text, $3::environment, $4::text, $5::text, 'running', $6::timestamptz, now() + make_interval(hours => ${IDEMPOTENCY_TTL_HOURS}), $7::text)
  ON CONFLICT (org_id, project_id, environment, key) DO UPDATE
    SET request_hash = EXCLUDED.request_hash, state = 'running', tool_call_id = NULL, response = NULL,
        deadline = EXCLUDED.deadline, created_at = now(), expires_at = EXCLUDED.expires_at, claim = EXCLUDED.claim
    WHERE idempotency_keys.expires_at <= now()
       OR (idempotency_keys.state = 'running' AND idempotency_keys.tool_call_id IS NULL
           AND idempotency_keys.deadline < now() AND idempotency_keys.request_hash = EXCLUDED.request_hash)
  RETURNING (xmax = 0) AS fresh`);

const READ = namedStatement(`
  SELECT request_hash, state, response FROM idempotency_keys
  WHERE org_id = $1 AND project_id = $2 AND environment = $3::environment AND key = $4`);

/** Only the claim that holds the key stores its answer; a request that lost it leaves the new owner's alone. */
const FINISH = namedStatement(`
  UPDATE idempotency_keys SET state = $5::text, response = $6::jsonb
  WHERE org_id = $1 AND project_id = $2 AND environment = $3::environment AND key = $4 AND claim = $7::text`);

/** Only a claim that dispatched nothing, and still holds the key, may be released. */
const RELEASE = namedStatement(`
  DELETE FROM idempotency_keys
  WHERE org_id = $1 AND project_id = $2 AND environment = $3::environment AND key = $4 AND state = 'running' AND tool_call_id IS NULL AND claim = $5::text`);

/** For a call that provably never reached anyone (its row says so): the key is free again. */
const FORGET = namedStatement(`
  DELETE FROM idempotency_keys WHERE org_id = $1 AND project_id = $2 AND environment = $3::environment AND key = $4 AND claim = $5::text`);

export type IdempotencyState = 'running' | 'done' | 'unknown';

/** What the caller's key becomes when the call ends: its stored answer, or given back (`forget`). */
export type KeyOutcome = { state: 'done' | 'unknown'; response: unknown } | { state: 'forget' };

export type Claim =
  | { claimed: true; key: ClaimedKey }
  | { claimed: false; requestHash: string; state: IdempotencyState; response: unknown };

/** A caller's key, before it is claimed. */
export interface KeyRef {
  tenant: Tenant;
  key: string;
}

/**
 * A key this request holds: `claim` is its token. Every later write of the
 * key (the pending row's link, the answer, a release) names it and lands
 * only while the key still carries it.
 */
export interface ClaimedKey extends KeyRef {
  claim: string;
  /** No request held the key before this one (a takeover is not fresh); the test-only pause point stalls fresh claims only. */
  fresh: boolean;
}

/** What a caller's key looks like to the statements that write call rows. */
export function callerKeyOf(
  key: ClaimedKey | null,
): { orgId: string; key: string; claim: string; fresh: boolean } | null {
  return key ? { orgId: key.tenant.org_id, key: key.key, claim: key.claim, fresh: key.fresh } : null;
}

/**
 * A marker lives a second less than its key row, so it never outlives the
 * row and lets a fresh request (one that will run) skip the rate limits.
 */
const MARKER_TTL_MS = IDEMPOTENCY_TTL_HOURS * 3_600_000 - 1000;

/**
 * Idempotency keys of execute (and proxy) calls, per tenant: one row per
 * key, in Postgres (never only in Redis), kept 24 hours. Beside each
 * claimed row, a Redis marker (see `idempotencyMarkerKey`) lets every
 * gateway replica tell a repeat from a new call with one `EXISTS`, before
 * rate limits; it is only a hint for counting, never the record of the key.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(
    @Inject(SQL_POOL) private readonly sql: SqlPool,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(CONFIG) private readonly config: BaseConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  private marker(ref: KeyRef): string {
    return idempotencyMarkerKey(this.config.ROTA_REDIS_PREFIX, ref.tenant, ref.key);
  }

  /**
   * Redis trouble costs only the exemption: a repeat without its marker is
   * counted like a new call, the safe direction; the key row decides the rest.
   */
  private async markerWrite(op: Promise<unknown>): Promise<void> {
    try {
      await op;
    } catch (err) {
      this.log.warn({ err }, 'could not write an idempotency marker; repeats of that key count toward rate limits');
    }
  }

  async claim(ref: KeyRef, requestHash: string, deadline: Date): Promise<Claim> {
    const { tenant, key } = ref;
    const args = [tenant.org_id, tenant.project_id, tenant.environment, key];
    const token = randomUUID();
    const claimed = await this.sql.query<{ fresh: boolean }>({
      ...CLAIM,
      values: [...args, requestHash, deadline, token],
    });
    if (claimed.rowCount === 1) {
      // Not awaited: the call need not wait for a counting hint. A repeat that
      // arrives before it lands is counted (the safe direction), and a later
      // DEL of this key goes out after it on the same connection.
      void this.markerWrite(this.redis.set(this.marker(ref), '1', 'PX', MARKER_TTL_MS));
      return { claimed: true, key: { ...ref, claim: token, fresh: claimed.rows[0]!.fresh } };
    }
    const row = await this.read(ref);
    // Expired and deleted between the two statements: claim again.
    if (!row) return this.claim(ref, requestHash, deadline);
    return { claimed: false, ...row };
  }

  /** The key as it stands, for a request that found it held by another (or lost its own claim). */
  async read(ref: KeyRef): Promise<{ requestHash: string; state: IdempotencyState; response: unknown } | null> {
    const { tenant, key } = ref;
    const read = await this.sql.query<{ request_hash: string; state: IdempotencyState; response: unknown }>({
      ...READ,
      values: [tenant.org_id, tenant.project_id, tenant.environment, key],
    });
    const row = read.rows[0];
    return row ? { requestHash: row.request_hash, state: row.state, response: row.response } : null;
  }

  /** Stores the answer of a call that wrote no call row (a refusal the caller gets again on a repeat). */
  async finish(ref: ClaimedKey, state: Exclude<IdempotencyState, 'running'>, response: unknown): Promise<void> {
    const { tenant, key } = ref;
    await this.sql.query({
      ...FINISH,
      values: [tenant.org_id, tenant.project_id, tenant.environment, key, state, JSON.stringify(response), ref.claim],
    });
  }

  /** Frees a key whose call provably never reached the provider, so a retry runs afresh. */
  async forget(ref: ClaimedKey): Promise<void> {
    const { tenant, key } = ref;
    // The marker goes first: between the two, a repeat is counted (safe), never a fresh call exempted.
    await this.markerWrite(this.redis.del(this.marker(ref)));
    await this.sql.query({ ...FORGET, values: [tenant.org_id, tenant.project_id, tenant.environment, key, ref.claim] });
  }

  /** The Redis marker only, for a key a completion statement gave back (see ProviderCallsRepository.complete). */
  async forgetMarker(ref: KeyRef): Promise<void> {
    await this.markerWrite(this.redis.del(this.marker(ref)));
  }

  /** Gives the key back after a refusal that ran nothing (404, 409, deadline), so a retry is checked afresh. */
  async release(ref: ClaimedKey): Promise<void> {
    const { tenant, key } = ref;
    // A released key runs afresh and must be counted: forget its marker first.
    await this.markerWrite(this.redis.del(this.marker(ref)));
    await this.sql.query({
      ...RELEASE,
      values: [tenant.org_id, tenant.project_id, tenant.environment, key, ref.claim],
    });
  }
}
