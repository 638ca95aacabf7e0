import { createHash } from 'node:crypto';
import {
  AppError,
  resolveProviderUrl,
  type Environment,
  type ExecuteFailureCode,
  type ProviderAuth,
  type ProxyRequest,
  type Tenant,
} from '@rota/contracts';
import type { ProviderForCall } from '@rota/catalog/repository';
import {
  buildRequest,
  CredentialError,
  literalAddressRefused,
  ProviderError,
  RequestBuildError,
  SANDBOX_TENANT_HEADER,
  type CallResult,
  type ProviderClient,
  type ProviderRequest,
} from '@rota/providers';
import { beforeDeadline } from '@rota/service-kit';
import type { ProviderClients } from '../connections/clients';
import { originOf, type ConnectionsService } from '../connections/connections.service';
import { maskEndpointQuery, redactSecrets } from '../calls/redact';
import { LostClaimError } from '../calls/idempotency';
import type { KeyOutcome } from '../calls/idempotency.repository';
import type { CallerKey, CompletedCall, KeyFinish, ProviderCallsRepository } from '../calls/provider-calls.repository';

export type { ProviderClients };

/** A refusal before anything was written or sent. */
export interface CallRefusal {
  kind: 'refused';
  code: ExecuteFailureCode;
  message: string;
  details?: Record<string, unknown>;
}

/** A call that was written down (and sent, unless `result.kind` says otherwise). */
export interface CallDone {
  kind: 'called';
  toolCallId: string;
  result: CallResult | { kind: 'credentials'; code: ExecuteFailureCode; message: string };
  state: 'done' | 'outcome_unknown';
}

export type { KeyOutcome };

/**
 * A call made under the caller's idempotency key: the key as this request
 * holds it, and the answer a repeat gets for each way the call can end. The
 * answer is built before the completion so that the row and the key are
 * finished by one statement.
 */
export interface KeyedCall {
  key: CallerKey;
  answer(done: CallDone): KeyOutcome;
}

/** Whether a call's result proves that nothing reached the provider (its key is then given back). */
export function sentNothing(result: CallDone['result']): boolean {
  return result.kind === 'not_sent' || result.kind === 'credentials';
}

/** Headers a proxy caller may never set: credentials travel only as Rota injects them. */
const ALWAYS_FORBIDDEN = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'expect',
  // Rota names the tenant to the sandbox itself (docs/sandbox.md); a caller naming another would reach its data.
  SANDBOX_TENANT_HEADER,
]);

/** The header names a provider's own auth writes (the caller may not set them either). */
export function authHeaderNames(auth: ProviderAuth | null | undefined): string[] {
  if (!auth) return [];
  switch (auth.type) {
    case 'api_key':
      return auth.in === 'header' ? [auth.name.toLowerCase()] : [];
    case 'two_header':
      return auth.headers.map((h) => h.name.toLowerCase());
    case 'hmac':
      return [auth.header, auth.timestamp_header, auth.key_header]
        .filter((h): h is string => !!h)
        .map((h) => h.toLowerCase());
    default:
      return [];
  }
}

/**
 * The key sent to the provider: derived from the caller's key (so a retry
 * with the same key carries the same provider key, even on another replica)
 * or, without one, from the call row's id.
 */
export function providerIdempotencyKey(tenant: Tenant, callerKey: string | null, toolCallId: string): string {
  if (!callerKey) return `rota-${toolCallId}`;
  const digest = createHash('sha256')
    .update(`${tenant.org_id}\n${tenant.project_id}\n${tenant.environment}\n${callerKey}`)
    .digest('hex');
  return `rota-${digest.slice(0, 40)}`;
}

/** Whether a base URL's host is a literal loopback, private, link-local or metadata address (in any spelling the URL parser accepts). */
function privateLiteral(baseUrl: string): boolean {
  try {
    return literalAddressRefused(new URL(baseUrl).hostname, false) !== undefined;
  } catch {
    return false;
  }
}

/** Whether credentials bound to `origin` may go to `baseUrl`: only to the very origin they were stored for. */
export function sameOrigin(origin: string | null, baseUrl: string): boolean {
  const target = originOf(baseUrl);
  return origin !== null && target !== null && origin === target;
}

/** Levels of percent-encoding the endpoint filter undoes before it gives up on an endpoint. */
const MAX_ENCODING_DEPTH = 8;

/**
 * Why a proxy endpoint is refused, or null when it is a safe relative path.
 * The path is decoded level by level, as far as anyone stacked encodings
 * (an endpoint still changing after {@link MAX_ENCODING_DEPTH} levels is
 * refused), and every level is checked: no backslash, no control
 * character, no `;` path parameter, no segment that is `.` or `..`, no
 * scheme or second host. What the provider's server or a proxy in front of
 * it would normalise one way or another never reaches it.
 */
export function endpointProblem(endpoint: string): string | null {
  if (!endpoint.startsWith('/') || endpoint.startsWith('//'))
    return 'must be a path relative to the provider base URL, starting with a single "/"';
  if (/[\u0000-\u001f\u007f#{}]/.test(endpoint)) return 'must not contain control characters, fragments or braces';
  const q = endpoint.indexOf('?');
  let path = q === -1 ? endpoint : endpoint.slice(0, q);
  for (let depth = 0; ; depth++) {
    if (/\\/.test(path)) return 'must not contain backslashes, raw or percent-encoded';
    if (/[\u0000-\u001f\u007f]/.test(path)) return 'must not contain control characters, raw or percent-encoded';
    if (path.includes(';')) return 'must not contain ";" path parameters, raw or percent-encoded';
    if (path.split('/').some((seg) => seg === '..' || seg === '.'))
      return 'must not contain "." or ".." segments, raw or percent-encoded';
    if (path.slice(1).startsWith('/') || path.includes('//') || /^\/?[a-z][a-z0-9+.-]*:/i.test(path.slice(1)))
      return 'must not carry a scheme or another host';
    let next: string;
    try {
      next = decodeURIComponent(path);
    } catch {
      return 'is not validly percent-encoded';
    }
    if (next === path) break;
    if (depth >= MAX_ENCODING_DEPTH) return `must not stack more than ${MAX_ENCODING_DEPTH} levels of percent-encoding`;
    path = next;
  }
  if (q !== -1) {
    let query = endpoint.slice(q + 1);
    for (let depth = 0; depth <= MAX_ENCODING_DEPTH; depth++) {
      if (/[\\\u0000-\u001f\u007f]/.test(query))
        return 'must not carry backslashes or control characters in its query, raw or percent-encoded';
      let next: string;
      try {
        next = decodeURIComponent(query.replace(/\+/g, ' '));
      } catch {
        return 'is not validly percent-encoded';
      }
      if (next === query) break;
      query = next;
    }
  }
  return null;
}

export function failureOf(result: CallResult): { code: ExecuteFailureCode; message: string } | null {
  switch (result.kind) {
    case 'response':
      return result.status >= 200 && result.status < 300
        ? null
        : { code: 'upstream_error', message: `The provider answered ${result.status}.` };
    case 'not_sent':
      // Refused by the address policy: the catalog entry points somewhere Rota does not call.
      if (result.reason === 'address_refused')
        return {
          code: 'provider_not_callable',
          message:
            'The provider resolves to an address Rota does not call (private, loopback, link-local or metadata); nothing was sent.',
        };
      return {
        code: 'upstream_unreachable',
        message: `The provider could not be reached (${result.reason}); nothing was sent.`,
      };
    case 'outcome_unknown':
      return {
        code: 'outcome_unknown',
        message: `The request may have reached the provider and no answer came back (${result.reason}). Retry with the same Idempotency-Key.`,
      };
  }
}

/**
 * Calls providers for execute (raw catalog tools) and the proxy, with
 * money-safe bookkeeping: every call is written down `pending` before it is
 * sent (the caller's idempotency key linked in the same statement), carries
 * an idempotency key to the provider, and is completed after. Nothing here
 * retries or fails over; the adapter's one retry after a 401 is a request
 * the provider refused, so it never ran.
 */
export class ProviderCallsService {
  constructor(
    private readonly repo: ProviderCallsRepository,
    private readonly connections: ConnectionsService,
    private readonly clients: ProviderClients,
  ) {}

  private client(environment: Environment): ProviderClient {
    return environment === 'test' ? this.clients.test : this.clients.live;
  }

  /** The provider and its credentials, or why it cannot be called. */
  async prepare(
    tenant: Tenant,
    serverId: string,
    toolName?: string,
  ): Promise<{ provider: ProviderForCall; baseUrl: string; credentials: Record<string, string> } | CallRefusal> {
    // The connection's credentials are read alongside the provider (two queries at once instead of in a row);
    // they stay in this function and are used only when the provider authenticates.
    const sealed = this.connections.connectionFor(tenant.project_id, tenant.environment, serverId).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const provider = await this.repo.providerForCall(serverId, tenant.project_id, toolName);
    if (!provider)
      return { kind: 'refused', code: 'tool_not_registered', message: `No provider has the id "${serverId}".` };
    if (provider.owner !== '' && provider.status === 'disabled') {
      return {
        kind: 'refused',
        code: 'provider_not_callable',
        message: `${serverId} was disabled when the global catalog took its former id; import it again to use it. Nothing was sent.`,
      };
    }
    const baseUrl = provider.baseUrls[tenant.environment];
    if (!provider.http || !baseUrl) {
      return {
        kind: 'refused',
        code: 'provider_not_callable',
        message: `The catalog does not say how to call ${serverId} in the ${tenant.environment} environment (it needs a catalog format v2 entry with a ${tenant.environment} base URL). Nothing was sent.`,
      };
    }
    // A project's own provider is held to public addresses (only the operator's entries may be exempt):
    // a literal private address is refused here, before a call row exists; a name is checked when it resolves.
    if (provider.owner !== '' && privateLiteral(baseUrl)) {
      return {
        kind: 'refused',
        code: 'provider_not_callable',
        message: `${serverId}'s ${tenant.environment} base URL is not a public address; a project's own provider is called at public addresses only. Nothing was sent.`,
      };
    }
    let credentials: Record<string, string> = {};
    if (provider.http.auth.type !== 'none') {
      const read = await sealed;
      if ('error' in read) throw read.error;
      const stored = read.value;
      if (!stored) {
        return {
          kind: 'refused',
          code: 'connection_required',
          message: `The project has no connection for ${serverId} in the ${tenant.environment} environment; connect it first (POST /v1/connections). Nothing was sent.`,
          details: { server_id: serverId },
        };
      }
      // Credentials go only to the address they were given for: a provider whose base URL moved needs a new connection.
      if (!sameOrigin(stored.origin, baseUrl)) {
        return {
          kind: 'refused',
          code: 'connection_required',
          message: `The ${tenant.environment} connection for ${serverId} was made for another address than the provider has now; connect it again (POST /v1/connections). Nothing was sent.`,
          details: { server_id: serverId, reason: 'origin_changed' },
        };
      }
      credentials = stored.credentials;
    }
    return { provider, baseUrl, credentials };
  }

  /** A raw catalog tool (`server/tool`) with its coerced input. */
  async callTool(a: {
    tenant: Tenant;
    sessionId: string | null;
    server: string;
    toolName: string;
    callable: string;
    input: Record<string, unknown>;
    caller: KeyedCall | null;
    calledAt: Date;
  }): Promise<CallRefusal | CallDone> {
    const prepared = await this.prepare(a.tenant, a.server, a.toolName);
    if ('kind' in prepared) return prepared;
    const tool = prepared.provider.tool;
    if (!tool?.httpMethod || !tool.endpointTemplate) {
      return {
        kind: 'refused',
        code: 'provider_not_callable',
        message: `The catalog gives no method and endpoint for ${a.callable}. Nothing was sent.`,
      };
    }
    let request: ProviderRequest;
    try {
      request = buildRequest({
        baseUrl: prepared.baseUrl,
        method: tool.httpMethod,
        endpointTemplate: tool.endpointTemplate,
        parameters: tool.parameters ?? undefined,
        input: a.input,
      });
    } catch (err) {
      if (err instanceof RequestBuildError)
        return {
          kind: 'refused',
          code: 'invalid_args',
          message: err.message,
          details: { issues: [{ path: [], message: err.message, code: err.code }] },
        };
      throw err;
    }
    return this.send({
      ...a,
      provider: prepared.provider,
      request,
      credentials: prepared.credentials,
      tool: a.callable,
      route: tool.endpointTemplate,
      recordedInput: redactSecrets(a.input, tool.inputSchema),
    });
  }

  /** `proxyExecute`: Rota's own refusals throw with their codes; the provider's answer comes back whatever its status. */
  async proxy(a: {
    tenant: Tenant;
    sessionId: string;
    servers: readonly string[];
    request: ProxyRequest;
    caller: KeyedCall | null;
    calledAt: Date;
  }): Promise<CallDone> {
    const r = a.request;
    if (!a.servers.includes(r.server))
      throw new AppError('server_not_in_session', `${r.server} is not one of this session's providers.`);
    const problem = endpointProblem(r.endpoint);
    if (problem) throw new AppError('invalid_endpoint', `endpoint ${problem}.`);
    const prepared = await this.prepare(a.tenant, r.server);
    if ('kind' in prepared) {
      if (prepared.code === 'connection_required')
        throw new AppError('connection_required', prepared.message, prepared.details);
      if (prepared.code === 'tool_not_registered')
        throw new AppError('server_not_in_session', `${r.server} names no provider this project can call.`);
      throw new AppError('provider_not_callable', prepared.message);
    }
    const forbidden = new Set([...ALWAYS_FORBIDDEN, ...authHeaderNames(prepared.provider.http?.auth)]);
    if (prepared.provider.http?.idempotency_header)
      forbidden.add(prepared.provider.http.idempotency_header.toLowerCase());
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(r.headers ?? {})) {
      const lower = name.toLowerCase();
      if (forbidden.has(lower) || lower.startsWith('x-rota-'))
        throw new AppError(
          'forbidden_header',
          `The header ${lower} may not be set through the proxy; Rota injects credentials itself.`,
        );
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || /[\r\n\u0000]/.test(value))
        throw new AppError('forbidden_header', `The header ${lower.slice(0, 100)} is not a valid HTTP header.`);
      headers[lower] = value;
    }
    const base = new URL(prepared.baseUrl);
    const url = new URL(base.href.replace(/\/+$/, '') + r.endpoint);
    // The endpoint was checked above; this also holds whatever the URL parser normalised.
    if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname.replace(/\/+$/, '')))
      throw new AppError('invalid_endpoint', 'endpoint must stay under the provider base URL.');
    for (const [k, v] of Object.entries(r.params ?? {})) url.searchParams.append(k, String(v));
    const hasBody = r.method !== 'GET' && r.body !== undefined;
    if (hasBody) headers['content-type'] ??= 'application/json';
    headers.accept ??= 'application/json';
    const request: ProviderRequest = {
      url: url.href,
      method: r.method,
      headers,
      ...(hasBody ? { body: JSON.stringify(r.body) } : {}),
    };
    // The endpoint's own query string is masked like `params`: a key in either is written down as `[redacted]`.
    const recordedInput = redactSecrets({
      method: r.method,
      endpoint: maskEndpointQuery(r.endpoint),
      params: r.params ?? {},
      headers: r.headers ?? {},
      body: r.body ?? null,
    });
    return this.send({
      ...a,
      server: r.server,
      provider: prepared.provider,
      request,
      credentials: prepared.credentials,
      tool: 'proxy',
      recordedInput,
    });
  }

  private async send(a: {
    tenant: Tenant;
    sessionId: string | null;
    server: string;
    provider: ProviderForCall;
    request: ProviderRequest;
    credentials: Record<string, string>;
    tool: string;
    /** The catalog's endpoint template, when the call is a catalog tool. */
    route?: string;
    recordedInput: unknown;
    caller: KeyedCall | null;
    calledAt: Date;
  }): Promise<CallDone> {
    const id = this.repo.newCallId();
    const providerKey = providerIdempotencyKey(a.tenant, a.caller?.key.key ?? null, id);
    // Nobody waits past the deadline: nothing is written or sent after it.
    beforeDeadline();
    const written = await this.repo.insertPending(id, {
      sessionId: a.sessionId,
      projectId: a.tenant.project_id,
      environment: a.tenant.environment,
      tool: a.tool,
      server: a.server,
      input: a.recordedInput,
      calledAt: a.calledAt,
      providerIdempotencyKey: providerKey,
      callerKey: a.caller?.key ?? null,
    });
    // A later request took the key over while this one stalled: it alone may send.
    if (!written) throw new LostClaimError();
    const result = await this.sendOnce({ ...a, providerKey, operation: a.tool });
    const state: CallDone['state'] = result.kind === 'outcome_unknown' ? 'outcome_unknown' : 'done';
    const done: CallDone = { kind: 'called', toolCallId: id, result, state };
    const finish: KeyFinish | undefined = a.caller ? { key: a.caller.key, ...a.caller.answer(done) } : undefined;
    await this.repo.complete(id, completedRow(result, state), finish);
    return done;
  }

  /**
   * One request to a provider, with its credentials injected and the
   * provider's idempotency header set. Writes nothing: the caller has put
   * the call on its row before this and completes it after. Never throws
   * for the provider's sake: what could not be sent comes back as a result.
   */
  async sendOnce(a: {
    tenant: Tenant;
    server: string;
    provider: ProviderForCall;
    request: ProviderRequest;
    credentials: Record<string, string>;
    providerKey: string;
    /** Names the call on its span (see `CallArgs.operation` and `route`). */
    operation?: string;
    route?: string;
  }): Promise<CallDone['result']> {
    const http = a.provider.http!;
    // An OAuth2 token URL may be a path under the environment's base URL, so
    // test tokens come from the sandbox and live ones from the provider.
    const baseUrl = a.provider.baseUrls[a.tenant.environment]!;
    const auth: ProviderAuth =
      http.auth.type === 'oauth2'
        ? {
            ...http.auth,
            token_url: resolveProviderUrl(http.auth.token_url, baseUrl),
            ...(http.auth.authorize_url ? { authorize_url: resolveProviderUrl(http.auth.authorize_url, baseUrl) } : {}),
          }
        : http.auth;
    try {
      return await this.client(a.tenant.environment).call({
        providerId: a.server,
        providerOwner: a.provider.owner,
        request: a.request,
        auth,
        credentials: a.credentials,
        tenant: a.tenant,
        connectionId: `${a.tenant.environment}:${a.server}`,
        idempotencyKey: a.providerKey,
        idempotencyHeader: http.idempotency_header,
        operation: a.operation,
        route: a.route,
      });
    } catch (err) {
      // Thrown only before anything was sent (see ProviderClient.call).
      if (!(err instanceof ProviderError)) throw err;
      const code: ExecuteFailureCode = err instanceof CredentialError ? 'connection_required' : 'upstream_unreachable';
      return { kind: 'credentials', code, message: err.message };
    }
  }
}

export function completedRow(result: CallDone['result'], state: CallDone['state']): CompletedCall {
  if (result.kind === 'credentials') {
    return {
      state,
      success: false,
      output: { code: result.code, message: result.message },
      error: result.message,
      durationMs: 0,
      upstreamStatus: null,
      attempts: 0,
      bytesIn: null,
      bytesOut: null,
    };
  }
  const failure = failureOf(result);
  if (result.kind === 'response') {
    return {
      state,
      success: failure === null,
      // Provider bodies are the call's output; the audit row keeps them like execute does.
      output: { status: result.status, body: result.body },
      error: failure?.message ?? null,
      durationMs: Math.round(result.durationMs),
      upstreamStatus: result.status,
      attempts: 1,
      bytesIn: result.bytesIn,
      bytesOut: result.bytesOut,
    };
  }
  return {
    state,
    success: false,
    output: { code: failure!.code, reason: result.reason },
    error: failure!.message,
    durationMs: Math.round(result.durationMs),
    upstreamStatus: null,
    attempts: result.kind === 'not_sent' ? 0 : 1,
    bytesIn: null,
    bytesOut: null,
  };
}

/** The execute result `data` and `success` of a raw tool call. */
export function toolOutcome(done: CallDone): { success: boolean; data: unknown; error: string | null } {
  const r = done.result;
  if (r.kind === 'credentials') return { success: false, data: { code: r.code, message: r.message }, error: r.message };
  const failure = failureOf(r);
  if (r.kind === 'response') {
    const data = { status: r.status, headers: r.headers, body: r.body };
    return failure
      ? { success: false, data: { ...data, code: failure.code, message: failure.message }, error: failure.message }
      : { success: true, data, error: null };
  }
  return {
    success: false,
    data: { code: failure!.code, message: failure!.message, reason: r.reason },
    error: failure!.message,
  };
}
