import type { Environment, LogEntry, LogOutcome } from '@rota/contracts';
import { maskParameters } from './redact';

/**
 * One call record as `GET /v1/logs` and the log stream show it, from a
 * `session_tool_calls` row. The list query and the writes that finish a
 * call (`RETURNING`) select the same columns, so a listed record and a
 * streamed one are built by the same function.
 */

/** The columns of a call record, for `SELECT` and `RETURNING`. */
export const LOG_ROW_COLUMNS = `id, called_at, request_id, org_id, project_id, environment, session_id, user_id, connection_id, tool, server, input,
  state, success, error, CASE WHEN success THEN NULL ELSE output->>'code' END AS error_code, upstream_status, duration_ms, bytes_in, bytes_out,
  attempts, rail_id, attempt_log`;

/** A row as Postgres answers `LOG_ROW_COLUMNS`. */
export interface CallLogRow {
  id: string;
  called_at: Date;
  request_id: string | null;
  org_id: string | null;
  project_id: string;
  environment: Environment;
  session_id: string | null;
  user_id: string | null;
  connection_id: string | null;
  tool: string;
  server: string | null;
  input: unknown;
  state: string;
  success: boolean;
  error: string | null;
  error_code: string | null;
  upstream_status: number | null;
  duration_ms: number;
  bytes_in: number | null;
  bytes_out: number | null;
  attempts: number;
  rail_id: string | null;
  attempt_log: unknown;
}

export function outcomeOf(state: string, success: boolean): LogOutcome {
  if (state === 'pending') return 'pending';
  if (state === 'outcome_unknown') return 'outcome_unknown';
  return success ? 'success' : 'error';
}

/** `METHOD /path` of a proxy call, from its recorded input. */
function endpointOf(tool: string, input: unknown): string | null {
  if (tool !== 'proxy' || input === null || typeof input !== 'object') return null;
  const { method, endpoint } = input as { method?: unknown; endpoint?: unknown };
  return typeof endpoint === 'string' ? `${typeof method === 'string' ? method : 'GET'} ${endpoint}` : null;
}

export function toLogEntry(row: CallLogRow): LogEntry {
  const outcome = outcomeOf(row.state, row.success);
  const upstreamFailed = row.upstream_status !== null && (row.upstream_status < 200 || row.upstream_status > 299);
  let errorCode: string | null = null;
  if (outcome === 'error') errorCode = row.error_code ?? (upstreamFailed ? 'upstream_error' : null);
  else if (outcome === 'outcome_unknown') errorCode = 'outcome_unknown';
  return {
    id: row.id,
    called_at: row.called_at.toISOString(),
    request_id: row.request_id,
    org_id: row.org_id,
    project_id: row.project_id,
    environment: row.environment,
    session_id: row.session_id,
    user_id: row.user_id,
    connection_id: row.connection_id,
    tool: row.tool,
    server: row.server,
    endpoint: endpointOf(row.tool, row.input),
    // Written masked; masked again on the way out for rows older than the rules (idempotent).
    parameters: maskParameters(row.input),
    outcome,
    error_code: errorCode,
    error: row.error,
    upstream_status: row.upstream_status,
    latency_ms: Math.max(0, Math.round(row.duration_ms)),
    bytes_in: row.bytes_in,
    bytes_out: row.bytes_out,
    attempts: row.attempts,
    retries: Math.max(0, row.attempts - 1),
    rail_id: row.rail_id,
    attempt_log: Array.isArray(row.attempt_log) ? (row.attempt_log as Record<string, unknown>[]) : null,
  };
}
