/**
 * Error codes that cross the service transport and reach HTTP clients.
 *
 * Every code has exactly one HTTP status here; the gateway never decides a
 * status anywhere else. Adding a code without a status is a type error.
 */
export const ERROR_STATUS = {
  /** The request body failed validation. Carries `issues`. */
  invalid_body: 400,
  /** The query string failed validation. Carries `issues`. */
  invalid_query: 400,
  /** `POST /v1/sessions` named servers that do not exist. Carries `unknown`. */
  unknown_servers: 400,
  /** Path C: the intent maps to no meta-tool. */
  intent_unmappable: 400,
  /** A tool's input is unusable (for example `codespar_discover` without `use_case`). */
  invalid_args: 400,
  /** Proxy: the server is not one of the session's providers (or names no provider). */
  server_not_in_session: 400,
  /** Proxy: the endpoint is not a path relative to the provider's base URL. */
  invalid_endpoint: 400,
  /** Proxy: a header the caller may not set (credentials, cookies, the provider's own auth headers). */
  forbidden_header: 400,
  /** The project has no connection for this provider in the key's environment. */
  connection_required: 409,
  /**
   * The catalog does not say how to call this provider in this environment,
   * or its address is not one Rota calls for it (a project's own provider at
   * a private, loopback, link-local or metadata address), or it was disabled.
   */
  provider_not_callable: 409,
  /** Proxy: the provider could not be reached and provably never received the request. */
  upstream_unreachable: 502,
  /** `Idempotency-Key` is not 1..255 printable ASCII characters. */
  invalid_idempotency_key: 400,
  /** Mocks: the session is not in the test environment. */
  mocks_test_only: 400,
  /** `Last-Event-ID` is not an event id of the log stream (`<ms>-<seq>`). */
  invalid_last_event_id: 400,
  /** OAuth2 callback: the `state` is missing, malformed, not signed by this deployment, expired or already used. Nothing was stored. */
  oauth_state_invalid: 400,
  /** OAuth2 callback: the provider sent an error instead of a code, or refused the code at its token endpoint. Nothing was stored. */
  oauth_authorization_failed: 400,
  /** OAuth2 callback: the provider's token endpoint could not be reached or gave no usable token. Nothing was stored. */
  oauth_exchange_failed: 502,
  /** Missing or unknown credential. Sent as the raw body `{"error":"unauthorized"}`. */
  unauthorized: 401,
  /** The key lacks the scope the route needs. */
  forbidden: 403,
  /** The org is over its plan's quota. Carries `plan`, `limit`, `used`. */
  quota_exceeded: 403,
  /**
   * A policy rule refused the call. Never rendered in the envelope: the body
   * is the policy refusal `{reason, ruleType, ruleId}` (plus `approval_id` and
   * `expires_at` when it opened an approval), with no `error` key, so clients
   * tell it from `quota_exceeded` by whether `error` is present.
   */
  policy_denied: 403,
  /** Route or resource does not exist (or belongs to another tenant). */
  not_found: 404,
  /** A provider id that names nothing. */
  unknown_server: 404,
  /** A session id that names nothing visible to the caller. */
  session_not_found: 404,
  /** A connection id that names nothing in the caller's project and environment. */
  connection_not_found: 404,
  /** The route exists but not for this method (GET and DELETE on the stateless MCP endpoints). */
  method_not_allowed: 405,
  /** An approval id that names nothing in the caller's project and environment. */
  approval_not_found: 404,
  /** A webhook id that names nothing the caller's key may see (its project and environment, or the deployment's for an operator key). */
  webhook_not_found: 404,
  /** A delivery id that names no delivery of this webhook. */
  webhook_delivery_not_found: 404,
  /** The webhook URL's host is, or resolves to, an address Rota does not call (private, loopback, link-local, metadata). */
  webhook_url_refused: 400,
  /** A unique constraint was violated. */
  conflict: 409,
  /**
   * A project import tried to create or change a provider whose id the global
   * catalog uses: ids belong to their owner. Carries `ids`.
   */
  provider_id_taken: 409,
  /** The approval was already approved, denied or used, or it expired. */
  approval_not_pending: 409,
  /** The session exists but is not active. Carries `status`. */
  session_not_active: 409,
  /** The `Idempotency-Key` was used for a different request in the last 24 hours. */
  idempotency_key_reused: 409,
  /** A request with this `Idempotency-Key` is still running; retry later with the same key. */
  request_in_progress: 409,
  /** The body exceeds the route's size limit. */
  payload_too_large: 413,
  /** A path segment is longer than the gateway reads (more than 100 characters in one `{id}`). */
  uri_too_long: 414,
  /** Unsupported media type for the body (also a body that is not JSON on a route that takes none, such as a DELETE). */
  unsupported_media_type: 415,
  /** Execute, test session with mocks: every mock of this raw tool is used up. Carries `tool`. */
  mocks_exhausted: 422,
  /** Execute, test session with mocks: none of them is for this raw tool. Carries `tool`. */
  tool_not_mocked: 422,
  /** Path C: nothing eligible for this combination. */
  eligibility_empty: 424,
  /** Path C: candidates exist but all move money the wrong way. */
  direction_blocked: 424,
  /** Too many requests (for example too many failed authentications from one address). Sent with `Retry-After`. */
  rate_limited: 429,
  /** The request's header section exceeds what the server reads. */
  headers_too_large: 431,
  /** Anything unexpected on our side; the body carries only the request id. */
  internal: 500,
  /** Path C: the natural-language extractor is disabled. */
  nl_unavailable: 501,
  /** Path C: the extractor ran and produced nothing usable. */
  nl_extraction_failed: 502,
  /**
   * The transport or a dependency is unreachable, and the request certainly
   * never ran: repeating it is safe.
   */
  unavailable: 503,
  /**
   * The request may have run (it reached a replica or was handed to Redis,
   * and no answer came back). Only on patterns that act (see `ACTING_PATTERNS`);
   * retry only with the same idempotency key.
   */
  outcome_unknown: 503,
  /** The policy rules could not be read; every call of a project that has rules is refused (fail closed). */
  policy_engine_error: 503,
  /**
   * The mocks store could not be read; nothing was sent. Never rendered in the
   * envelope: the body is `{code, message, request_id}` (a `code` key, no `error`).
   */
  mocks_engine_error: 503,
  /** A service did not answer within the call's deadline (never on patterns that act). */
  upstream_timeout: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, code);
}

/** The shape errors take when they cross the service transport. */
export interface WireError {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * The one error type services throw on purpose. `details` are merged into the
 * HTTP envelope as route-specific fields (for example `issues` or `unknown`).
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toWire(): WireError {
    return this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }

  static fromWire(w: WireError): AppError {
    return new AppError(isErrorCode(w.code) ? w.code : 'internal', w.message, w.details);
  }
}

/** Turns a ZodError's issues into the `issues` array of a 400 envelope. */
export function zodIssues(error: {
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; code: string }>;
}) {
  return error.issues.map((i) => ({
    path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    message: i.message,
    code: i.code,
  }));
}
