import { IDEMPOTENCY_TTL_HOURS } from '@rota/contracts';
import { Prisma, type PrismaClient } from '@rota/db';

/** SQL the maintenance jobs run against sessions. */
export class SessionsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Expires active sessions idle for longer than `idleMinutes`; returns how many. */
  expireIdle(idleMinutes: number): Promise<number> {
    return this.prisma.$executeRaw(Prisma.sql`
      UPDATE sessions SET status = 'expired'
      WHERE status = 'active' AND last_active_at < now() - make_interval(mins => ${idleMinutes})`);
  }

  /**
   * Provider calls still `pending` `afterSeconds` after they started (the
   * service stopped between writing them down and completing them), oldest
   * first, with what a lookup by idempotency key needs.
   */
  stalePending(afterSeconds: number, limit: number): Promise<StaleCall[]> {
    return this.prisma.$queryRaw<StaleCall[]>(Prisma.sql`
      SELECT c.id, c.tool, c.server, c.state, c.called_at AS "calledAt", c.provider_idempotency_key AS "providerIdempotencyKey", c.rail_id AS "railId",
             COALESCE(c.org_id, p.org_id) AS "orgId", c.project_id AS "projectId", c.environment::text AS environment
      FROM session_tool_calls c LEFT JOIN projects p ON p.id = c.project_id
      WHERE c.state = 'pending' AND c.called_at < now() - make_interval(secs => ${afterSeconds})
      ORDER BY c.called_at LIMIT ${limit}`);
  }

  /**
   * Calls that ended `outcome_unknown` `afterSeconds` ago or more, within
   * their key's lifetime, with a provider idempotency key and never looked
   * up (`output.reconciled` absent), oldest first. Rail calls wait for their
   * rail's lookup.
   */
  unknownNotLookedUp(afterSeconds: number, limit: number): Promise<StaleCall[]> {
    return this.prisma.$queryRaw<StaleCall[]>(Prisma.sql`
      SELECT c.id, c.tool, c.server, c.state, c.called_at AS "calledAt", c.provider_idempotency_key AS "providerIdempotencyKey", c.rail_id AS "railId",
             COALESCE(c.org_id, p.org_id) AS "orgId", c.project_id AS "projectId", c.environment::text AS environment
      FROM session_tool_calls c LEFT JOIN projects p ON p.id = c.project_id
      WHERE c.state = 'outcome_unknown' AND c.rail_id IS NULL AND c.provider_idempotency_key IS NOT NULL
        AND c.called_at < now() - make_interval(secs => ${afterSeconds}) AND c.called_at > now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
        AND NOT (COALESCE(c.output, '{}'::jsonb) ? 'reconciled')
      ORDER BY c.called_at LIMIT ${limit}`);
  }

  /** Keeps on an unknown call what its lookup found (nothing it could settle), so it is not asked again. */
  async recordLookup(call: StaleCall, lookup: LookupRecord): Promise<void> {
    await this.prisma.$executeRaw(Prisma.sql`
      UPDATE session_tool_calls SET output = COALESCE(output, '{}'::jsonb) || jsonb_build_object('reconciled', ${JSON.stringify(lookup)}::jsonb)
      WHERE id = ${call.id} AND state = 'outcome_unknown'`);
  }

  /**
   * The provider holds what the call made: the row becomes `done` with the
   * provider's answer, and the caller's idempotency key answers a retry with
   * it (`keyResponse`, in the shape its route answers). Both in one
   * statement, and only while the row is still pending or unknown. Returns whether it was.
   */
  async markFound(
    call: StaleCall,
    found: { status: number; body: unknown },
    keyResponse: unknown,
    lookup: LookupRecord,
  ): Promise<boolean> {
    const ok = found.status >= 200 && found.status < 300;
    const output = { status: found.status, body: found.body, reconciled: lookup };
    const rows = await this.prisma.$queryRaw<Array<{ n: bigint }>>(Prisma.sql`
      WITH done AS (
        UPDATE session_tool_calls
        SET state = 'done', success = ${ok}, upstream_status = ${found.status}, output = ${JSON.stringify(output)}::jsonb,
            error = ${ok ? null : `The provider answered ${found.status}.`}
        WHERE id = ${call.id} AND state IN ('pending', 'outcome_unknown')
        RETURNING id),
      keys AS (
        UPDATE idempotency_keys k SET state = 'done', response = ${JSON.stringify(keyResponse)}::jsonb
        FROM done d WHERE k.tool_call_id = d.id AND k.state IN ('running', 'unknown')
        RETURNING 1)
      SELECT count(*) AS n FROM done`);
    return Number(rows[0]?.n ?? 0) === 1;
  }

  /**
   * Nobody can tell what became of the call: the row becomes
   * `outcome_unknown` (with what the lookup found, or why there was none),
   * and its caller's idempotency key `unknown` with an execute answer saying
   * so. The provider may or may not have acted; the row stays for an
   * operator. Returns whether the row was still pending.
   */
  async markUnknown(call: StaleCall, lookup: LookupRecord): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<Array<{ n: bigint }>>(Prisma.sql`
      WITH stale AS (
        UPDATE session_tool_calls
        SET state = 'outcome_unknown',
            error = 'The call was sent, or about to be, when the service stopped; its outcome is unknown.',
            output = jsonb_build_object('code', 'outcome_unknown', 'reconciled', ${JSON.stringify(lookup)}::jsonb)
        WHERE id = ${call.id} AND state = 'pending'
        RETURNING id, tool, server, called_at),
      keys AS (
        UPDATE idempotency_keys k
        SET state = 'unknown',
            response = jsonb_build_object(
              'success', false,
              'data', jsonb_build_object('code', 'outcome_unknown', 'message', 'The call may have reached the provider; its outcome is unknown.'),
              'error', 'The call may have reached the provider; its outcome is unknown.',
              'duration', 0, 'server', s.server, 'tool', s.tool, 'tool_call_id', s.id,
              'called_at', to_char(s.called_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        FROM stale s
        WHERE k.tool_call_id = s.id AND k.state = 'running'
        RETURNING 1)
      SELECT count(*) AS n FROM stale`);
    return Number(rows[0]?.n ?? 0) === 1;
  }

  /**
   * Keys still `running` whose call is no longer `pending`: what a crash
   * between a call's completion and its key's answer left behind when the
   * two were separate writes (or any other path that left one so). Each
   * takes the answer its route gives a repeat, rebuilt from the call row:
   * the proxy's shape for a proxy call, execute's for any other; `unknown`
   * when the call's outcome is. Returns how many keys were finished.
   */
  async finishStuckKeys(limit: number): Promise<number> {
    const rows = await this.prisma.$queryRaw<Array<{ n: bigint }>>(Prisma.sql`
      WITH stuck AS (
        SELECT k.org_id, k.project_id, k.environment, k.key, c.id, c.tool, c.server, c.rail_id, c.state, c.success, c.output, c.error, c.duration_ms, c.called_at
        FROM idempotency_keys k JOIN session_tool_calls c ON c.id = k.tool_call_id
        WHERE k.state = 'running' AND c.state <> 'pending' AND k.expires_at > now()
        ORDER BY k.created_at LIMIT ${limit}
        FOR UPDATE OF k SKIP LOCKED),
      finished AS (
        UPDATE idempotency_keys k
        SET state = CASE WHEN s.state = 'outcome_unknown' THEN 'unknown' ELSE 'done' END,
            response = CASE
              WHEN s.tool = 'proxy' AND s.state = 'outcome_unknown' THEN NULL
              WHEN s.tool = 'proxy' THEN jsonb_build_object(
                'status', COALESCE(s.output->'status', to_jsonb(0)), 'data', s.output->'body', 'headers', '{}'::jsonb,
                'duration', s.duration_ms, 'proxy_call_id', s.id)
              ELSE jsonb_build_object(
                'success', s.success, 'data', s.output, 'error', s.error, 'duration', s.duration_ms,
                'server', CASE WHEN s.rail_id IS NULL THEN s.server END, 'tool', s.tool, 'tool_call_id', s.id,
                'called_at', to_char(s.called_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
            END
        FROM stuck s
        WHERE (k.org_id, k.project_id, k.environment, k.key) = (s.org_id, s.project_id, s.environment, s.key) AND k.state = 'running'
        RETURNING 1)
      SELECT count(*) AS n FROM finished`);
    return Number(rows[0]?.n ?? 0);
  }
}

/** A provider call left `pending`. */
export interface StaleCall {
  id: string;
  tool: string;
  /** `pending`, or `outcome_unknown` for a call that ended unknown and is looked up. */
  state: 'pending' | 'outcome_unknown';
  server: string | null;
  calledAt: Date;
  providerIdempotencyKey: string | null;
  railId: string | null;
  orgId: string | null;
  projectId: string | null;
  environment: 'live' | 'test' | null;
}

/** What the sweep did to learn a call's outcome, kept on the row (`output.reconciled`). */
export interface LookupRecord {
  /** Whether the provider was asked. */
  looked_up: boolean;
  /** `found`, `not_found`, `failed`, or `not_supported` when it was not asked. */
  outcome: 'found' | 'not_found' | 'failed' | 'not_supported';
  /** Why it was not asked, or why the question failed. */
  reason?: string;
  at: string;
}
