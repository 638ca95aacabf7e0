import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorFromResponse, Rota, RotaError } from './index';

/**
 * A gateway stand-in on 127.0.0.1: each request is recorded and answered by
 * the next scripted reply for its path. It speaks the documented wire shapes
 * for what the real gateway cannot be made to do on demand (a 503 after the
 * call may have run, a policy refusal, a proxied provider answer).
 */
interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}
type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

async function fakeGateway(script: Record<string, Reply[]>) {
  const requests: Recorded[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const path = req.url ?? '/';
      requests.push({ method: req.method ?? '', path, headers: req.headers, body: raw ? JSON.parse(raw) : undefined });
      const reply = script[path]?.shift() ?? {
        status: 404,
        body: { error: 'not_found', message: 'nothing scripted', request_id: 'req_fake' },
      };
      res.writeHead(reply.status, { 'content-type': 'application/json', 'x-request-id': 'req_hdr', ...reply.headers });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const SESSION = {
  id: 'ses_abc',
  user_id: 'user_1',
  servers: ['asaas'],
  status: 'active',
  environment: 'live',
  created_at: '2026-12-01T00:00:00.000Z',
  mcp: { url: 'http://gw/v1/sessions/ses_abc/mcp', transport: 'streamable-http' },
};
const OK_RESULT = {
  success: true,
  data: { ok: 1 },
  error: null,
  duration: 3,
  server: null,
  tool: 'codespar_get_started',
  tool_call_id: 'call_1',
  called_at: '2026-12-01T00:00:01.000Z',
};

describe('errorFromResponse', () => {
  it('takes the envelope error as the code and keeps the request id', () => {
    const e = errorFromResponse(409, { error: 'session_not_active', message: 'closed', request_id: 'req_1' });
    expect(e).toMatchObject({ status: 409, code: 'session_not_active', message: 'closed', requestId: 'req_1' });
  });

  it('reads the raw 401 body and a bodiless 401 as unauthorized', () => {
    expect(errorFromResponse(401, { error: 'unauthorized' }).code).toBe('unauthorized');
    expect(errorFromResponse(401, undefined).code).toBe('unauthorized');
  });

  it('names a policy refusal policy_denied and keeps its rule and approval', () => {
    const e = errorFromResponse(403, {
      reason: 'amount above the daily cap',
      ruleType: 'amount_cap',
      ruleId: 'rule_9',
      approval_id: 'appr_1',
      expires_at: '2026-12-01T00:10:00.000Z',
    });
    expect(e).toMatchObject({ status: 403, code: 'policy_denied', message: 'amount above the daily cap' });
    expect(e.policy).toEqual({
      reason: 'amount above the daily cap',
      ruleType: 'amount_cap',
      ruleId: 'rule_9',
      approval_id: 'appr_1',
      expires_at: '2026-12-01T00:10:00.000Z',
    });
  });

  it('uses the code of a {code} body, and http_<status> when the body says nothing', () => {
    expect(errorFromResponse(400, { code: 'invalid_args', message: 'use_case is required' })).toMatchObject({
      code: 'invalid_args',
      message: 'use_case is required',
    });
    expect(errorFromResponse(502, '<html>bad gateway</html>', new Headers({ 'x-request-id': 'req_h' }))).toMatchObject({
      code: 'http_502',
      requestId: 'req_h',
    });
  });
});

describe('Rota against a scripted gateway', () => {
  let gw: Awaited<ReturnType<typeof fakeGateway>>;
  afterEach(() => gw?.close());

  const sessionOn = async (script: Record<string, Reply[]>, retries = 2) => {
    gw = await fakeGateway({ '/v1/sessions': [{ status: 201, body: SESSION }], ...script });
    const rota = new Rota({ apiKey: 'csk_live_test', baseUrl: gw.url, retries });
    return rota.sessions.create('user_1', { servers: ['asaas'] });
  };

  it('execute sends a fresh Idempotency-Key per call, a given one as is', async () => {
    const s = await sessionOn({
      '/v1/sessions/ses_abc/execute': [
        { status: 200, body: OK_RESULT },
        { status: 200, body: OK_RESULT },
        { status: 200, body: OK_RESULT, headers: { 'idempotent-replayed': 'true' } },
      ],
    });
    const a = await s.execute('codespar_get_started');
    const b = await s.execute('codespar_get_started');
    const c = await s.execute('codespar_get_started', {}, { idempotencyKey: 'order-42' });
    const keys = gw.requests.filter((r) => r.path.endsWith('/execute')).map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('order-42');
    expect([a.idempotencyKey, b.idempotencyKey, c.idempotencyKey]).toEqual(keys);
    expect(a).toMatchObject({ success: true, status: 200, code: null, replayed: false });
    expect(c.replayed).toBe(true);
  });

  it.each(['unavailable', 'outcome_unknown'])(
    'execute retries a 503 %s with the same key and returns the answer',
    async (code) => {
      const s = await sessionOn({
        '/v1/sessions/ses_abc/execute': [
          { status: 503, body: { error: code, message: 'try again', request_id: 'req_a' } },
          { status: 200, body: OK_RESULT },
        ],
      });
      const r = await s.execute('codespar_get_started', { x: 1 });
      const calls = gw.requests.filter((q) => q.path.endsWith('/execute'));
      expect(calls).toHaveLength(2);
      expect(calls[1]!.headers['idempotency-key']).toBe(calls[0]!.headers['idempotency-key']);
      expect(calls[1]!.body).toEqual(calls[0]!.body);
      expect(r).toMatchObject({ success: true, status: 200 });
    },
  );

  it('execute gives up after its retries and answers the last refusal as data', async () => {
    const busy = { status: 503, body: { error: 'outcome_unknown', message: 'may have run', request_id: 'req_b' } };
    const s = await sessionOn({ '/v1/sessions/ses_abc/execute': [busy, busy] }, 1);
    const r = await s.execute('codespar_pay', { amount: 1 });
    expect(r).toMatchObject({
      success: false,
      status: 503,
      code: 'outcome_unknown',
      requestId: 'req_b',
      error: 'may have run',
    });
    expect(gw.requests.filter((q) => q.path.endsWith('/execute'))).toHaveLength(2);
  });

  it('execute never retries a plain refusal and never throws on one', async () => {
    const s = await sessionOn({
      '/v1/sessions/ses_abc/execute': [
        { status: 403, body: { reason: 'blocked by rule', ruleType: 'provider_block', ruleId: 'rule_1' } },
        {
          status: 200,
          body: {
            ...OK_RESULT,
            success: false,
            data: { code: 'invalid_args', message: 'use_case is required' },
            error: 'invalid_args',
          },
        },
      ],
    });
    await expect(s.execute('codespar_pay', {})).resolves.toMatchObject({
      success: false,
      status: 403,
      code: 'policy_denied',
    });
    await expect(s.execute('codespar_discover', {})).resolves.toMatchObject({
      success: false,
      status: 200,
      code: 'invalid_args',
    });
    expect(gw.requests.filter((q) => q.path.endsWith('/execute'))).toHaveLength(2);
  });

  it('execute sends Rota-Approval-Id when given, and keeps a refusal’s approval on data', async () => {
    const opened = {
      reason: 'needs an approval',
      ruleType: 'approval_above',
      ruleId: 'pr_1',
      approval_id: 'apr_1',
      expires_at: '2026-12-01T00:10:00.000Z',
    };
    const s = await sessionOn({
      '/v1/sessions/ses_abc/execute': [
        { status: 403, body: opened },
        { status: 200, body: OK_RESULT },
      ],
    });
    const refused = await s.execute('codespar_pay', { amount: 5000 });
    expect(refused).toMatchObject({
      success: false,
      status: 403,
      code: 'policy_denied',
      data: { approval_id: 'apr_1' },
    });
    const passed = await s.execute('codespar_pay', { amount: 5000 }, { approvalId: 'apr_1' });
    expect(passed.success).toBe(true);
    const sent = gw.requests.filter((q) => q.path.endsWith('/execute')).map((q) => q.headers['rota-approval-id']);
    expect(sent).toEqual([undefined, 'apr_1']);
  });

  it('execute resends a call whose connection failed with the same key, a bounded number of times, then throws status 0 with it', async () => {
    gw = await fakeGateway({ '/v1/sessions': [{ status: 201, body: SESSION }] });
    const keys: Array<string | null> = [];
    // The connection drops once the request is out: the call may have run, so only the same key may go again.
    const dropping: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/execute')) {
        keys.push(new Headers(init?.headers).get('idempotency-key'));
        throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      }
      return fetch(input, init);
    };
    const rota = new Rota({ apiKey: 'csk_live_test', baseUrl: gw.url, retries: 2, fetch: dropping });
    const s = await rota.sessions.create('user_1', { servers: ['asaas'] });
    const err = await s.execute('codespar_pay', { amount: 1 }, { idempotencyKey: 'order-7' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RotaError);
    expect(err).toMatchObject({ status: 0, code: 'network_error', idempotencyKey: 'order-7' });
    expect(keys).toEqual(['order-7', 'order-7', 'order-7']);
  });

  it('execute does not resend after a timeout: the call may still be running', async () => {
    gw = await fakeGateway({ '/v1/sessions': [{ status: 201, body: SESSION }] });
    let executes = 0;
    const slow: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/execute')) {
        executes++;
        throw Object.assign(new Error('timed out'), { name: 'TimeoutError' });
      }
      return fetch(input, init);
    };
    const rota = new Rota({ apiKey: 'csk_live_test', baseUrl: gw.url, retries: 2, fetch: slow });
    const s = await rota.sessions.create('user_1', { servers: ['asaas'] });
    const err = await s.execute('codespar_pay', { amount: 1 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 0, code: 'timeout', idempotencyKey: expect.any(String) });
    expect(executes).toBe(1);
  });

  it('discover throws a RotaError carrying the tool’s code', async () => {
    const s = await sessionOn({
      '/v1/sessions/ses_abc/execute': [
        {
          status: 200,
          body: {
            ...OK_RESULT,
            tool: 'codespar_discover',
            success: false,
            data: { code: 'invalid_args', message: 'use_case must not be empty' },
            error: 'invalid_args',
          },
        },
      ],
    });
    const err = await s.discover('  ').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RotaError);
    expect(err).toMatchObject({ status: 200, code: 'invalid_args', message: 'use_case must not be empty' });
    expect(gw.requests.at(-1)!.body).toEqual({ tool: 'codespar_discover', input: { use_case: '  ' } });
  });

  it('proxyExecute sends the documented request and returns a provider error as data', async () => {
    const upstream = {
      status: 401,
      data: { errors: [{ code: 'invalid_access_token' }] },
      headers: { 'content-type': 'application/json' },
      duration: 41,
      proxy_call_id: 'pxy_1',
    };
    const s = await sessionOn({ '/v1/sessions/ses_abc/proxy': [{ status: 200, body: upstream }] });
    const request = {
      server: 'asaas',
      endpoint: '/v3/payments',
      method: 'POST' as const,
      body: { value: 10 },
      params: { dry: true },
      headers: { 'x-trace': '1' },
    };
    await expect(s.proxyExecute(request, { idempotencyKey: 'px-1' })).resolves.toEqual(upstream);
    const sent = gw.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/sessions/ses_abc/proxy', body: request });
    expect(sent.headers).toMatchObject({ authorization: 'Bearer csk_live_test', 'idempotency-key': 'px-1' });
  });

  it('proxyExecute throws on Rota’s own refusal', async () => {
    const s = await sessionOn({
      '/v1/sessions/ses_abc/proxy': [
        { status: 409, body: { error: 'session_not_active', message: 'closed', request_id: 'req_c' } },
      ],
    });
    await expect(s.proxyExecute({ server: 'asaas', endpoint: '/v3/payments', method: 'GET' })).rejects.toMatchObject({
      status: 409,
      code: 'session_not_active',
      requestId: 'req_c',
    });
  });

  it('mcp carries the session URL and the key', async () => {
    const s = await sessionOn({});
    expect(s.mcp).toEqual({ url: SESSION.mcp.url, headers: { Authorization: 'Bearer csk_live_test' } });
  });

  it('turns a refused connection into a network_error RotaError with status 0', async () => {
    gw = await fakeGateway({});
    const url = gw.url;
    await gw.close();
    const rota = new Rota({ apiKey: 'k', baseUrl: url, retries: 0 });
    await expect(rota.metaTools.list()).rejects.toMatchObject({ name: 'RotaError', status: 0, code: 'network_error' });
    gw = await fakeGateway({});
  });

  it('api methods answer the 2xx body and throw RotaError otherwise', async () => {
    gw = await fakeGateway({
      '/v1/sessions/ses_abc': [
        { status: 200, body: { ...SESSION, metadata: null, last_active_at: 'x', expires_at: null, closed_at: null } },
        { status: 404, body: { error: 'session_not_found', message: 'No session with this id.', request_id: 'req_d' } },
      ],
    });
    const rota = new Rota({ apiKey: 'k', baseUrl: gw.url });
    const s = await rota.api.get('/v1/sessions/{id}', { params: { path: { id: 'ses_abc' } } });
    expect(s.id).toBe('ses_abc');
    await expect(rota.api.get('/v1/sessions/{id}', { params: { path: { id: 'ses_abc' } } })).rejects.toMatchObject({
      status: 404,
      code: 'session_not_found',
      requestId: 'req_d',
    });
  });

  const VIEW = { ...SESSION, metadata: null, last_active_at: 'x', expires_at: null, closed_at: null };
  const unavailable = {
    status: 503,
    body: { error: 'unavailable', message: 'no replica answered', request_id: 'req_u' },
  };

  it('api.get retries a 503 unavailable and a lost connection, as the named reads do', async () => {
    gw = await fakeGateway({ '/v1/sessions/ses_abc': [unavailable, { status: 200, body: VIEW }] });
    let dropped = 0;
    // The first request finds no gateway listening; the next ones reach the scripted one.
    const flaky: typeof fetch = async (input, init) => {
      if (dropped++ === 0) throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
      return fetch(input, init);
    };
    const rota = new Rota({ apiKey: 'k', baseUrl: gw.url, retries: 2, fetch: flaky });
    const s = await rota.api.get('/v1/sessions/{id}', { params: { path: { id: 'ses_abc' } } });
    expect(s.id).toBe('ses_abc');
    expect(dropped).toBe(3);
    expect(gw.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
  });

  it('api.get gives up after its retries with the last refusal', async () => {
    gw = await fakeGateway({ '/v1/sessions/ses_abc': [unavailable, unavailable, { status: 200, body: VIEW }] });
    const rota = new Rota({ apiKey: 'k', baseUrl: gw.url, retries: 1 });
    await expect(rota.api.get('/v1/sessions/{id}', { params: { path: { id: 'ses_abc' } } })).rejects.toMatchObject({
      status: 503,
      code: 'unavailable',
    });
    expect(gw.requests).toHaveLength(2);
  });

  it('api writes and other refusals are never retried', async () => {
    gw = await fakeGateway({
      '/v1/sessions': [unavailable, { status: 201, body: SESSION }],
      '/v1/sessions/ses_abc': [
        { status: 504, body: { error: 'upstream_timeout', message: 'slow', request_id: 'req_t' } },
        { status: 200, body: VIEW },
      ],
    });
    const rota = new Rota({ apiKey: 'k', baseUrl: gw.url, retries: 2 });
    await expect(rota.api.post('/v1/sessions', { body: { servers: ['asaas'] } })).rejects.toMatchObject({
      status: 503,
      code: 'unavailable',
    });
    await expect(rota.api.get('/v1/sessions/{id}', { params: { path: { id: 'ses_abc' } } })).rejects.toMatchObject({
      status: 504,
    });
    expect(gw.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/sessions', 'GET /v1/sessions/ses_abc']);
  });
});
