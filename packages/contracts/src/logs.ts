import { z } from 'zod';
import { Environment } from './tenant';

/**
 * Call logs: one record per call that reached dispatch (execute, proxy and
 * MCP `tools/call`), read with `GET /v1/logs` and followed live with
 * `GET /v1/logs/stream` (Server-Sent Events). Parameters are masked before
 * they are written (docs/logs.md lists the rules).
 */

/**
 * How a call ended. `pending`: a provider call written down and not yet
 * answered (never streamed); `outcome_unknown`: it may have reached the
 * provider and no answer came back.
 */
export const LOG_OUTCOMES = ['success', 'error', 'outcome_unknown', 'pending'] as const;
export const LogOutcome = z.enum(LOG_OUTCOMES);
export type LogOutcome = z.infer<typeof LogOutcome>;

/** One call record, as listed and as streamed. */
export const LogEntry = z
  .object({
    id: z.string().describe('The call id (`tc_…`), the same as `tool_call_id` and `proxy_call_id` in answers.'),
    called_at: z.string().describe('When the call started (ISO 8601, milliseconds).'),
    request_id: z.string().nullable().describe('The `X-Request-Id` of the HTTP request that made the call.'),
    org_id: z.string().nullable().describe('The account the project belongs to.'),
    project_id: z.string(),
    environment: Environment,
    session_id: z.string().nullable().describe('Null for calls made over `POST /mcp` in the project context.'),
    user_id: z.string().nullable().describe('The session’s end user, when the session names one.'),
    connection_id: z.string().nullable().describe('The connection whose credentials the call used (provider calls).'),
    tool: z.string().describe('The tool called: a meta-tool, `server/tool`, or `proxy` for `proxyExecute`.'),
    server: z.string().nullable().describe('The provider, when the call names one.'),
    endpoint: z.string().nullable().describe('For `proxy`: the method and the path sent, e.g. `POST /v3/payments`.'),
    parameters: z
      .unknown()
      .describe(
        'The arguments, with credentials and personal numbers masked. In the stream, over 4 KiB they become `{omitted: true, bytes}`.',
      ),
    outcome: LogOutcome,
    error_code: z
      .string()
      .nullable()
      .describe('Why a call that did not succeed failed (`upstream_error`, `not_implemented`, …).'),
    error: z.string().nullable().describe('Readable explanation of a failure.'),
    upstream_status: z.number().int().nullable().describe('The provider’s HTTP status, when a provider answered.'),
    latency_ms: z
      .number()
      .int()
      .nonnegative()
      .describe('Upstream latency for provider calls; the whole dispatch otherwise.'),
    bytes_in: z
      .number()
      .int()
      .nullable()
      .describe('Bytes received from the provider; null when no provider was reached.'),
    bytes_out: z.number().int().nullable().describe('Bytes sent to the provider; null when no provider was reached.'),
    attempts: z.number().int().nonnegative().describe('Provider requests sent for this call (0 when none).'),
    retries: z.number().int().nonnegative().describe('Attempts after the first.'),
    rail_id: z
      .string()
      .nullable()
      .describe('For an acting meta-tool: the rail that answered (`<provider>.<method>.<direction>`).'),
    attempt_log: z
      .array(z.record(z.string(), z.unknown()))
      .nullable()
      .describe(
        'For an acting meta-tool: every rail attempt in order, with its provider, outcome, upstream status and latency.',
      ),
  })
  .meta({ id: 'LogEntry' });
export type LogEntry = z.infer<typeof LogEntry>;

/** Opaque paging token from `next_cursor`. */
const Cursor = z.string().min(1).max(512);
const Name = z.string().min(1).max(200);
const Instant = z.iso.datetime({ offset: true });

/** Query of `GET /v1/logs`. */
export const LogsQuery = z
  .object({
    session_id: Name.optional().describe('Only calls of this session.'),
    tool: Name.optional().describe('Only calls of this tool (exact name, e.g. `asaas/create_payment`, `proxy`).'),
    server: Name.optional().describe('Only calls to this provider.'),
    outcome: LogOutcome.optional().describe('Only calls that ended this way.'),
    from: Instant.optional().describe('Calls made at or after this instant (ISO 8601 with an offset).'),
    to: Instant.optional().describe('Calls made before this instant.'),
    limit: z.coerce.number().int().min(1).max(200).default(50).describe('Page size (1 to 200, default 50).'),
    cursor: Cursor.optional().describe('`next_cursor` of the previous page.'),
  })
  .strict()
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), {
    message: '`from` must be before `to`',
    path: ['from'],
  });
export type LogsQuery = z.infer<typeof LogsQuery>;

/** `session.logs.list` payload. */
export const LogsListCommand = z.object({ query: LogsQuery }).strict();
export type LogsListCommand = z.infer<typeof LogsListCommand>;

/** 200 body of `GET /v1/logs`: newest first. */
export const LogList = z
  .object({
    logs: z.array(LogEntry),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next (older) page; null on the last page.'),
  })
  .meta({ id: 'LogList' });
export type LogList = z.infer<typeof LogList>;

/** Query of `GET /v1/logs/stream`. */
export const LogStreamQuery = z
  .object({ session_id: Name.optional().describe('Only calls of this session.') })
  .strict();
export type LogStreamQuery = z.infer<typeof LogStreamQuery>;

/** A stream entry id (`<ms>-<seq>`), which is also the SSE event id. */
export const LOG_EVENT_ID = /^\d{1,20}-\d{1,20}$/;

/** The Redis Stream of finished calls of one deployment: `<ROTA_REDIS_PREFIX>:logs:calls`. */
export const logStreamKey = (prefix: string) => `${prefix}:logs:calls`;

/**
 * Fields of one stream entry: the tenant and session to filter on without
 * parsing, and the entry itself as JSON.
 */
export const LOG_STREAM_FIELDS = { project: 'p', environment: 'e', session: 's', data: 'd' } as const;

/** Streamed parameters larger than this are replaced by their size. */
export const LOG_EVENT_PARAMETERS_MAX_BYTES = 4096;
