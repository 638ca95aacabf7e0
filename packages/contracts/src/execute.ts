import { z } from 'zod';
import { ConnectionStatus } from './connections';
import { SCOPES } from './scopes';
import { Environment } from './tenant';

/**
 * `POST /v1/sessions/{id}/execute` and the MCP `tools/call` behind it.
 *
 * Refusals that happen before a tool runs (authentication, body, session,
 * quota, scope gate) are HTTP errors. Once a tool is looked up, the answer is
 * always HTTP 200 with an `ExecuteResult`: `success: false` carries the reason
 * in `error` and a machine-readable `data.code`.
 */

/** Built-in every session answers: lists the tools callable there. Not one of the 15 published meta-tools. */
export const LIST_TOOLS_TOOL = 'codespar_list_tools';

/** `data.code` values of a `success: false` result. */
export const EXECUTE_FAILURE_CODES = [
  /** No tool by that name is callable here. */
  'tool_not_registered',
  /** The MCP transports accept only the published meta-tools and `codespar_list_tools`. */
  'tool_not_published',
  /** The arguments cannot be coerced to the tool's input schema, or the tool refused them. */
  'invalid_args',
  /** The tool exists but has no executor yet. Nothing ran. */
  'not_implemented',
  /** `codespar_manage_connections` named a provider that does not exist. */
  'unknown_server',
  /** The project has no connection (credentials) for the tool's provider in this environment. Nothing was sent. */
  'connection_required',
  /** The catalog does not say how to call this provider or tool (a format v1 entry, no base URL for the environment). Nothing was sent. */
  'provider_not_callable',
  /** The provider answered with a non-2xx status; `status` and `body` carry its answer. */
  'upstream_error',
  /**
   * An acting meta-tool's provider refused the request (a 4xx other than 401, 403, 408 and 429):
   * `upstream_status`, a normalised `reason` (REFUSAL_REASONS) and the provider's message with
   * provider names, credentials and internal ids removed. Nothing was done; fix the input and call again.
   */
  'provider_refused',
  /** An acting meta-tool's provider refused the stored credentials (401 or 403): reconnect the provider. */
  'connection_invalid',
  /** The provider answered 2xx, but not in the shape its rail promised: the call may have taken effect. */
  'upstream_invalid',
  /** The provider could not be reached and provably never received the request (connection refused, DNS, TLS, circuit open). */
  'upstream_unreachable',
  /** The request reached (or may have reached) the provider and no complete answer came back: retry only with the same Idempotency-Key. */
  'outcome_unknown',
  /** Nothing in the rail catalog carries this meta-tool, action, method or currency. Nothing was sent. */
  'no_rail',
  /** `codespar_manage_connections`: the connect context is unknown here, expired or already used. Start again with `connect_start`. */
  'connect_context_invalid',
  /** `codespar_manage_connections` `connect_finish`: the user has not come back from the authorization page yet. */
  'connect_pending',
  /** `codespar_manage_connections` `connect_finish`: the provider refused the authorization or its token exchange failed. Start again with `connect_start`. */
  'connect_failed',
] as const;
export type ExecuteFailureCode = (typeof EXECUTE_FAILURE_CODES)[number];

/** Why a provider refused an acting meta-tool call (`data.reason` of `provider_refused`). */
export const REFUSAL_REASONS = [
  /** The amount is below the provider's minimum for this method. */
  'amount_below_minimum',
  /** The amount is above the provider's maximum for this method or account. */
  'amount_above_maximum',
  /** The payer's or recipient's tax or identity document was refused. */
  'invalid_document',
  /** The recipient (Pix key, account, CLABE, phone, address) was refused. */
  'invalid_recipient',
  /** The account has too little balance for the payment. */
  'insufficient_funds',
  /** The provider already has this operation. */
  'duplicate',
  /** The provider does not offer this method, currency or operation to the account. */
  'unsupported_method',
  /** Anything else; the message says what. */
  'other',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/**
 * Whether a call that failed with this code provably sent nothing that
 * could move money, so a per-user daily reservation taken for it is given
 * back. One entry per code: a new failure code does not compile until it
 * is classified here. `false` is the safe answer when in doubt (the amount
 * keeps counting against the user's day).
 */
export const EXECUTE_FAILURE_SENT_NOTHING = {
  tool_not_registered: true,
  tool_not_published: true,
  invalid_args: true,
  not_implemented: true,
  unknown_server: true,
  connection_required: true,
  // Refused before a row is written (record: false), which releases on its own.
  provider_not_callable: false,
  upstream_error: false,
  // A refusal, a refused credential or an unreadable 2xx answered a request that was sent: kept counting, as upstream_error was.
  provider_refused: false,
  connection_invalid: false,
  upstream_invalid: false,
  upstream_unreachable: true,
  outcome_unknown: false,
  no_rail: true,
  connect_context_invalid: false,
  connect_pending: false,
  connect_failed: false,
} as const satisfies Record<ExecuteFailureCode, boolean>;

/** Whether an outcome's `data.code` says nothing was sent. */
export function failureSentNothing(data: unknown): boolean {
  const code = (data as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' &&
    Object.hasOwn(EXECUTE_FAILURE_SENT_NOTHING, code) &&
    EXECUTE_FAILURE_SENT_NOTHING[code as ExecuteFailureCode]
  );
}

/** `POST /v1/sessions/{id}/execute` body. */
export const ExecuteRequest = z
  .object({
    /** A meta-tool name, `codespar_list_tools`, or a catalog tool's callable name `server/tool`. */
    tool: z.string().min(1).max(200),
    /** Tool arguments. Strings are coerced to numbers and booleans where the tool's schema asks for them. */
    input: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type ExecuteRequest = z.infer<typeof ExecuteRequest>;

/** The execute route takes no query parameters; any is `400 invalid_query`. */
export const ExecuteQuery = z.object({}).strict();
export type ExecuteQuery = z.infer<typeof ExecuteQuery>;

/** The 200 body of execute, successful or not. */
export const ExecuteResult = z.object({
  success: z.boolean(),
  /** The tool's output; on failure `{code, message, ...}`. */
  data: z.unknown(),
  /** Null on success; a short reason otherwise. */
  error: z.string().nullable(),
  /** Milliseconds the tool took. */
  duration: z.number().nonnegative(),
  /** The provider that served the call; null for tools that reach no provider. */
  server: z.string().nullable(),
  tool: z.string(),
  /** Id of the `session_tool_calls` row; null when the refusal wrote nothing. */
  tool_call_id: z.string().nullable(),
  called_at: z.string(),
});
export type ExecuteResult = z.infer<typeof ExecuteResult>;

/**
 * What `session.execute` answers: the result, and whether it is the stored
 * answer of an earlier request with the same idempotency key (the gateway
 * then adds `Idempotent-Replayed: true`).
 */
export const ExecuteReply = z.object({ result: ExecuteResult, replayed: z.boolean() });
export type ExecuteReply = z.infer<typeof ExecuteReply>;

/**
 * `session.execute` payload. `session_id: null` runs in the project context
 * of the `POST /mcp` transport: no session row, and the callable providers are
 * the ones the project has connected in the key's environment. The tenant is
 * the request's, never a field here.
 */
export const ExecuteCommand = z
  .object({
    scopes: z.array(z.enum(SCOPES)),
    session_id: z.string().min(1).max(200).nullable(),
    /** `mcp` callers may reach only published tools. */
    via: z.enum(['http', 'mcp']),
    tool: z.string().min(1).max(200),
    input: z.record(z.string(), z.unknown()),
    /** The caller's `Idempotency-Key` (MCP: `params._meta.idempotency_key`), already checked against {@link IDEMPOTENCY_KEY}. */
    idempotency_key: z.string().optional(),
    /** The calling key's id: an approval the call opens cannot be decided by it. */
    key_id: z.string().min(1).optional(),
    /** `Rota-Approval-Id` (MCP: `params._meta.approval_id`): an approved approval this call spends. */
    approval_id: z.string().min(1).max(200).optional(),
  })
  .strict();
export type ExecuteCommand = z.infer<typeof ExecuteCommand>;

/** An idempotency key: 1..255 printable ASCII characters (space allowed inside). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;
/** How long a key remembers its request and answer. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** One entry of `codespar_list_tools`. */
export const ListedTool = z.object({
  name: z.string(),
  description: z.string(),
  /** True for the published meta-tools and the built-in itself. */
  meta_tool: z.boolean(),
  /** The provider of a catalog tool; null for meta-tools. */
  server_id: z.string().nullable(),
});
export type ListedTool = z.infer<typeof ListedTool>;

/** `data` of `codespar_list_tools`. */
export const ListToolsData = z.object({
  tools: z.array(ListedTool),
  servers: z.array(z.object({ server_id: z.string(), connection_status: ConnectionStatus })),
});
export type ListToolsData = z.infer<typeof ListToolsData>;

/** One step of `codespar_get_started`, in the order to do them. */
export const GetStartedStep = z.object({
  step: z.number().int().positive(),
  id: z.string(),
  title: z.string(),
  done: z.boolean(),
  /** The tool that performs or checks this step, when there is one. */
  tool: z.string().nullable(),
  detail: z.string(),
});
export type GetStartedStep = z.infer<typeof GetStartedStep>;

/** `data` of `codespar_get_started`. */
export const GetStartedData = z.object({
  environment: Environment,
  connected: z.array(z.string()),
  steps: z.array(GetStartedStep),
  /** Meta-tools worth trying first given what is connected, best first. */
  suggested_tools: z.array(z.object({ tool: z.string(), because: z.string() })),
});
export type GetStartedData = z.infer<typeof GetStartedData>;

/** A provider's connection state as `codespar_manage_connections` reports it. */
export const ProviderConnection = z.object({
  server_id: z.string(),
  name: z.string(),
  category: z.string(),
  auth_type: z.string(),
  status: ConnectionStatus,
  connected_at: z.string().nullable(),
});
export type ProviderConnection = z.infer<typeof ProviderConnection>;

/** `data` of `codespar_manage_connections` actions `list` and `status`. */
export const ManageConnectionsData = z.object({
  action: z.enum(['list', 'status']),
  environment: Environment,
  connections: z.array(ProviderConnection),
});
export type ManageConnectionsData = z.infer<typeof ManageConnectionsData>;
