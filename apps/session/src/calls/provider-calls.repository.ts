import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Environment } from '@rota/contracts';
import {
  PROVIDER_FOR_CALL,
  toProviderForCall,
  type ProviderForCall,
  type ProviderForCallRow,
} from '@rota/catalog/repository';
import { namedStatement, newId, type SqlPool } from '@rota/db';
import { CONFIG, currentRequestId, maybeTenant, SQL_POOL } from '@rota/service-kit';
import type { SessionConfig } from '../config';
import { PAUSE_AFTER_CLAIM_PREFIX } from './idempotency';
import { LOG_ROW_COLUMNS, type CallLogRow } from './call-log';
import { CallLogPublisher } from './call-log.publisher';
import { maskParameters } from './redact';

/**
 * The first write of a provider call: the row, `pending`, before anything is
 * sent; with a caller's idempotency key, the key takes the row's id in the
 * same statement (one transaction), and only while the key still carries
 * this request's claim token and no call: the key is updated first (which
 * waits for, then re-reads, a concurrent takeover) and the row is inserted
 * only when that update found the key still this request's. A request whose
 * claim was taken over writes nothing (`written` false) and must send
 * nothing. Always durable: this row is what stands between a crash and a
 * charge nobody knows about.
 */
const INSERT_PENDING = namedStatement(`
  WITH owned AS (
    UPDATE idempotency_keys SET tool_call_id = $1::text
    WHERE $10::text IS NOT NULL AND org_id = $10::text AND project_id = $3::text AND environment = $4::environment AND key = $11::text
      AND claim = $16::text AND state = 'running' AND tool_call_id IS NULL
    RETURNING 1),
  call AS (
    INSERT INTO session_tool_calls (id, session_id, project_id, environment, tool, server, input, success, duration_ms, called_at, state, attempts, provider_idempotency_key, rail_id, attempt_log,
      org_id, user_id, connection_id, request_id)
    SELECT $1::text, $2::text, $3::text, $4::environment, $5::text, $6::text, $7::jsonb, false, 0, $8::timestamptz, 'pending', 0, $9::text, $12::text, $13::jsonb,
      COALESCE($14::text, (SELECT org_id FROM projects WHERE id = $3::text)), (SELECT user_id FROM sessions WHERE id = $2::text),
      (SELECT id FROM connections WHERE project_id = $3::text AND environment = $4::environment AND server_id = $6::text), $15::text
    WHERE $10::text IS NULL OR EXISTS (SELECT 1 FROM owned)
    RETURNING id)
  SELECT count(*)::int AS written FROM call`);

/**
 * The caller's key finished by the statement that completes its call (one
 * transaction, so no crash can leave a completed call behind a key still
 * `running`): `$K+0` org, `$K+1` key, `$K+2` claim token, `$K+3` the key's
 * new state (`done`, `unknown`, or `forget` to give the key back because
 * nothing reached the provider), `$K+4` the answer a repeat gets.
 */
const finishKey = (k: number) => `
  finished AS (
    UPDATE idempotency_keys SET state = $${k + 3}::text, response = $${k + 4}::jsonb
    WHERE $${k + 3}::text <> 'forget' AND org_id = $${k}::text AND key = $${k + 1}::text AND claim = $${k + 2}::text
      AND (project_id, environment) = (SELECT project_id, environment FROM done)),
  forgotten AS (
    DELETE FROM idempotency_keys
    WHERE $${k + 3}::text = 'forget' AND org_id = $${k}::text AND key = $${k + 1}::text AND claim = $${k + 2}::text
      AND (project_id, environment) = (SELECT project_id, environment FROM done))`;

/** Another rail is about to be tried: its attempt is on the row before it is sent. */
const APPEND_ATTEMPT = namedStatement(`
  UPDATE session_tool_calls SET server = $2::text, rail_id = $3::text, attempt_log = COALESCE(attempt_log, '[]'::jsonb) || $4::jsonb
  WHERE id = $1::text AND state = 'pending'`);

const COMPLETE_RAIL_SET = `
  UPDATE session_tool_calls
  SET state = $2::text, success = $3::boolean, output = $4::jsonb, error = $5::text, duration_ms = $6::int,
      upstream_status = $7::int, attempts = $8::int, bytes_in = $9::int, bytes_out = $10::int,
      server = $11::text, rail_id = $12::text, object_ref = $13::text, attempt_log = $14::jsonb,
      connection_id = (SELECT c.id FROM connections c WHERE c.project_id = session_tool_calls.project_id AND c.environment = session_tool_calls.environment AND c.server_id = $11::text)
  WHERE id = $1::text AND state = 'pending'`;

/** The end of a rail call: the rail that answered, the object it made, and how each attempt ended. */
const COMPLETE_RAIL = namedStatement(`${COMPLETE_RAIL_SET} RETURNING ${LOG_ROW_COLUMNS}`);

/** The same, and the caller's key finished in the same statement. */
const COMPLETE_RAIL_WITH_KEY = namedStatement(`
  WITH done AS (${COMPLETE_RAIL_SET} RETURNING ${LOG_ROW_COLUMNS}), ${finishKey(15)}
  SELECT * FROM done`);

/** The rail that made an object, for a follow-up on it (newest call first). */
const RAIL_FOR_OBJECT = namedStatement(`
  SELECT rail_id FROM session_tool_calls
  WHERE project_id = $1::text AND environment = $2::environment AND tool = $3::text AND object_ref = $4::text AND rail_id IS NOT NULL
  ORDER BY called_at DESC LIMIT 1`);

const COMPLETE_SET = `
  UPDATE session_tool_calls
  SET state = $2::text, success = $3::boolean, output = $4::jsonb, error = $5::text, duration_ms = $6::int,
      upstream_status = $7::int, attempts = $8::int, bytes_in = $9::int, bytes_out = $10::int
  WHERE id = $1::text AND state = 'pending'`;

const COMPLETE = namedStatement(`${COMPLETE_SET} RETURNING ${LOG_ROW_COLUMNS}`);

/** The same, and the caller's key finished in the same statement. */
const COMPLETE_WITH_KEY = namedStatement(`
  WITH done AS (${COMPLETE_SET} RETURNING ${LOG_ROW_COLUMNS}), ${finishKey(11)}
  SELECT * FROM done`);

/** A caller's idempotency key as this request holds it (see `ClaimedKey`). */
export interface CallerKey {
  orgId: string;
  key: string;
  /** The claim token: the key's writes land only while it still carries it. */
  claim: string;
  /** The first claim of the key (see `ClaimedKey.fresh`). */
  fresh?: boolean;
}

/** How a completion finishes the caller's key: the answer a repeat gets, or `forget` (nothing reached the provider). */
export type KeyFinish =
  { key: CallerKey; state: 'done' | 'unknown'; response: unknown } | { key: CallerKey; state: 'forget' };

const keyValues = (f: KeyFinish | undefined) =>
  f
    ? [f.key.orgId, f.key.key, f.key.claim, f.state, f.state === 'forget' ? null : JSON.stringify(f.response ?? null)]
    : [];

export interface PendingCall {
  sessionId: string | null;
  projectId: string;
  environment: Environment;
  tool: string;
  server: string;
  /** Already redacted. */
  input: unknown;
  calledAt: Date;
  providerIdempotencyKey: string;
  /** The caller's key, linked to the row in the same statement while this request still holds it. */
  callerKey: CallerKey | null;
  /** For an acting meta-tool: the rail of the first attempt, and that attempt. */
  rail?: { railId: string; attempt: RailAttemptRecord };
}

/** One attempt of a rail call as the row keeps it. */
export interface RailAttemptRecord {
  rail_id: string;
  provider_id: string;
  /** Key sent to the provider with this attempt. */
  provider_idempotency_key: string;
  /** How it ended; `sending` until then (a crash leaves it so). */
  outcome: 'sending' | 'answered' | 'not_sent' | 'not_processed' | 'outcome_unknown' | 'skipped';
  upstream_status?: number | null;
  /** Why it was skipped or not sent. */
  reason?: string;
  latency_ms?: number;
}

export interface CompletedRailCall extends CompletedCall {
  server: string;
  railId: string | null;
  objectRef: string | null;
  attemptLog: RailAttemptRecord[];
}

export interface CompletedCall {
  state: 'done' | 'outcome_unknown';
  success: boolean;
  output: unknown;
  error: string | null;
  durationMs: number;
  upstreamStatus: number | null;
  attempts: number;
  bytesIn: number | null;
  bytesOut: number | null;
}

/** What provider calls read from the catalog and write as call rows. */
@Injectable()
export class ProviderCallsRepository {
  constructor(
    @Inject(SQL_POOL) private readonly sql: SqlPool,
    @Inject(CONFIG) private readonly config: SessionConfig,
    @Optional() private readonly callLog?: CallLogPublisher,
  ) {}

  /** The provider (its own before a global one) and optionally one tool, as the project sees them. */
  async providerForCall(serverId: string, projectId: string, toolName?: string): Promise<ProviderForCall | null> {
    // Every provider call starts here: the catalog's statement, prepared on the plain pool.
    const r = await this.sql.query<ProviderForCallRow>({
      ...PROVIDER_FOR_CALL,
      values: [serverId, projectId, toolName ?? null],
    });
    return r.rows[0] ? toProviderForCall(r.rows[0]) : null;
  }

  newCallId(): string {
    return newId('tc');
  }

  /**
   * Writes the pending row; false when the caller's key was taken over by a
   * later request, in which case nothing was written and nothing may be sent.
   */
  async insertPending(id: string, call: PendingCall): Promise<boolean> {
    if (
      call.callerKey?.fresh &&
      this.config.ROTA_TEST_PAUSE_AFTER_CLAIM_MS > 0 &&
      call.callerKey.key.startsWith(PAUSE_AFTER_CLAIM_PREFIX)
    ) {
      // Test-only (the config refuses it in production): a stall between the claim and this write.
      await new Promise((r) => setTimeout(r, this.config.ROTA_TEST_PAUSE_AFTER_CLAIM_MS));
    }
    const r = await this.sql.query<{ written: number }>({
      ...INSERT_PENDING,
      values: [
        id,
        call.sessionId,
        call.projectId,
        call.environment,
        call.tool,
        call.server,
        // The service redacted secrets with the tool's schema; the call-log rules mask the rest.
        JSON.stringify(maskParameters(call.input)),
        call.calledAt,
        call.providerIdempotencyKey,
        call.callerKey?.orgId ?? null,
        call.callerKey?.key ?? null,
        call.rail?.railId ?? null,
        call.rail ? JSON.stringify([call.rail.attempt]) : null,
        maybeTenant()?.org_id ?? null,
        currentRequestId() ?? null,
        call.callerKey?.claim ?? null,
      ],
    });
    return r.rows[0]!.written === 1;
  }

  /** Appends the next attempt of a rail call before it is sent. */
  async appendAttempt(id: string, attempt: RailAttemptRecord): Promise<void> {
    await this.sql.query({
      ...APPEND_ATTEMPT,
      values: [id, attempt.provider_id, attempt.rail_id, JSON.stringify([attempt])],
    });
  }

  async completeRail(id: string, c: CompletedRailCall, key?: KeyFinish): Promise<void> {
    const done = await this.sql.query<CallLogRow>({
      ...(key ? COMPLETE_RAIL_WITH_KEY : COMPLETE_RAIL),
      values: [
        id,
        c.state,
        c.success,
        c.output === undefined ? null : JSON.stringify(c.output),
        c.error,
        c.durationMs,
        c.upstreamStatus,
        c.attempts,
        c.bytesIn,
        c.bytesOut,
        c.server,
        c.railId,
        c.objectRef,
        JSON.stringify(c.attemptLog),
        ...keyValues(key),
      ],
    });
    // The row is final now: one event on the call log stream (none when it was already finished).
    if (done.rows[0]) this.callLog?.published(done.rows[0]);
  }

  /** The rail that created `objectRef` with this tool in this project and environment, if Rota made it. */
  async railForObject(
    projectId: string,
    environment: Environment,
    tool: string,
    objectRef: string,
  ): Promise<string | null> {
    const r = await this.sql.query<{ rail_id: string }>({
      ...RAIL_FOR_OBJECT,
      values: [projectId, environment, tool, objectRef],
    });
    return r.rows[0]?.rail_id ?? null;
  }

  /** Completes a pending call and, with `key`, finishes the caller's key in the same statement. */
  async complete(id: string, c: CompletedCall, key?: KeyFinish): Promise<void> {
    const done = await this.sql.query<CallLogRow>({
      ...(key ? COMPLETE_WITH_KEY : COMPLETE),
      values: [
        id,
        c.state,
        c.success,
        c.output === undefined ? null : JSON.stringify(c.output),
        c.error,
        c.durationMs,
        c.upstreamStatus,
        c.attempts,
        c.bytesIn,
        c.bytesOut,
        ...keyValues(key),
      ],
    });
    // The row is final now: one event on the call log stream (none when it was already finished).
    if (done.rows[0]) this.callLog?.published(done.rows[0]);
  }
}
