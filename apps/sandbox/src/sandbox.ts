import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { OAuthServer } from './auth/oauth';
import { maskedCredentials, secretQueryParams, verifyAuth, type AuthRequest } from './auth/verify';
import { mergeConfig, type ProviderConfig, type SandboxConfig } from './config';
import { Counters, type CountersSnapshot } from './counters';
import { FaultBook, parseFaultRule, type ArmedFault, type FaultRule } from './faults';
import { BodyTooLarge, compile, match, parseBody, readBody, send, type CompiledRoute } from './http';
import { fingerprint, IdempotencyStore, type IdempotencyDecision } from './idempotency';
import { modelFor } from './providers';
import { isObject, type AnyProviderModel, type Reply, type RouteDef } from './providers/types';

export interface SandboxTlsOptions {
  /** 0 picks a free port. */
  port?: number;
  cert: string | Buffer;
  key: string | Buffer;
  /** CA that client certificates must chain to. */
  ca: string | Buffer;
}

/**
 * The header Rota names the calling tenant in (an opaque tag, not a project
 * id). Each tenant's charges, customers, idempotency keys and the like are
 * kept apart; a request without it works on the shared default space.
 * Rota's proxy refuses it from callers, and raw tools never pass it on.
 */
export const SANDBOX_TENANT_HEADER = 'x-rota-sandbox-tenant';

const TENANT_TAG = /^[A-Za-z0-9._-]{1,128}$/;

/** The control API's own listener: never the providers' port. */
export interface SandboxControlOptions {
  /** 0 picks a free port (the default for tests). */
  port?: number;
  /**
   * The bearer token every control request must carry. Default:
   * `SANDBOX_CONTROL_TOKEN` from the environment, else a random one (read it
   * from `Sandbox.controlToken`).
   */
  token?: string;
}

export interface SandboxOptions {
  /** 0 picks a free port (the default for tests). */
  port?: number;
  /** Where the control API listens and the token it asks for; `false` runs no control listener at all. */
  control?: SandboxControlOptions | false;
  host?: string;
  /** Providers laid over the documented defaults. */
  config?: SandboxConfig;
  /** Starts the HTTPS listener that `certificate` prefixes need. */
  tls?: SandboxTlsOptions;
  /** Receives one object per log line; silent when absent. Never given a credential. */
  log?: (line: Record<string, unknown>) => void;
  /**
   * Acts on every request as if it carried no idempotency key (a provider
   * that does not de-duplicate): a repeat runs again and makes a second
   * object. Requests are still counted per key (`keyed_requests`) and a
   * lookup by key finds the last answer, so a test can tell how many times
   * one key reached the provider. `SANDBOX_IGNORE_IDEMPOTENCY_KEYS=true`.
   */
  ignoreIdempotencyKeys?: boolean;
}

/** The control API, in process. */
export interface SandboxControl {
  addFault(rule: FaultRule): ArmedFault;
  listFaults(): ArmedFault[];
  clearFaults(): void;
  counters(): CountersSnapshot;
  /** Forgets everything: counters, faults, idempotency keys, tokens and every prefix's data. */
  reset(): void;
  /** Ends the lifetime of issued access tokens (of one prefix); returns how many. */
  expireTokens(provider?: string): number;
  /** Marks a charge paid, as a payer would; false when the prefix or id is unknown. */
  markPaid(provider: string, id: string): boolean;
}

export interface Sandbox {
  /** `http://127.0.0.1:<port>`; a prefix's base URL is `${url}/<provider>`. */
  url: string;
  /** `https://127.0.0.1:<port>` when the TLS listener runs. */
  tlsUrl?: string;
  /** `http://127.0.0.1:<control port>`: the control API (`/_control/…`), on its own listener; absent when it was turned off. */
  controlUrl?: string;
  /** The bearer token the control API asks for. */
  controlToken?: string;
  config: SandboxConfig;
  control: SandboxControl;
  close(): Promise<void>;
}

interface Prefix {
  id: string;
  config: ProviderConfig;
  model: AnyProviderModel;
  routes: CompiledRoute<RouteDef<unknown>>[];
  /** The prefix's data per tenant tag ('' for requests that name none). */
  states: Map<string, unknown>;
}

function stateOf(p: Prefix, tenant: string): unknown {
  let state = p.states.get(tenant);
  if (state === undefined) {
    state = p.model.createState();
    p.states.set(tenant, state);
  }
  return state;
}

interface Listener {
  server: Server;
  base: string;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function controlError(status: number, error: string, message: string): Reply {
  return { status, body: { error, message } };
}

/** Starts the sandbox; see docs/sandbox.md for what each prefix speaks. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const config = mergeConfig(options.config);
  const log = options.log ?? (() => undefined);
  const counters = new Counters();
  const faults = new FaultBook();
  const idempotency = new IdempotencyStore();
  const oauth = new OAuthServer();
  const timers = new Set<NodeJS.Timeout>();
  const prefixes = new Map<string, Prefix>();
  for (const [id, pc] of Object.entries(config.providers)) {
    const model = modelFor(pc);
    prefixes.set(id, { id, config: pc, model, routes: model.routes.map((r) => compile(r)), states: new Map() });
  }

  const control: SandboxControl = {
    addFault: (rule) => faults.add(rule),
    listFaults: () => faults.list(),
    clearFaults: () => faults.clear(),
    counters: () => counters.snapshot(),
    reset() {
      counters.reset();
      faults.clear();
      idempotency.reset();
      oauth.reset();
      for (const p of prefixes.values()) p.states.clear();
    },
    expireTokens: (provider) => oauth.expire(provider),
    markPaid(provider, id) {
      const p = prefixes.get(provider);
      if (!p?.model.markPaid) return false;
      // The control API speaks for the operator: the charge is found in whichever tenant's space holds it.
      for (const state of p.states.values()) if (p.model.markPaid(state, id)) return true;
      return false;
    },
  };

  const delay = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  function handleControl(method: string, path: string, body: unknown): Reply {
    const parts = path.split('/').filter(Boolean).slice(1);
    const [what, a, b, c, d] = parts;
    if (what === 'counters' && method === 'GET' && parts.length === 1) return { status: 200, body: control.counters() };
    if (what === 'reset' && method === 'POST' && parts.length === 1) {
      control.reset();
      return { status: 200, body: { reset: true } };
    }
    if (what === 'faults' && parts.length === 1) {
      if (method === 'GET') return { status: 200, body: { faults: faults.list() } };
      if (method === 'DELETE') {
        faults.clear();
        return { status: 200, body: { faults: [] } };
      }
      if (method === 'POST') {
        const rule = parseFaultRule(body, [...prefixes.keys()]);
        return typeof rule === 'string'
          ? controlError(400, 'invalid_fault', rule)
          : { status: 201, body: faults.add(rule) };
      }
    }
    if (what === 'faults' && parts.length === 2 && method === 'DELETE') {
      return faults.remove(a!)
        ? { status: 200, body: { removed: a } }
        : controlError(404, 'not_found', 'no such fault');
    }
    if (what === 'tokens' && a === 'expire' && parts.length === 2 && method === 'POST') {
      const provider = isObject(body) && typeof body.provider === 'string' ? body.provider : undefined;
      return { status: 200, body: { expired: oauth.expire(provider) } };
    }
    // POST /_control/providers/<provider>/payments/<id>/pay
    if (what === 'providers' && method === 'GET' && parts.length === 1) {
      const list = [...prefixes.values()].map((p) => ({
        id: p.id,
        kind: p.config.kind,
        auth_type: p.config.auth.type,
        routes: p.model.routes.map((r) => `${r.method} ${r.path} ${r.name}`),
      }));
      return { status: 200, body: { providers: list } };
    }
    if (what === 'providers' && b === 'payments' && d === 'pay' && parts.length === 5 && method === 'POST') {
      return control.markPaid(a!, c!)
        ? { status: 200, body: { paid: c } }
        : controlError(404, 'not_found', 'no such payment');
    }
    return controlError(404, 'not_found', 'unknown control route');
  }

  async function handle(req: IncomingMessage, res: ServerResponse, base: string): Promise<void> {
    const started = Date.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    const line: Record<string, unknown> = { level: 'info', msg: 'request', method, path };
    const finish = (reply: Reply): void => {
      send(res, reply);
      log({ time: new Date().toISOString(), ...line, status: reply.status, duration_ms: Date.now() - started });
    };

    let rawBody: Buffer;
    try {
      rawBody = await readBody(req);
    } catch (err) {
      res.setHeader('connection', 'close');
      return finish(
        err instanceof BodyTooLarge
          ? controlError(413, 'payload_too_large', 'body over 1 MiB')
          : controlError(400, 'bad_request', 'unreadable body'),
      );
    }

    if (path === '/health') return finish({ status: 200, body: { status: 'ok' } });

    const id = path.split('/')[1] ?? '';
    const prefix = prefixes.get(id);
    // `/_control` is not served here: the control API has a listener of its own.
    if (!prefix) return finish(controlError(404, 'not_found', `no provider is served at /${id}`));
    line.provider = prefix.id;
    const tenant = header(req, SANDBOX_TENANT_HEADER) ?? '';
    if (tenant !== '' && !TENANT_TAG.test(tenant))
      return finish(controlError(400, 'bad_request', `${SANDBOX_TENANT_HEADER} must be 1..128 of A-Z a-z 0-9 . _ -`));
    // Idempotency keys live in the tenant's space too: one tenant's key never replays another's answer.
    const space = tenant === '' ? prefix.id : `${prefix.id}\u0001${tenant}`;
    const rest = path.slice(id.length + 1) || '/';
    const hidden = secretQueryParams(prefix.config.auth);
    const safeQuery = new URLSearchParams([...url.searchParams.entries()].filter(([k]) => !hidden.includes(k)));
    const relativeTarget = rest + url.search;
    const { model } = prefix;
    const auth = prefix.config.auth;

    const oauthRoute =
      auth.type === 'oauth2'
        ? rest === (model.oauthTokenPath ?? '/oauth/token') && method === 'POST'
          ? 'oauth_token'
          : rest === '/oauth/authorize' && method === 'GET'
            ? 'oauth_authorize'
            : undefined
        : undefined;
    const matched = oauthRoute ? undefined : match(prefix.routes, method, rest);
    const routeName = oauthRoute ?? matched?.route.name ?? 'unknown_route';
    line.route = routeName;
    counters.request(prefix.id, routeName);

    // Faults come first: an outage does not look at credentials.
    const fault = faults.take(prefix.id, routeName);
    let hang = false;
    if (fault) {
      line.fault = fault.mode;
      counters.fault(prefix.id, fault.mode);
      switch (fault.mode) {
        case 'refuse':
          log({ time: new Date().toISOString(), ...line, status: null });
          req.socket.resetAndDestroy();
          return;
        case '5xx':
          return finish(model.error(fault.status ?? 500, 'internal_error', 'Sandbox: injected server error.'));
        case '429': {
          const r = model.error(429, 'too_many_requests', 'Too many requests.');
          return finish({ ...r, headers: { ...r.headers, 'retry-after': String(fault.retry_after ?? 1) } });
        }
        case 'slow':
          await delay(fault.delay_ms ?? 2000);
          break;
        case 'timeout_after_accept':
          if (fault.commit === false) {
            log({ time: new Date().toISOString(), ...line, status: null });
            return;
          }
          hang = true;
          break;
      }
    }
    const reply = (r: Reply): void => {
      if (!hang) return finish(r);
      log({ time: new Date().toISOString(), ...line, status: null, withheld_status: r.status });
    };

    const authReq: AuthRequest = {
      provider: prefix.id,
      method,
      target: path + url.search,
      relativeTarget,
      headers: req.headers,
      query: url.searchParams,
      rawBody,
      socket: req.socket,
    };
    if (oauthRoute === 'oauth_authorize' && auth.type === 'oauth2')
      return reply(oauth.authorize(prefix.id, auth, url.searchParams));
    if (oauthRoute === 'oauth_token' && auth.type === 'oauth2') {
      counters.tokenRequest(prefix.id);
      const parsed = parseBody(rawBody, header(req, 'content-type'));
      const form = parsed.ok && isObject(parsed.value) ? parsed.value : {};
      return reply(oauth.token(prefix.id, auth, req.headers, form));
    }

    counters.credentials(prefix.id, maskedCredentials(auth, authReq));
    const verdict = verifyAuth(auth, authReq, oauth, Date.now());
    if (!verdict.ok) {
      counters.authFailure(prefix.id);
      line.auth_failure = verdict.reason;
      const r = model.unauthorized(verdict.status);
      return reply({ ...r, headers: { ...r.headers, 'x-sandbox-auth-failure': verdict.reason } });
    }
    if (!matched) return reply(model.error(404, 'not_found', `No route ${method} ${rest}.`));

    const parsed = parseBody(rawBody, header(req, 'content-type'));
    if (!parsed.ok) return reply(model.error(400, 'invalid_json', 'The request body is not valid JSON.'));

    const idemHeader = prefix.config.idempotency_header ?? model.idempotencyHeader;
    const key =
      method === 'GET'
        ? undefined
        : (header(req, idemHeader) ?? matched.route.naturalKey?.({ query: url.searchParams, body: parsed.value }));
    const print = fingerprint(method, relativeTarget, rawBody);
    if (key !== undefined) {
      counters.idempotencyKey(prefix.id, key);
      const decision: IdempotencyDecision = options.ignoreIdempotencyKeys
        ? { kind: 'new' }
        : idempotency.begin(space, key, print);
      switch (decision.kind) {
        case 'replay':
          counters.replay();
          line.idempotent_replay = true;
          return reply({ ...decision.reply, headers: { ...decision.reply.headers, 'idempotent-replayed': 'true' } });
        case 'conflict':
          counters.conflict();
          return reply(
            model.error(
              model.conflictStatus,
              'idempotency_key_reused',
              'This idempotency key was already used with a different request.',
            ),
          );
        case 'in_progress':
          return reply(
            model.error(409, 'request_in_progress', 'A request with this idempotency key is still being processed.'),
          );
        case 'new':
          break;
      }
    }

    let result: Reply;
    try {
      result = matched.route.handle({
        params: matched.params,
        query: safeQuery,
        body: parsed.value,
        headers: req.headers,
        state: stateOf(prefix, tenant),
        baseUrl: `${base}/${prefix.id}`,
        created: (resource: string) => counters.created(prefix.id, resource),
        idempotentReply: (k: string) => idempotency.find(space, k),
      });
    } catch (err) {
      log({
        time: new Date().toISOString(),
        level: 'error',
        msg: 'route failed',
        provider: prefix.id,
        route: routeName,
        error: (err as Error).message,
      });
      result = model.error(500, 'internal_error', 'Internal error.');
    }
    // Only a request that did its work keeps its key: a refusal leaves the
    // caller free to fix the request and send it again under the same key.
    if (key !== undefined) {
      if (result.status >= 200 && result.status < 300) idempotency.complete(space, key, print, result);
      else if (!options.ignoreIdempotencyKeys) idempotency.abandon(space, key);
    }
    return reply(result);
  }

  const listeners: Listener[] = [];
  const listen = async (server: Server, port: number, scheme: 'http' | 'https'): Promise<Listener> => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const addr = server.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    const listener = {
      server,
      base: `${scheme}://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${addr.port}`,
    };
    listeners.push(listener);
    return listener;
  };
  const onRequest = (base: () => string) => (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res, base()).catch((err: unknown) => {
      log({ time: new Date().toISOString(), level: 'error', msg: 'request failed', error: (err as Error).message });
      send(res, controlError(500, 'internal_error', 'internal error'));
    });
  };

  const controlOptions = options.control === false ? null : (options.control ?? {});
  const controlToken =
    controlOptions?.token ?? process.env.SANDBOX_CONTROL_TOKEN ?? randomBytes(24).toString('base64url');
  const tokenOk = (req: IncomingMessage): boolean => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '');
    const given = Buffer.from(m?.[1] ?? '');
    const want = Buffer.from(controlToken);
    return given.length === want.length && timingSafeEqual(given, want);
  };
  /** The control API: its own listener, and a bearer token on every request. */
  async function handleControlRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
    const finish = (reply: Reply): void => {
      send(res, reply);
      log({
        time: new Date().toISOString(),
        level: 'info',
        msg: 'control request',
        method,
        path,
        status: reply.status,
      });
    };
    if (path === '/health') return finish({ status: 200, body: { status: 'ok' } });
    if (!tokenOk(req))
      return finish({
        ...controlError(401, 'unauthorized', 'the control API needs its bearer token'),
        headers: { 'www-authenticate': 'Bearer' },
      });
    if (path !== '/_control' && !path.startsWith('/_control/'))
      return finish(controlError(404, 'not_found', 'unknown control route'));
    let rawBody: Buffer;
    try {
      rawBody = await readBody(req);
    } catch (err) {
      res.setHeader('connection', 'close');
      return finish(
        err instanceof BodyTooLarge
          ? controlError(413, 'payload_too_large', 'body over 1 MiB')
          : controlError(400, 'bad_request', 'unreadable body'),
      );
    }
    const parsed = parseBody(rawBody, header(req, 'content-type'));
    return finish(
      parsed.ok ? handleControl(method, path, parsed.value) : controlError(400, 'invalid_json', 'body is not JSON'),
    );
  }

  let httpBase = '';
  const http = await listen(createServer(onRequest(() => httpBase)), options.port ?? 0, 'http');
  httpBase = http.base;
  const controlListener = controlOptions
    ? await listen(
        createServer((req, res) => {
          handleControlRequest(req, res).catch((err: unknown) => {
            log({
              time: new Date().toISOString(),
              level: 'error',
              msg: 'control request failed',
              error: (err as Error).message,
            });
            send(res, controlError(500, 'internal_error', 'internal error'));
          });
        }),
        controlOptions.port ?? 0,
        'http',
      )
    : null;
  let tlsUrl: string | undefined;
  if (options.tls) {
    let tlsBase = '';
    // The certificate is asked for but not enforced at the handshake, so a
    // prefix that needs none still answers on this listener and one that
    // does answers 403 in its provider's shape.
    const server = createTlsServer(
      {
        cert: options.tls.cert,
        key: options.tls.key,
        ca: options.tls.ca,
        requestCert: true,
        rejectUnauthorized: false,
      },
      onRequest(() => tlsBase),
    );
    const tls = await listen(server as unknown as Server, options.tls.port ?? 0, 'https');
    tlsBase = tls.base;
    tlsUrl = tls.base.replace(/^http:/, 'https:');
  }

  return {
    url: httpBase,
    ...(tlsUrl ? { tlsUrl } : {}),
    ...(controlListener ? { controlUrl: controlListener.base, controlToken } : {}),
    config,
    control,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all(
        listeners.map(
          (l) =>
            new Promise<void>((resolve) => {
              l.server.close(() => resolve());
              // Hanging requests are held on purpose; closing drops them.
              l.server.closeAllConnections();
            }),
        ),
      );
    },
  };
}
