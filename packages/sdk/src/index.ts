/**
 * `@rota/sdk`: the TypeScript client of a Rota gateway.
 *
 * Named methods cover the three ways of finding a tool (path A
 * `tools.search`, path B `session.discover`, path C `metaTools.discover`),
 * sessions and their calls; `api` reaches every other route of the OpenAPI
 * document with types generated from it. The only runtime dependency is
 * openapi-fetch; everything else is the platform's `fetch`.
 *
 * Every refusal the gateway sends becomes a `RotaError` whose `code` is the
 * machine-readable reason, except on `session.execute`, which answers a
 * refusal as data so that an agent loop reads it like any tool failure.
 */
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { components, paths } from './generated/rota-api.js';

export type { components, paths } from './generated/rota-api.js';

type Schemas = components['schemas'];

/** Version of this package, sent in `User-Agent`. */
export const SDK_VERSION = '0.1.0';
/**
 * Version of the Rota HTTP API this package was written against (the
 * OpenAPI document's `info.version`, `GET /openapi.json`), sent in
 * `User-Agent`.
 */
export const API_VERSION = '0.2.0';

export { signWebhook, verifyWebhook, WebhookVerificationError, WEBHOOK_TOLERANCE_S } from './webhooks.js';

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/**
 * A refusal or failure of a call. `code` is always set:
 * - the envelope's `error` (`{"error": "session_not_found", ...}`);
 * - `unauthorized` for the raw 401;
 * - `policy_denied` for a policy refusal (`{reason, ruleType, ruleId}`), whose
 *   fields are kept on `policy`;
 * - the `code` of a `{"code": ...}` body (a tool's refusal);
 * - `network_error` or `timeout` (status 0) when no answer arrived, and
 *   `http_<status>` for a body that says nothing usable.
 */
export class RotaError extends Error {
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  /** Machine-readable reason; see the class comment for where it comes from. */
  readonly code: string;
  /** The gateway's request id (body `request_id` or `X-Request-Id`), for support and logs. */
  readonly requestId: string | null;
  /** The parsed response body (or its text when it was not JSON). */
  readonly body: unknown;
  /** Present when `code` is `policy_denied`: which rule refused and why. */
  readonly policy?: PolicyDenial;
  /**
   * Set when `session.execute` got no answer (status 0): the key the call was
   * sent with. The call may have run; send it again with this key and Rota
   * answers the stored result instead of running it twice.
   */
  readonly idempotencyKey?: string;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    requestId?: string | null;
    body?: unknown;
    policy?: PolicyDenial;
    idempotencyKey?: string;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'RotaError';
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.body = init.body;
    if (init.policy) this.policy = init.policy;
    if (init.idempotencyKey !== undefined) this.idempotencyKey = init.idempotencyKey;
  }
}

/** The fields of a policy refusal, as the gateway sends them. */
export interface PolicyDenial {
  reason: string;
  ruleType: string | null;
  ruleId: string | null;
  /** Set when the refusal opened a human approval: retry the same call with the header `Rota-Approval-Id` once it is approved. */
  approval_id?: string;
  /** When that approval lapses (ISO 8601). */
  expires_at?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/**
 * Builds the `RotaError` for a non-2xx answer. Exported so other clients of
 * the gateway (the CLI) read refusals exactly the way the SDK does.
 */
export function errorFromResponse(status: number, body: unknown, headers?: Headers | null): RotaError {
  const requestId = (isRecord(body) ? str(body.request_id) : undefined) ?? headers?.get('x-request-id') ?? null;
  if (isRecord(body)) {
    const error = str(body.error);
    if (error) {
      const message =
        str(body.message) ??
        str(body.detail) ??
        (error === 'unauthorized' ? 'The API key is missing, malformed, unknown or revoked.' : error);
      return new RotaError({ status, code: error, message, requestId, body });
    }
    const reason = str(body.reason);
    if (reason && ('ruleType' in body || 'ruleId' in body)) {
      const policy: PolicyDenial = { reason, ruleType: str(body.ruleType) ?? null, ruleId: str(body.ruleId) ?? null };
      const approval = str(body.approval_id);
      if (approval) policy.approval_id = approval;
      const expires = str(body.expires_at);
      if (expires) policy.expires_at = expires;
      return new RotaError({ status, code: 'policy_denied', message: reason, requestId, body, policy });
    }
    const code = str(body.code);
    if (code) return new RotaError({ status, code, message: str(body.message) ?? code, requestId, body });
  }
  if (status === 401)
    return new RotaError({
      status,
      code: 'unauthorized',
      message: 'The API key is missing, malformed, unknown or revoked.',
      requestId,
      body,
    });
  return new RotaError({
    status,
    code: `http_${status}`,
    message: typeof body === 'string' && body.length > 0 && body.length < 300 ? body : `HTTP ${status}`,
    requestId,
    body,
  });
}

/* ------------------------------------------------------------------ */
/* Transport                                                           */
/* ------------------------------------------------------------------ */

/** Options of `new Rota(...)`. */
export interface RotaOptions {
  /** A project key (`csk_live_…` / `csk_test_…`) or an operator key. */
  apiKey: string;
  /** Where the gateway answers; default `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** Deadline of one HTTP attempt in milliseconds; default 30000. */
  timeoutMs?: number;
  /**
   * Extra attempts after an answer that says a retry is safe; default 2.
   * `session.execute` retries only a 503 `unavailable` or `outcome_unknown`,
   * with the same idempotency key; reads (`GET`) also retry a lost connection.
   */
  retries?: number;
  /** A `fetch` to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch;
}

interface RawResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** The 503 codes after which a request with the same idempotency key may safely be sent again. */
const RETRYABLE_503 = new Set(['unavailable', 'outcome_unknown']);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Exponential backoff with jitter; a `Retry-After` in seconds wins when it is shorter than a minute. */
function backoff(attempt: number, headers?: Headers | null): number {
  const after = Number(headers?.get('retry-after'));
  if (Number.isFinite(after) && after > 0 && after <= 60) return after * 1000;
  const base = 200 * 2 ** attempt;
  return base + Math.floor(Math.random() * base);
}

/**
 * Whether a read may be sent again: it never reached a handler (a 503
 * `unavailable`) or no answer came over a lost or refused connection. A
 * timeout is not retried: the read may be slow, and repeating it would only
 * double the wait.
 */
function retryableRead(error: RotaError): boolean {
  return error.code === 'network_error' || (error.status === 503 && error.code === 'unavailable');
}

function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

class Transport {
  readonly baseUrl: string;
  readonly headers: Record<string, string>;

  constructor(readonly opts: Required<Omit<RotaOptions, 'fetch'>> & { fetch: typeof fetch }) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.headers = {
      authorization: `Bearer ${opts.apiKey}`,
      'user-agent': `rota-sdk/${SDK_VERSION} (api ${API_VERSION})`,
    };
  }

  /** `fetch` under the per-attempt deadline; a timeout or a refused connection becomes a `RotaError` with status 0. */
  async fetch(input: Request | string, init: RequestInit = {}): Promise<Response> {
    try {
      return await this.opts.fetch(input, { ...init, signal: AbortSignal.timeout(this.opts.timeoutMs) });
    } catch (err) {
      const timedOut = (err as { name?: string } | null)?.name === 'TimeoutError';
      const url = typeof input === 'string' ? input : input.url;
      const cause = (err as { cause?: { code?: string; message?: string } } | null)?.cause;
      const detail = timedOut
        ? `no answer within ${this.opts.timeoutMs} ms`
        : (cause?.code ?? cause?.message ?? (err as Error).message);
      throw new RotaError({
        status: 0,
        code: timedOut ? 'timeout' : 'network_error',
        message: `${new URL(url).origin} could not be reached: ${detail}`,
        cause: err,
      });
    }
  }

  /** One attempt: JSON in, parsed body out, whatever the status. */
  async once(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
    const h: Record<string, string> = { ...this.headers, accept: 'application/json', ...headers };
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await this.fetch(`${this.baseUrl}${path}`, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: kept as text for the error message.
      }
    } else parsed = undefined;
    return { status: res.status, headers: res.headers, body: parsed };
  }

  /**
   * A request that throws `RotaError` on any non-2xx. Reads (`GET`) are
   * retried after a 503 `unavailable` or a lost connection, since they
   * change nothing.
   */
  async json<T>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let res: RawResponse;
      try {
        res = await this.once(method, path, body, headers);
      } catch (err) {
        if (method === 'GET' && attempt < this.opts.retries && err instanceof RotaError && retryableRead(err)) {
          await sleep(backoff(attempt));
          continue;
        }
        throw err;
      }
      if (res.status >= 200 && res.status < 300) return res.body as T;
      const error = errorFromResponse(res.status, res.body, res.headers);
      if (method === 'GET' && retryableRead(error) && attempt < this.opts.retries) {
        await sleep(backoff(attempt, res.headers));
        continue;
      }
      throw error;
    }
  }
}

/* ------------------------------------------------------------------ */
/* Typed REST client                                                   */
/* ------------------------------------------------------------------ */

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
type PathsWithMethod<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: unknown } ? P : never;
}[keyof paths];
type RequiredKeysOf<T> = {
  [K in keyof T]: Record<never, never> extends Pick<T, K> ? never : K;
}[keyof T] extends infer R
  ? R extends undefined
    ? never
    : R
  : never;
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
type Operation<P extends keyof paths, M extends HttpMethod> = paths[P][M] & Record<string | number, any>;
/** The 2xx body of an operation. */
export type ApiData<P extends keyof paths, M extends HttpMethod, Init = object> = NonNullable<
  FetchResponse<Operation<P, M>, Init, `${string}/${string}`>['data']
>;

/** A typed call that answers the 2xx body or throws `RotaError`. */
export type ApiMethod<M extends HttpMethod> = <
  P extends PathsWithMethod<M>,
  Init extends MaybeOptionalInit<paths[P], M>,
>(
  url: P,
  ...init: InitParam<Init>
) => Promise<ApiData<P, M, Init>>;

/**
 * Every route of the OpenAPI document, typed from it. `get`, `post`, `put`,
 * `patch` and `delete` answer the 2xx body or throw a `RotaError`; `get` is
 * retried like the named reads (after a 503 `unavailable` or a lost
 * connection, up to `retries` times), the others never. `raw` is the
 * underlying openapi-fetch client (`{data, error, response}`, never throws on
 * a status, never retries).
 */
export interface RotaApi {
  /** `GET path`: the 2xx body, or throws `RotaError`. Retried after a 503 `unavailable` or a lost connection. */
  get: ApiMethod<'get'>;
  /** `POST path` with `{body}`: the 2xx body, or throws `RotaError`. */
  post: ApiMethod<'post'>;
  /** `PUT path`: the 2xx body, or throws `RotaError`. */
  put: ApiMethod<'put'>;
  /** `PATCH path`: the 2xx body, or throws `RotaError`. */
  patch: ApiMethod<'patch'>;
  /** `DELETE path`: the 2xx body, or throws `RotaError`. */
  delete: ApiMethod<'delete'>;
  /** The openapi-fetch client itself, for callers who want the response object. */
  raw: Client<paths>;
}

function createApi(t: Transport): RotaApi {
  const raw = createClient<paths>({
    baseUrl: t.baseUrl,
    headers: t.headers,
    fetch: (req: Request) => t.fetch(req),
  });
  type Loose = (
    url: string,
    init?: Record<string, unknown>,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  // Only reads are sent again: they change nothing, so a second copy is harmless.
  const call = (m: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE') =>
    (async (url: string, init?: Record<string, unknown>) => {
      const retries = m === 'GET' ? t.opts.retries : 0;
      for (let attempt = 0; ; attempt++) {
        let r: Awaited<ReturnType<Loose>>;
        try {
          r = await (raw[m] as unknown as Loose)(url, init);
        } catch (err) {
          if (attempt < retries && err instanceof RotaError && retryableRead(err)) {
            await sleep(backoff(attempt));
            continue;
          }
          throw err;
        }
        if (r.response.ok) return r.data;
        const error = errorFromResponse(r.response.status, r.error, r.response.headers);
        if (attempt < retries && retryableRead(error)) {
          await sleep(backoff(attempt, r.response.headers));
          continue;
        }
        throw error;
      }
    }) as never;
  return { get: call('GET'), post: call('POST'), put: call('PUT'), patch: call('PATCH'), delete: call('DELETE'), raw };
}

/* ------------------------------------------------------------------ */
/* Shapes                                                              */
/* ------------------------------------------------------------------ */

/** `POST /v1/tools/search` body; `limit` defaults on the server. */
export type ToolSearchRequest = Omit<Schemas['ToolSearchRequest'], 'limit'> &
  Partial<Pick<Schemas['ToolSearchRequest'], 'limit'>>;
/** `POST /v1/tools/search` answer: up to 5 meta-tools for an intent. */
export type ToolSearchResponse = Schemas['ToolSearchResponse'];
/** `/meta-tools.json`: the 15 published meta-tools. */
export type MetaToolsDocument = Schemas['MetaToolsDocument'];
/** `POST /v1/meta-tools/discover` body: `{intent}` or `{description}`. */
export type RouteRequest = paths['/v1/meta-tools/discover']['post']['requestBody']['content']['application/json'];
/** `POST /v1/meta-tools/discover` answer: the recommended rail and its alternatives. */
export type RouteResponse = paths['/v1/meta-tools/discover']['post']['responses'][200]['content']['application/json'];
/** `POST /v1/sessions` answer. */
export type SessionCreated = paths['/v1/sessions']['post']['responses'][201]['content']['application/json'];
/** `POST /v1/keys` body: scopes, and optionally `expires_in` (seconds, default 3600), `session_id`, `user_id`, `name`. */
export type KeyCreateRequest = Omit<
  paths['/v1/keys']['post']['requestBody']['content']['application/json'],
  'expires_in'
> & { expires_in?: number };
/** `POST /v1/keys` answer: the key (shown once) and its details. */
export type KeyCreated = paths['/v1/keys']['post']['responses'][201]['content']['application/json'];
/** `GET /v1/sessions/{id}` answer. */
export type SessionView = paths['/v1/sessions/{id}']['get']['responses'][200]['content']['application/json'];
/** A mock of a test session (`POST /v1/sessions/{id}/mocks` answer). */
export type MockView = paths['/v1/sessions/{id}/mocks']['post']['responses'][201]['content']['application/json'];
/** `GET /v1/sessions/{id}/mocks` answer. */
export type MockList = paths['/v1/sessions/{id}/mocks']['get']['responses'][200]['content']['application/json'];
/** `DELETE /v1/sessions/{id}` answer; closing again answers the first `closed_at`. */
export type SessionClosed = paths['/v1/sessions/{id}']['delete']['responses'][200]['content']['application/json'];
/** `GET /v1/logs` answer: one page of call records, newest first. */
export type LogList = Schemas['LogList'];
/** One call record. */
export type LogEntry = Schemas['LogEntry'];
/** `GET /v1/logs` filters. */
export type LogQuery = NonNullable<paths['/v1/logs']['get']['parameters']['query']>;
/** `GET /v1/policy` answer. */
export type PolicyView = Schemas['PolicyView'];
/** `GET /v1/usage` answer. */
export type Usage = Schemas['Usage'];
/** `GET /v1/health` answer. */
export type HealthReport = Schemas['HealthReport'];

/** One event of `GET /v1/logs/stream`: a finished call (`call`), or a `gap` after a resume past the retention window. */
export type LogStreamEvent =
  | { event: 'call'; id: string; data: LogEntry }
  | { event: 'gap'; id: null; data: { after: string; oldest_id: string } };

/** The body of `POST /v1/sessions/{id}/execute`. */
export type ExecuteResult = Schemas['ExecuteResult'];

/** Meta-tools `codespar_discover` may point to (every published one but itself). */
export type DiscoverMetaToolName =
  | 'codespar_get_started'
  | 'codespar_manage_connections'
  | 'codespar_checkout'
  | 'codespar_pay'
  | 'codespar_wallet'
  | 'codespar_shop'
  | 'codespar_charge'
  | 'codespar_invoice'
  | 'codespar_ship'
  | 'codespar_notify'
  | 'codespar_crypto_pay'
  | 'codespar_kyc'
  | 'codespar_ledger'
  | 'codespar_issue';

/** One catalog tool that fits a use case. */
export interface DiscoverMatch {
  server_id: string;
  tool_name: string;
  /** The callable name, `server/tool`, for `session.execute`. */
  tool: string;
  description: string;
  http_method: string | null;
  endpoint_template: string | null;
  /** Distance from the query embedding; null when the vector pass did not score this tool. */
  cosine_distance: number | null;
  /** pg_trgm score (0 to 1.7); null when no part reached the threshold. */
  trigram_similarity: number | null;
  connection_status: 'connected' | 'disconnected' | 'not_required';
  known_pitfalls: string[];
  recommended_plan: string[];
}

/** What `session.discover` answers (the `codespar_discover` result). */
export interface DiscoverResult {
  use_case: string;
  search_strategy: 'embedding' | 'trigram' | 'empty';
  /** The channels that ran (`vector` only when the use case was embedded). */
  channels?: Array<'lexical' | 'vector'>;
  recommended: DiscoverMatch | null;
  /** Present exactly when `recommended` is null. */
  recommended_reason?: 'native_meta_tool' | 'blocked_in_test' | 'no_match';
  related: DiscoverMatch[];
  next_steps: string[];
  /** Native meta-tools that cover the use case, best first. Prefer these when present. */
  meta_tools: DiscoverMetaToolName[];
}

/**
 * What `session.execute` answers, success or not. On a 200 it is the tool's
 * result; on a refusal (4xx, 5xx) it is synthesised with `success: false`,
 * the refusal's `code`, and the body in `data`.
 */
export interface ExecuteResponse extends ExecuteResult {
  /** HTTP status of the answer. */
  status: number;
  /** Null on success; the reason otherwise (the envelope's `error`, or the tool's `data.code`). */
  code: string | null;
  requestId: string | null;
  /** The stored answer of an earlier request with the same idempotency key. */
  replayed: boolean;
  /** The key the call was sent with (fresh unless given). */
  idempotencyKey: string;
}

/** `session.proxyExecute` request: a raw call to a connected provider, auth injected server-side. */
export interface ProxyRequest {
  /** Provider id, e.g. `asaas`. */
  server: string;
  /** Path on the provider's API, e.g. `/v3/payments`. */
  endpoint: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** JSON body (ignored for GET). */
  body?: unknown;
  /** Query string. */
  params?: Record<string, string | number | boolean>;
  /** Request metadata, never auth. */
  headers?: Record<string, string>;
}

/** `session.proxyExecute` answer: the provider's own status and body, whatever it was. */
export interface ProxyResult {
  /** The provider's HTTP status: a 401 from the provider is a successful proxy call. */
  status: number;
  /** Parsed JSON, or text when the provider did not answer JSON. */
  data: unknown;
  /** Response headers, lowercased. */
  headers: Record<string, string>;
  /** Provider call duration in milliseconds. */
  duration: number;
  /** Log cross-reference id. */
  proxy_call_id?: string;
}

/** How an MCP client reaches a session. */
export interface McpConnection {
  url: string;
  headers: { Authorization: string };
}

/* ------------------------------------------------------------------ */
/* Sessions                                                            */
/* ------------------------------------------------------------------ */

/** A session opened by `rota.sessions.create` or read by `rota.sessions.get`. */
export class Session {
  /** Session id (`ses_…`). */
  readonly id: string;
  readonly userId: string | null;
  readonly servers: string[];
  /** The session as the gateway described it when this object was made. */
  readonly data: SessionCreated | SessionView;
  /** URL and headers for an MCP client bound to this session. */
  readonly mcp: McpConnection;

  constructor(
    private readonly t: Transport,
    data: SessionCreated | SessionView,
  ) {
    this.id = data.id;
    this.userId = data.user_id;
    this.servers = data.servers;
    this.data = data;
    this.mcp = { url: data.mcp.url, headers: { Authorization: t.headers.authorization! } };
  }

  /**
   * Runs a tool in the session. Never throws on an HTTP status: a refusal
   * (closed session, unknown tool, policy, quota, rate limit) answers
   * `success: false` with its `code`, `status` and `requestId`. Always sends
   * an `Idempotency-Key` (a fresh UUID unless given). After a 503
   * `unavailable` (the call never ran) or `outcome_unknown` (it may have run)
   * it sends the same request again with the same key, up to `retries` times,
   * so a call that did run is answered from the stored result rather than run
   * twice; so does a connection that failed before any answer
   * (`network_error`). No other answer is retried. When no answer arrives at
   * all after the last attempt, or an attempt times out, it throws a
   * `RotaError` with status 0 carrying the `idempotencyKey`: the call may
   * still be running, so retrying at once would only meet
   * `request_in_progress`; retry later with that key.
   *
   * `approvalId` sends `Rota-Approval-Id`: after a policy refusal opened an
   * approval (`code: "policy_denied"`, `data.approval_id`) and someone
   * approved it, the very same call sent with it passes once.
   */
  async execute(
    tool: string,
    input?: Record<string, unknown>,
    opts: { idempotencyKey?: string; approvalId?: string } = {},
  ): Promise<ExecuteResponse> {
    const idempotencyKey = opts.idempotencyKey ?? newIdempotencyKey();
    const path = `/v1/sessions/${encodeURIComponent(this.id)}/execute`;
    const body = input === undefined ? { tool } : { tool, input };
    const headers: Record<string, string> = { 'idempotency-key': idempotencyKey };
    if (opts.approvalId !== undefined) headers['rota-approval-id'] = opts.approvalId;
    for (let attempt = 0; ; attempt++) {
      let res: RawResponse;
      try {
        res = await this.t.once('POST', path, body, headers);
      } catch (err) {
        // A connection that failed before any answer is sent again with the same key; a timeout is not (the call may still run).
        if (err instanceof RotaError && err.code === 'network_error' && attempt < this.t.opts.retries) {
          await sleep(backoff(attempt));
          continue;
        }
        if (err instanceof RotaError)
          throw new RotaError({
            status: err.status,
            code: err.code,
            message: err.message,
            idempotencyKey,
            cause: err.cause,
          });
        throw err;
      }
      if (res.status === 200 && isRecord(res.body)) {
        const result = res.body as unknown as ExecuteResult;
        const dataCode = isRecord(result.data) ? str(result.data.code) : undefined;
        return {
          ...result,
          status: 200,
          code: result.success ? null : (dataCode ?? 'tool_failed'),
          requestId: res.headers.get('x-request-id'),
          replayed: res.headers.get('idempotent-replayed') === 'true',
          idempotencyKey,
        };
      }
      const error = errorFromResponse(res.status, res.body, res.headers);
      if (res.status === 503 && RETRYABLE_503.has(error.code) && attempt < this.t.opts.retries) {
        await sleep(backoff(attempt, res.headers));
        continue;
      }
      return {
        success: false,
        data: res.body ?? null,
        error: error.message,
        duration: 0,
        server: null,
        tool,
        tool_call_id: null,
        called_at: new Date().toISOString(),
        status: res.status,
        code: error.code,
        requestId: error.requestId,
        replayed: false,
        idempotencyKey,
      };
    }
  }

  /**
   * Path B: finds the catalog tools (and the native meta-tools) that fit a use
   * case, biased toward providers this session can reach. Runs the
   * `codespar_discover` meta-tool; throws `RotaError` when it does not succeed.
   */
  async discover(
    useCase: string,
    opts: { limit?: number; country?: string; category?: string } = {},
  ): Promise<DiscoverResult> {
    const input: Record<string, unknown> = { use_case: useCase };
    for (const k of ['limit', 'country', 'category'] as const) if (opts[k] !== undefined) input[k] = opts[k];
    const r = await this.execute('codespar_discover', input);
    if (!r.success) {
      const message =
        r.status === 200 && isRecord(r.data)
          ? (str(r.data.message) ?? r.error ?? 'discover failed')
          : (r.error ?? 'discover failed');
      throw new RotaError({
        status: r.status,
        code: r.code ?? 'tool_failed',
        message,
        requestId: r.requestId,
        body: r.data,
      });
    }
    return r.data as DiscoverResult;
  }

  /**
   * Sends a raw HTTP call to one of the session's providers, with its
   * credentials injected by the gateway. The provider's own answer, any
   * status, comes back as data (`result.status`); Rota's refusals (session
   * not active, provider not connected, policy, rate limit) throw `RotaError`.
   */
  async proxyExecute(request: ProxyRequest, opts: { idempotencyKey?: string } = {}): Promise<ProxyResult> {
    const headers: Record<string, string> = opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {};
    return this.t.json<ProxyResult>('POST', `/v1/sessions/${encodeURIComponent(this.id)}/proxy`, request, headers);
  }

  /** Reads the session's current state (status, expiry, `closed_at`). Throws `RotaError`. */
  async get(): Promise<SessionView> {
    return this.t.json<SessionView>('GET', `/v1/sessions/${encodeURIComponent(this.id)}`);
  }

  /**
   * `POST /v1/sessions/{id}/mocks`, test sessions only: the next `times`
   * calls of `tool` (a raw `server/tool` or an acting meta-tool such as
   * `codespar_charge`) answer `success: true` with `response` as `data`,
   * without reaching a provider. Throws `RotaError` (`mocks_test_only` on a
   * live session).
   */
  async mock(tool: string, response: unknown, times = 1): Promise<MockView> {
    return this.t.json<MockView>('POST', `/v1/sessions/${encodeURIComponent(this.id)}/mocks`, {
      tool,
      response,
      times,
    });
  }

  /** `GET /v1/sessions/{id}/mocks`: the session's mocks, oldest first, with the answers each has left. Throws `RotaError`. */
  async mocks(): Promise<MockList> {
    return this.t.json<MockList>('GET', `/v1/sessions/${encodeURIComponent(this.id)}/mocks`);
  }

  /** Closes the session. Idempotent: closing again answers the first `closed_at`. Throws `RotaError`. */
  async close(): Promise<SessionClosed> {
    return this.t.json<SessionClosed>('DELETE', `/v1/sessions/${encodeURIComponent(this.id)}`);
  }
}

/**
 * Reads `GET /v1/logs/stream` as server-sent events. The per-attempt
 * deadline covers only the wait for the answer's headers: the stream itself
 * lasts as long as the gateway keeps it open (a heartbeat every 15 s).
 */
async function* streamLogs(
  t: Transport,
  o: { sessionId?: string; lastEventId?: string; signal?: AbortSignal },
): AsyncGenerator<LogStreamEvent> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(o.signal?.reason);
  if (o.signal?.aborted) onAbort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const connect = setTimeout(() => controller.abort(new Error('timeout')), t.opts.timeoutMs);
  const headers: Record<string, string> = { ...t.headers, accept: 'text/event-stream' };
  if (o.lastEventId) headers['last-event-id'] = o.lastEventId;
  const url = `${t.baseUrl}/v1/logs/stream${o.sessionId ? `?session_id=${encodeURIComponent(o.sessionId)}` : ''}`;
  try {
    let res: Response;
    try {
      res = await t.opts.fetch(url, { headers, signal: controller.signal });
    } catch (err) {
      if (o.signal?.aborted) return;
      const timedOut = controller.signal.aborted;
      throw new RotaError({
        status: 0,
        code: timedOut ? 'timeout' : 'network_error',
        message: `${t.baseUrl} could not be reached`,
        cause: err,
      });
    } finally {
      clearTimeout(connect);
    }
    if (!res.ok || !res.body) {
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      throw errorFromResponse(res.status, body, res.headers);
    }
    const decoder = new TextDecoder();
    let buffer = '';
    let event = { id: null as string | null, name: 'message', data: [] as string[] };
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, '');
          buffer = buffer.slice(nl + 1);
          if (line === '') {
            if (event.data.length && (event.name === 'call' || event.name === 'gap'))
              yield {
                event: event.name,
                id: event.name === 'call' ? event.id : null,
                data: JSON.parse(event.data.join('\n')),
              } as LogStreamEvent;
            event = { id: null, name: 'message', data: [] };
          } else if (!line.startsWith(':')) {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'data') event.data.push(value);
            else if (field === 'event') event.name = value;
            else if (field === 'id') event.id = value;
          }
        }
      }
    } catch (err) {
      if (o.signal?.aborted) return;
      throw new RotaError({ status: 0, code: 'network_error', message: 'the log stream was cut', cause: err });
    }
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

/* ------------------------------------------------------------------ */
/* Client                                                              */
/* ------------------------------------------------------------------ */

/**
 * The Rota client.
 *
 * ```ts
 * const rota = new Rota({ apiKey: process.env.ROTA_API_KEY!, baseUrl: 'http://127.0.0.1:3000' });
 * const session = await rota.sessions.create('user_123', { servers: ['asaas'] });
 * const found = await session.discover('send a whatsapp message', { limit: 5 });
 * ```
 */
export class Rota {
  /** Every route of the OpenAPI document, typed. */
  readonly api: RotaApi;
  /** Path A: which meta-tool fits an intent. */
  readonly tools: {
    /** `POST /v1/tools/search`: up to 5 meta-tools for an intent. Throws `RotaError`. */
    search(body: ToolSearchRequest): Promise<ToolSearchResponse>;
  };
  /** The 15 published meta-tools, and path C. */
  readonly metaTools: {
    /**
     * `POST /v1/meta-tools/discover` (path C): the provider rail for an
     * operation (`{intent}`) or a description in words (`{description}`).
     * Throws `RotaError` (for example 424 `eligibility_empty`).
     */
    discover(body: RouteRequest): Promise<RouteResponse>;
    /** `GET /v1/meta-tools.json`: the published definitions. Throws `RotaError`. */
    list(): Promise<MetaToolsDocument>;
  };
  /** Short-lived keys. */
  readonly keys: {
    /**
     * `POST /v1/keys`: mints a child of this client's key (which needs
     * `keys:write`) in its project and environment, with at most its scopes,
     * expiring after `expires_in` seconds (default 3600, at most 30 days),
     * optionally bound to one session (`session_id`) or one end user
     * (`user_id`). The answer's `key` is shown only once. Throws `RotaError`.
     */
    create(body: KeyCreateRequest): Promise<KeyCreated>;
  };
  /** Sessions: open, read and close. */
  readonly sessions: {
    /** `POST /v1/sessions`: opens a session for an end user over 1 to 20 providers. Throws `RotaError`. */
    create(userId: string | null, opts: { servers: string[]; metadata?: Record<string, unknown> }): Promise<Session>;
    /** `GET /v1/sessions/{id}`: a session of the key's project and environment. Throws `RotaError`. */
    get(id: string): Promise<Session>;
    /** `DELETE /v1/sessions/{id}`: closes a session by id. Throws `RotaError`. */
    close(id: string): Promise<SessionClosed>;
  };

  /** The call log of the key's project and environment (scope `logs:read`). */
  readonly logs: {
    /** `GET /v1/logs`: one page of call records, newest first; pass `next_cursor` as `cursor` for the next. Throws `RotaError`. */
    list(query?: LogQuery): Promise<LogList>;
    /**
     * `GET /v1/logs/stream`: each finished call as it happens, until the
     * stream ends or `signal` aborts. Give `lastEventId` (the `id` of the last
     * event seen) to resume right after it. Throws `RotaError` when the
     * stream is refused.
     */
    stream(opts?: { sessionId?: string; lastEventId?: string; signal?: AbortSignal }): AsyncGenerator<LogStreamEvent>;
  };
  /** `GET /v1/policy`: the policy rules of the key's project and environment, in evaluation order. Throws `RotaError`. */
  policy(): Promise<PolicyView> {
    return this.t.json('GET', '/v1/policy');
  }
  /** `GET /v1/usage`: this month's calls by tool and the org quota. Throws `RotaError`. */
  usage(): Promise<Usage> {
    return this.t.json('GET', '/v1/usage');
  }
  /** `GET /v1/health`: the six checks and their rollup. Throws `RotaError`. */
  health(): Promise<HealthReport> {
    return this.t.json('GET', '/v1/health');
  }

  private readonly t: Transport;

  /** Creates a client; nothing is sent until a method is called. */
  constructor(opts: RotaOptions) {
    if (!opts || typeof opts.apiKey !== 'string' || opts.apiKey.length === 0)
      throw new TypeError('Rota: apiKey is required');
    const f = opts.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('Rota: no fetch available; pass options.fetch');
    this.t = new Transport({
      apiKey: opts.apiKey,
      baseUrl: opts.baseUrl ?? 'http://127.0.0.1:3000',
      timeoutMs: opts.timeoutMs ?? 30_000,
      retries: Math.max(0, Math.floor(opts.retries ?? 2)),
      fetch: f.bind(globalThis),
    });
    const t = this.t;
    this.api = createApi(t);
    this.tools = { search: (body) => t.json('POST', '/v1/tools/search', body) };
    this.metaTools = {
      discover: (body) => t.json('POST', '/v1/meta-tools/discover', body),
      list: () => t.json('GET', '/v1/meta-tools.json'),
    };
    this.keys = { create: (body) => t.json('POST', '/v1/keys', body) };
    this.sessions = {
      create: async (userId, o) => {
        const body: Record<string, unknown> = { servers: o.servers };
        if (userId !== null) body.user_id = userId;
        if (o.metadata !== undefined) body.metadata = o.metadata;
        return new Session(t, await t.json<SessionCreated>('POST', '/v1/sessions', body));
      },
      get: async (id) => new Session(t, await t.json<SessionView>('GET', `/v1/sessions/${encodeURIComponent(id)}`)),
      close: (id) => t.json('DELETE', `/v1/sessions/${encodeURIComponent(id)}`),
    };
    this.logs = {
      list: (query = {}) => {
        const q = new URLSearchParams();
        for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) q.set(k, String(v));
        const qs = q.toString();
        return t.json('GET', `/v1/logs${qs ? `?${qs}` : ''}`);
      },
      stream: (o = {}) => streamLogs(t, o),
    };
  }

  /** The gateway this client talks to, without a trailing slash. */
  get baseUrl(): string {
    return this.t.baseUrl;
  }
}

export default Rota;
