import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Environment } from '@rota/contracts';
import { namedStatement, newId, Prisma, type PrismaClient, type SqlPool } from '@rota/db';
import { currentRequestId, maybeTenant, PRISMA, SQL_POOL } from '@rota/service-kit';
import { CallLogPublisher } from './call-log.publisher';
import { maskParameters } from './redact';

/**
 * Who made the call, for the call log: the org (the request's, else the
 * project's), the session's end user and the request id. `$A`, `$R`: the
 * parameter numbers of the org and the request id.
 */
const callerColumns = (a: number, r: number) =>
  `COALESCE($${a}::text, (SELECT org_id FROM projects WHERE id = $3::text)), (SELECT user_id FROM sessions WHERE id = $2::text), $${r}::text`;

const RECORD_CALL = namedStatement(`
  WITH commit_mode AS MATERIALIZED (SELECT set_config('synchronous_commit', $13::text, true))
  INSERT INTO session_tool_calls (id, session_id, project_id, environment, tool, server, input, output, success, error, duration_ms, called_at, org_id, user_id, request_id)
  SELECT $1::text, $2::text, $3::text, $4::environment, $5::text, $6::text, $7::jsonb, $8::jsonb, $9::boolean, $10::text, $11::int, $12::timestamptz, ${callerColumns(14, 15)}
  FROM commit_mode RETURNING org_id, user_id`);

/**
 * The same row, and in the same statement (one transaction) the caller's
 * idempotency key takes the call's id and its answer, while the key still
 * carries this request's claim token: there is never a call row without its
 * key, nor a finished key without its row.
 */
const RECORD_CALL_WITH_KEY = namedStatement(`
  WITH commit_mode AS MATERIALIZED (SELECT set_config('synchronous_commit', $13::text, true)),
  call AS (
    INSERT INTO session_tool_calls (id, session_id, project_id, environment, tool, server, input, output, success, error, duration_ms, called_at, org_id, user_id, request_id)
    SELECT $1::text, $2::text, $3::text, $4::environment, $5::text, $6::text, $7::jsonb, $8::jsonb, $9::boolean, $10::text, $11::int, $12::timestamptz, ${callerColumns(18, 19)}
    FROM commit_mode RETURNING id, org_id, user_id),
  finished AS (
    UPDATE idempotency_keys SET tool_call_id = (SELECT id FROM call), state = $16::text, response = $17::jsonb
    WHERE org_id = $14::text AND project_id = $3::text AND environment = $4::environment AND key = $15::text AND claim = $20::text)
  SELECT org_id, user_id FROM call`);

export interface OrgUsage {
  plan: string;
  quotaMonthlyCalls: number | null;
  used: number;
}

export interface ToolCallInsert {
  sessionId: string | null;
  projectId: string;
  environment: Environment;
  tool: string;
  server: string | null;
  input: unknown;
  output: unknown;
  success: boolean;
  error: string | null;
  durationMs: number;
  calledAt: Date;
  /**
   * Whether the row must be on disk before the caller hears back. Rows of
   * calls that moved no money are committed asynchronously: visible at once,
   * but the last fraction of a second of them could be lost if Postgres
   * itself crashed. Saves a WAL flush on every read-only call.
   */
  durable: boolean;
  /** The row's id, when the caller needs it before the write (`tc_…`); minted otherwise. */
  id?: string;
  /** The caller's idempotency key, finished with this row in one transaction. */
  idempotency?: { orgId: string; key: string; claim: string; state: 'done' | 'unknown'; response: unknown };
}

/**
 * The `session_tool_calls` rows of calls that reach no provider (a provider
 * call writes its own, see ProviderCallsRepository), and the org's monthly
 * usage counted from them.
 */
@Injectable()
export class ToolCallsRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(SQL_POOL) private readonly sql: SqlPool,
    @Optional() private readonly callLog?: CallLogPublisher,
  ) {}

  /** The org's plan, its quota override and the calls its projects made this calendar month (UTC). */
  async usage(orgId: string): Promise<OrgUsage | null> {
    const rows = await this.prisma.$queryRaw<
      Array<{ plan: string; quota_monthly_calls: number | null; used: bigint }>
    >(Prisma.sql`
      SELECT o.plan, o.quota_monthly_calls,
             (SELECT count(*) FROM session_tool_calls t JOIN projects p ON p.id = t.project_id
               WHERE p.org_id = o.id AND t.called_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS used
      FROM orgs o WHERE o.id = ${orgId}`);
    const r = rows[0];
    return r ? { plan: r.plan, quotaMonthlyCalls: r.quota_monthly_calls, used: Number(r.used) } : null;
  }

  /** A fresh call-row id (`tc_…`), for a result that names its row before the row is written. */
  newCallId(): string {
    return newId('tc');
  }

  /**
   * Records one dispatched call, its parameters masked (docs/logs.md),
   * and appends it to the call log stream; returns its id (`tc_…`).
   */
  async recordCall(call: ToolCallInsert): Promise<string> {
    const id = call.id ?? newId('tc');
    const output = call.output === null || call.output === undefined ? null : JSON.stringify(call.output);
    const input = maskParameters(call.input);
    const requestId = currentRequestId() ?? null;
    // A named statement (planned once per connection); the commit mode is
    // local to the statement's own implicit transaction.
    const key = call.idempotency;
    const written = await this.sql.query<{ org_id: string | null; user_id: string | null }>({
      ...(key ? RECORD_CALL_WITH_KEY : RECORD_CALL),
      values: [
        id,
        call.sessionId,
        call.projectId,
        call.environment,
        call.tool,
        call.server,
        JSON.stringify(input),
        output,
        call.success,
        call.error,
        call.durationMs,
        call.calledAt,
        call.durable ? 'on' : 'off',
        ...(key ? [key.orgId, key.key, key.state, JSON.stringify(key.response)] : []),
        maybeTenant()?.org_id ?? null,
        requestId,
        ...(key ? [key.claim] : []),
      ],
    });
    const who = written.rows[0];
    const code = (call.output as { code?: unknown } | null | undefined)?.code;
    this.callLog?.published({
      id,
      called_at: call.calledAt,
      request_id: requestId,
      org_id: who?.org_id ?? null,
      project_id: call.projectId,
      environment: call.environment,
      session_id: call.sessionId,
      user_id: who?.user_id ?? null,
      connection_id: null,
      tool: call.tool,
      server: call.server,
      input,
      state: 'done',
      success: call.success,
      error: call.error,
      error_code: !call.success && typeof code === 'string' ? code : null,
      upstream_status: null,
      duration_ms: call.durationMs,
      bytes_in: null,
      bytes_out: null,
      attempts: 0,
      rail_id: null,
      attempt_log: null,
    });
    return id;
  }
}
