import { createHash, createHmac, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  BrokenCircuitError,
  BulkheadRejectedError,
  ConsecutiveBreaker,
  IsolatedCircuitError,
  bulkhead,
  circuitBreaker,
  handleWhenResult,
  type BulkheadPolicy,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { Agent, type Dispatcher } from 'undici';
import type { ProviderAuth, Tenant } from '@rota/contracts';
import { checkedLookup, literalAddressRefused, type Resolver } from './address';
import { injectAuth, type ClientCertificate, type Credentials } from './auth';
import { redactingLogger, type ProviderLogger } from './log';
import type { OAuth2Auth, OAuth2TokenCache, AccessToken } from './oauth2';
import {
  afterSendReason,
  isProviderFailure,
  notSentReason,
  ResponseTimeoutError,
  ResponseTooLargeError,
  type CallResult,
  type NotSent,
} from './outcome';
import type { ProviderRequest } from './request';

/** Limits that apply to one provider. */
export interface ProviderPolicy {
  /** TCP connect plus TLS handshake. Default 5 s. */
  connectTimeoutMs: number;
  /** From the first byte written to the last byte of the response. Default 30 s. */
  responseTimeoutMs: number;
  /** Response bodies larger than this are not read (outcome unknown). Default 5 MiB. */
  maxResponseBytes: number;
  /** Calls in flight at once. Default 32. */
  concurrency: number;
  /** Calls waiting for a slot; beyond this a call is refused (`bulkhead_full`). Default 64. */
  queue: number;
  /** Consecutive provider failures that open the circuit. Default 5. */
  breakerFailures: number;
  /** How long an open circuit refuses calls before letting one through to test. Default 30 s. */
  breakerHalfOpenAfterMs: number;
}

export const DEFAULT_POLICY: ProviderPolicy = {
  connectTimeoutMs: 5_000,
  responseTimeoutMs: 30_000,
  maxResponseBytes: 5 * 1024 * 1024,
  concurrency: 32,
  queue: 64,
  breakerFailures: 5,
  breakerHalfOpenAfterMs: 30_000,
};

export interface ProviderClientOptions {
  defaults?: Partial<ProviderPolicy>;
  /** Overrides per provider id. */
  providers?: Record<string, Partial<ProviderPolicy>>;
  /**
   * Provider ids whose hosts may resolve to private or loopback addresses
   * (a sandbox on the same machine, an operator's internal provider). Only
   * the operator's entry of such an id is exempt (`CallArgs.providerOwner`
   * ''): a project's own provider is held to public addresses whatever its
   * id. Everyone else is held to public addresses.
   */
  allowPrivateAddresses?: Iterable<string>;
  /** Required to call providers with `oauth2` auth. */
  tokens?: OAuth2TokenCache;
  logger?: ProviderLogger;
  /** DNS resolution; tests substitute names. */
  resolver?: Resolver;
  /** Distinct client certificates kept connected at once. Default 64. */
  maxCertificateAgents?: number;
  /**
   * A header naming the calling tenant (an opaque tag) on requests to the
   * private-address exempt providers (the sandbox beside Rota), so it keeps
   * each tenant's state apart. It is removed from every other request, and
   * from whatever a request carried before: callers never set it.
   */
  tenantHeader?: string;
}

/** The header Rota names the tenant in for the sandbox provider server (docs/sandbox.md). */
export const SANDBOX_TENANT_HEADER = 'x-rota-sandbox-tenant';

/** An opaque, stable tag for a tenant: the sandbox tells tenants apart without learning their ids. */
export function tenantTag(tenant: Tenant): string {
  return createHash('sha256')
    .update(`${tenant.org_id}\n${tenant.project_id}\n${tenant.environment}`)
    .digest('hex')
    .slice(0, 32);
}

export interface CallArgs {
  providerId: string;
  /**
   * Who owns the catalog entry: '' (the default) for the operator's catalog,
   * else the project that imported it. Never private-address exempt.
   */
  providerOwner?: string;
  /** Built by `buildRequest`, without credentials. */
  request: ProviderRequest;
  auth: ProviderAuth;
  credentials: Credentials;
  tenant: Tenant;
  connectionId: string;
  /** Sent in `idempotencyHeader` when both are given (and again, unchanged, on the one retry after a 401). */
  idempotencyKey?: string;
  idempotencyHeader?: string;
  /**
   * What the call is for, named on its span (`rota.tool`): the catalog tool,
   * `proxy`, a lookup. A name from the catalog, never a value of the request.
   */
  operation?: string;
  /** The endpoint template from the catalog (`/v3/payments/{id}`), for the span's name; the sent path is never recorded. */
  route?: string;
}

interface ProviderState {
  policy: ProviderPolicy;
  bulkhead: BulkheadPolicy;
  breaker: CircuitBreakerPolicy;
  agent: Agent;
}

const UNSENDABLE = /[\u0000-\u001f\u007f]/;

/**
 * Sends provider requests on undici, one pool of connections, one
 * concurrency limit and one circuit breaker per provider, and reports what
 * happened in terms a caller can act on safely (see `CallResult`).
 *
 * `call` throws only `ProviderError`s, and only before anything is sent
 * (missing credentials, a token endpoint that refuses); every other outcome
 * is a result.
 */
export class ProviderClient {
  private readonly states = new Map<string, ProviderState>();
  private readonly certAgents = new Map<string, Agent>();
  private readonly allowPrivate: ReadonlySet<string>;
  private readonly fingerprintKey = randomBytes(32);
  private readonly log: ProviderLogger;

  constructor(private readonly opts: ProviderClientOptions = {}) {
    this.allowPrivate = new Set(opts.allowPrivateAddresses ?? []);
    this.log = redactingLogger(opts.logger);
  }

  policy(providerId: string): ProviderPolicy {
    return { ...DEFAULT_POLICY, ...this.opts.defaults, ...this.opts.providers?.[providerId] };
  }

  /** The dispatcher a provider's requests (and its OAuth2 token requests) go through: address-checked and pinned. */
  dispatcher(providerId: string, owner = ''): Dispatcher {
    return this.state(providerId, owner).agent;
  }

  /** Whether calls to this entry may reach private addresses: an operator's entry listed in `allowPrivateAddresses`, nothing else. */
  private privateAllowed(providerId: string, owner: string): boolean {
    return owner === '' && this.allowPrivate.has(providerId);
  }

  private agentOptions(
    providerId: string,
    owner: string,
    policy: ProviderPolicy,
    cert?: ClientCertificate,
  ): Agent.Options {
    return {
      connections: policy.concurrency,
      headersTimeout: policy.responseTimeoutMs,
      bodyTimeout: policy.responseTimeoutMs,
      connect: {
        timeout: policy.connectTimeoutMs,
        lookup: checkedLookup(this.privateAllowed(providerId, owner), this.opts.resolver),
        ...(cert ? { cert: cert.cert, key: cert.key, ...(cert.ca ? { ca: cert.ca } : {}) } : {}),
      },
    };
  }

  private state(providerId: string, owner: string): ProviderState {
    // Keyed by owner too: a project's entry never shares the operator's pool (and its address exemption).
    const key = `${owner}\0${providerId}`;
    let s = this.states.get(key);
    if (s) return s;
    const policy = this.policy(providerId);
    const breaker = circuitBreaker(
      handleWhenResult((r) => isProviderFailure(r as CallResult)),
      { halfOpenAfter: policy.breakerHalfOpenAfterMs, breaker: new ConsecutiveBreaker(policy.breakerFailures) },
    );
    breaker.onBreak(() => this.log.warn({ provider: providerId }, 'provider circuit opened'));
    breaker.onReset(() => this.log.info({ provider: providerId }, 'provider circuit closed'));
    s = {
      policy,
      bulkhead: bulkhead(policy.concurrency, policy.queue),
      breaker,
      agent: new Agent(this.agentOptions(providerId, owner, policy)),
    };
    this.states.set(key, s);
    return s;
  }

  /**
   * One agent per (provider, client certificate), so a TLS session is never
   * shared between two connections' identities. The key is an HMAC under a
   * per-process secret: it identifies the material without being a hash of
   * it that could be compared elsewhere. Least recently used agents are
   * closed past the bound; their in-flight requests finish first.
   */
  private certAgent(providerId: string, owner: string, cert: ClientCertificate): Agent {
    const fingerprint = createHmac('sha256', this.fingerprintKey)
      .update(`${owner}\0${providerId}\0${cert.cert}\0${cert.key}\0${cert.ca ?? ''}`)
      .digest('base64url');
    const found = this.certAgents.get(fingerprint);
    if (found) {
      this.certAgents.delete(fingerprint);
      this.certAgents.set(fingerprint, found);
      return found;
    }
    const agent = new Agent(this.agentOptions(providerId, owner, this.state(providerId, owner).policy, cert));
    this.certAgents.set(fingerprint, agent);
    const max = this.opts.maxCertificateAgents ?? 64;
    while (this.certAgents.size > max) {
      const [oldest, old] = this.certAgents.entries().next().value as [string, Agent];
      this.certAgents.delete(oldest);
      void old.close().catch(() => undefined);
    }
    return agent;
  }

  /** Number of client-certificate agents currently kept (bounded by `maxCertificateAgents`). */
  get certificateAgentCount(): number {
    return this.certAgents.size;
  }

  /**
   * Authenticates and sends one request. On a 401 to an OAuth2 request the
   * token is renewed once and the request sent once more: a 401 is the
   * provider refusing the request at its door, before acting on it, so
   * repeating it cannot do the work twice (and it carries the same
   * idempotency key, for a provider that would act first and refuse after).
   */
  async call(args: CallArgs): Promise<CallResult> {
    const span = startCallSpan(args);
    try {
      const result = await context.with(trace.setSpan(context.active(), span), () => this.traced(args));
      endCallSpan(span, result);
      return result;
    } catch (err) {
      // Thrown only before anything was sent (see the class comment).
      endCallSpan(span, undefined, err);
      throw err;
    }
  }

  private async traced(args: CallArgs): Promise<CallResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const notSent = (reason: NotSent['reason']): CallResult => ({ kind: 'not_sent', reason, durationMs: elapsed() });
    const log = redactingLogger(this.opts.logger, () =>
      Object.values(args.credentials).filter((v): v is string => !!v),
    );

    let base: ProviderRequest = args.request;
    const owner = args.providerOwner ?? '';
    const tenantHeader = this.opts.tenantHeader?.toLowerCase();
    if (tenantHeader) {
      // Whatever the request carried under this name goes; only Rota writes it, and only to the sandbox.
      const headers = Object.fromEntries(
        Object.entries(base.headers ?? {}).filter(([name]) => name.toLowerCase() !== tenantHeader),
      );
      if (this.privateAllowed(args.providerId, owner)) headers[tenantHeader] = tenantTag(args.tenant);
      base = { ...base, headers };
    }
    // The provider continues the trace; added before authentication, so a
    // signature over the request sees what is sent.
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    if (carrier.traceparent) base = { ...base, headers: { ...base.headers, ...carrier } };
    if (args.idempotencyKey !== undefined && args.idempotencyHeader) {
      if (!args.idempotencyKey || UNSENDABLE.test(args.idempotencyKey)) return notSent('invalid_request');
      base = { ...base, headers: { ...base.headers, [args.idempotencyHeader.toLowerCase()]: args.idempotencyKey } };
    }
    let url: URL;
    try {
      url = new URL(base.url);
    } catch {
      return notSent('invalid_request');
    }
    if (literalAddressRefused(url.hostname, this.privateAllowed(args.providerId, owner)))
      return notSent('address_refused');

    const state = this.state(args.providerId, owner);
    let token: AccessToken | undefined;
    const tokenRequest = () => ({
      tenant: args.tenant,
      providerId: args.providerId,
      connectionId: args.connectionId,
      auth: args.auth as OAuth2Auth,
      credentials: args.credentials,
      dispatcher: state.agent,
    });
    const authenticate = async (renew: boolean) => {
      const tokens = this.opts.tokens;
      const oauth2Token =
        args.auth.type === 'oauth2' && tokens
          ? async () => {
              token =
                renew && token
                  ? await tokens.renewAfterRejection(tokenRequest(), token)
                  : await tokens.getToken(tokenRequest());
              return token.accessToken;
            }
          : undefined;
      return injectAuth(args.auth, args.credentials, base, oauth2Token ? { oauth2Token } : {});
    };

    let authed = await authenticate(false);
    let result = await this.guarded(
      state,
      authed.request,
      authed.clientCertificate,
      args.providerId,
      owner,
      elapsed,
      injectedSecrets(args.credentials, base, authed.request, token),
    );
    if (result.kind === 'response' && result.status === 401 && args.auth.type === 'oauth2' && token) {
      const rejected = token;
      authed = await authenticate(true);
      if (token.accessToken !== rejected.accessToken) {
        log.info(
          { provider: args.providerId, connection: args.connectionId },
          'provider refused the OAuth2 token; retrying once with a renewed one',
        );
        const secrets = [...injectedSecrets(args.credentials, base, authed.request, token), rejected.accessToken];
        result = await this.guarded(
          state,
          authed.request,
          authed.clientCertificate,
          args.providerId,
          owner,
          elapsed,
          secrets,
        );
      }
    }
    if (result.kind === 'outcome_unknown') {
      log.warn(
        { provider: args.providerId, method: base.method, path: url.pathname, reason: result.reason },
        'provider call outcome unknown',
      );
    }
    return result;
  }

  private async guarded(
    state: ProviderState,
    request: ProviderRequest,
    cert: ClientCertificate | undefined,
    providerId: string,
    owner: string,
    elapsed: () => number,
    secrets: readonly string[],
  ): Promise<CallResult> {
    try {
      // The bulkhead sits outside the breaker: a call refused for want of a slot never reached the provider and says nothing about its health.
      return await state.bulkhead.execute(() =>
        state.breaker.execute(() =>
          this.send(
            cert ? this.certAgent(providerId, owner, cert) : state.agent,
            state.policy,
            request,
            elapsed,
            secrets,
          ),
        ),
      );
    } catch (err) {
      if (err instanceof BulkheadRejectedError)
        return { kind: 'not_sent', reason: 'bulkhead_full', durationMs: elapsed() };
      if (err instanceof BrokenCircuitError || err instanceof IsolatedCircuitError)
        return { kind: 'not_sent', reason: 'circuit_open', durationMs: elapsed() };
      throw err;
    }
  }

  /**
   * One HTTP exchange. Resolves, never rejects: every error becomes a result.
   * The injected credential values (`secrets`) are cut out of the answer's
   * headers and body before anyone sees it: a provider that echoes a key
   * back must not get it stored, logged or streamed.
   */
  private send(
    dispatcher: Dispatcher,
    policy: ProviderPolicy,
    request: ProviderRequest,
    elapsed: () => number,
    secrets: readonly string[] = [],
  ): Promise<CallResult> {
    const url = new URL(request.url);
    const bytesOut = request.body === undefined ? 0 : Buffer.byteLength(request.body);
    return new Promise<CallResult>((resolve) => {
      let written = false;
      let status = 0;
      let headers: Record<string, string> = {};
      const chunks: Buffer[] = [];
      let bytesIn = 0;
      let timer: NodeJS.Timeout | undefined;
      const finish = (r: CallResult) => {
        if (timer) clearTimeout(timer);
        resolve(r);
      };
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(controller) {
          // undici calls this right before writing the request line: from here on the provider may see it.
          written = true;
          if (timer) clearTimeout(timer);
          timer = setTimeout(
            () => controller.abort(new ResponseTimeoutError('response timeout')),
            policy.responseTimeoutMs,
          );
        },
        onResponseStart(controller, statusCode, rawHeaders) {
          if (statusCode < 200) return;
          status = statusCode;
          headers = {};
          for (const [name, value] of Object.entries(rawHeaders)) {
            if (value !== undefined)
              headers[name.toLowerCase()] = scrubText(Array.isArray(value) ? value.join(', ') : String(value), secrets);
          }
          const declared = Number(headers['content-length']);
          if (Number.isFinite(declared) && declared > policy.maxResponseBytes)
            controller.abort(new ResponseTooLargeError('response too large'));
        },
        onResponseData(controller, chunk) {
          bytesIn += chunk.length;
          if (bytesIn > policy.maxResponseBytes) {
            controller.abort(new ResponseTooLargeError('response too large'));
            return;
          }
          chunks.push(chunk);
        },
        onResponseEnd() {
          finish({
            kind: 'response',
            status,
            headers,
            body: parseBody(headers['content-type'], scrubBuffer(Buffer.concat(chunks), secrets)),
            bytesIn,
            bytesOut,
            durationMs: elapsed(),
          });
        },
        onResponseError(_controller, err) {
          finish(
            written
              ? { kind: 'outcome_unknown', reason: afterSendReason(err), durationMs: elapsed() }
              : { kind: 'not_sent', reason: notSentReason(err), durationMs: elapsed() },
          );
        },
      };
      try {
        dispatcher.dispatch(
          {
            origin: url.origin,
            path: `${url.pathname}${url.search}`,
            method: request.method,
            headers: request.headers,
            body: request.body ?? null,
            headersTimeout: policy.responseTimeoutMs,
            bodyTimeout: policy.responseTimeoutMs,
          },
          handler,
        );
      } catch (err) {
        finish(
          written
            ? { kind: 'outcome_unknown', reason: afterSendReason(err), durationMs: elapsed() }
            : { kind: 'not_sent', reason: notSentReason(err), durationMs: elapsed() },
        );
      }
    });
  }

  /** Closes every connection pool. */
  async close(): Promise<void> {
    const agents = [...[...this.states.values()].map((s) => s.agent), ...this.certAgents.values()];
    this.states.clear();
    this.certAgents.clear();
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
  }
}

/**
 * The client span of one provider call. Its attributes name the call, never
 * its content: method, host, provider, tool and endpoint template, and later
 * the status. No URL (a query may carry a key), header or body.
 */
function startCallSpan(args: CallArgs): Span {
  const method = args.request.method;
  const route = args.route?.split('?')[0];
  const span = trace
    .getTracer('rota.providers')
    .startSpan(route ? `${method} ${route}` : method, { kind: SpanKind.CLIENT });
  if (span.isRecording()) {
    span.setAttributes({ 'http.request.method': method, 'rota.provider': args.providerId });
    if (args.operation) span.setAttribute('rota.tool', args.operation);
    if (route) span.setAttribute('url.template', route);
    try {
      const url = new URL(args.request.url);
      span.setAttributes({
        'server.address': url.hostname,
        'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
      });
    } catch {
      // An unparsable URL is refused as `invalid_request`; the span says so through the outcome.
    }
  }
  return span;
}

function endCallSpan(span: Span, result: CallResult | undefined, err?: unknown): void {
  if (span.isRecording()) {
    if (result?.kind === 'response') {
      span.setAttribute('http.response.status_code', result.status);
      if (result.status >= 500) span.setAttributes({ 'error.type': String(result.status) });
    } else if (result) {
      span.setAttributes({ 'rota.outcome': result.kind, 'error.type': result.reason });
    } else {
      span.setAttribute('error.type', err instanceof Error ? err.name : 'error');
    }
    if (!result || result.kind !== 'response' || result.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** What a scrubbed credential value becomes. */
export const SCRUBBED = '[redacted]';

/**
 * The values a request carries that authenticate it: the connection's
 * credential values, the OAuth2 access token, and every header value the
 * authentication added or changed (with and without its scheme word, so a
 * Basic header's base64 counts), each also percent-encoded. Values under 8
 * characters are left out: cutting them out of an answer would mangle
 * ordinary data, and no real credential is that short.
 */
export function injectedSecrets(
  credentials: Credentials,
  before: ProviderRequest,
  after: ProviderRequest,
  token?: AccessToken,
): string[] {
  const out = new Set<string>();
  const add = (v: string | undefined) => {
    if (!v || v.length < 8) return;
    out.add(v);
    const encoded = encodeURIComponent(v);
    if (encoded !== v) out.add(encoded);
  };
  for (const v of Object.values(credentials)) if (typeof v === 'string') add(v);
  add(token?.accessToken);
  for (const [name, value] of Object.entries(after.headers ?? {})) {
    if (before.headers?.[name] === value) continue;
    add(value);
    add(/^\S+\s+(.+)$/.exec(value)?.[1]);
  }
  // Longest first, so a value containing another is cut whole.
  return [...out].sort((a, b) => b.length - a.length);
}

function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(SCRUBBED);
  return out;
}

function scrubBuffer(raw: Buffer, secrets: readonly string[]): Buffer {
  // Nearly every answer holds none: one search per secret, no copy.
  if (!secrets.some((s) => raw.includes(s))) return raw;
  return Buffer.from(scrubText(raw.toString('utf8'), secrets), 'utf8');
}

function parseBody(contentType: string | undefined, raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (text && contentType && /[/+]json\b/i.test(contentType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
