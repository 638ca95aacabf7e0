import { ASAAS_SANDBOX_CUSTOMER, startSandbox, type Sandbox } from '../apps/sandbox/src';
import Redis from 'ioredis';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(120_000);

const ASAAS_KEY = 'sandbox-asaas-key';
const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;

/**
 * Raw catalog tools and proxyExecute against the sandbox provider server, in
 * the test environment, with the demo catalog's test base URLs pointing at it.
 */
describe('calling providers: raw tools and proxyExecute', () => {
  let sandbox: Sandbox;
  let stack: Stack;
  let key: string;
  let session: string;
  const bodies: string[] = [];

  const api = async (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) => {
    const r = await http(`${stack.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...headers },
      json,
    });
    bodies.push(r.text);
    return r;
  };
  const execute = (tool: string, input: Record<string, unknown>, headers: Record<string, string> = {}) =>
    api('POST', `/v1/sessions/${session}/execute`, { tool, input }, headers);
  const proxy = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    api('POST', `/v1/sessions/${session}/proxy`, body, headers);
  const charges = () => sandbox.control.counters().charges_created;
  const payment = (extra: Record<string, unknown> = {}) => ({
    customer: ASAAS_SANDBOX_CUSTOMER,
    billingType: 'PIX',
    value: 49.9,
    dueDate: '2026-12-10',
    ...extra,
  });

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
    stack = await startStack({
      demoCatalog: true,
      env: {
        ROTA_SANDBOX_URL: sandbox.url,
        ROTA_PROVIDER_TIMEOUT_MS: '1500',
        ROTA_RPC_TIMEOUT_MS: '8000',
        ROTA_LOCAL_EMBEDDER: 'hash',
      },
    });
    key = (await stack.key([...SCOPES], { environment: 'test' })).key;
    const c = await api('POST', '/v1/connections', { server_id: 'asaas', credentials: { api_key: ASAAS_KEY } });
    expect(c.status).toBe(201);
    const s = await api('POST', '/v1/sessions', { servers: ['asaas', 'mercadopago'] });
    expect(s.status).toBe(201);
    session = s.json.id;
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
  });

  it('creates a Pix charge through a raw tool: one request, the credential injected, the call row complete', async () => {
    const before = charges();
    const r = await execute('asaas/create_payment', payment(), { 'idempotency-key': 'charge-1' });
    expect({ status: r.status, error: r.json?.error }).toEqual({ status: 200, error: null });
    expect(r.json).toMatchObject({
      success: true,
      server: 'asaas',
      tool: 'asaas/create_payment',
      data: { status: 200, body: { billingType: 'PIX', status: 'PENDING' } },
    });
    expect(charges()).toBe(before + 1);
    expect(sandbox.control.counters().last_credentials.asaas).toBeDefined();
    const row = await stack.db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id: r.json.tool_call_id } });
    expect(row).toMatchObject({ state: 'done', success: true, upstreamStatus: 200, attempts: 1, server: 'asaas' });
    expect(row.providerIdempotencyKey).toMatch(/^rota-/);
    expect(sandbox.control.counters().last_idempotency_key.asaas).toBe(row.providerIdempotencyKey);
  });

  it('replays the same Idempotency-Key without a second charge', async () => {
    const before = charges();
    const r = await execute('asaas/create_payment', payment(), { 'idempotency-key': 'charge-1' });
    expect(r.status).toBe(200);
    expect(r.headers.get('idempotent-replayed')).toBe('true');
    expect(charges()).toBe(before);
  });

  it('spells raw tools three ways', async () => {
    const created = await execute('asaas/create_payment', payment({ externalReference: 'spell' }));
    const id = created.json.data.body.id as string;
    for (const name of ['asaas/get_payment', 'asaas.get_payment', 'ASAAS_GET_PAYMENT']) {
      const r = await execute(name, { id });
      expect({ name, success: r.json.success, id: r.json.data?.body?.id }).toEqual({ name, success: true, id });
    }
  });

  it('returns an upstream non-2xx as success: false with the provider status and body', async () => {
    const r = await execute('asaas/get_payment', { id: 'pay_does_not_exist' });
    expect(r.status).toBe(200);
    expect(r.json.success).toBe(false);
    expect(r.json.data).toMatchObject({ code: 'upstream_error', status: 404 });
  });

  it('answers connection_required and sends nothing when the provider is not connected', async () => {
    const before = sandbox.control.counters().requests_total;
    const r = await execute('mercadopago/create_payment', {
      transaction_amount: 10,
      payment_method_id: 'pix',
      payer: { email: 'a@b.co' },
    });
    expect(r.json).toMatchObject({ success: false, data: { code: 'connection_required' } });
    expect(sandbox.control.counters().requests_total).toBe(before);
  });

  it('reports outcome_unknown when the provider accepts and never answers, and a retry with the key does not charge again', async () => {
    sandbox.control.addFault({ provider: 'asaas', route: 'create_payment', mode: 'timeout_after_accept', times: 1 });
    const before = charges();
    const r = await execute('asaas/create_payment', payment({ externalReference: 'lost' }), {
      'idempotency-key': 'charge-lost',
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ success: false, data: { code: 'outcome_unknown' } });
    expect(charges()).toBe(before + 1);
    const row = await stack.db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id: r.json.tool_call_id } });
    expect(row.state).toBe('outcome_unknown');
    const again = await execute('asaas/create_payment', payment({ externalReference: 'lost' }), {
      'idempotency-key': 'charge-lost',
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data.code).toBe('outcome_unknown');
    expect(charges()).toBe(before + 1);
  });

  it("gets an OAuth2 token from the environment's token endpoint once and reuses it", async () => {
    const c = await api('POST', '/v1/connections', {
      server_id: 'mercadopago',
      credentials: { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' },
    });
    expect(c.status).toBe(201);
    const body = {
      transaction_amount: 25.5,
      payment_method_id: 'pix',
      description: 'order 77',
      payer: { email: 'buyer@example.com' },
    };
    for (let i = 0; i < 3; i++) {
      const r = await execute('mercadopago/create_payment', body);
      expect({ i, success: r.json.success, data: r.json.success ? undefined : r.json.data }).toEqual({
        i,
        success: true,
        data: undefined,
      });
    }
    expect(sandbox.control.counters().token_requests.mercadopago).toBe(1);
    await api('DELETE', `/v1/connections/${c.json.id}`);
  });

  it('proxies raw HTTP and returns the upstream status as data', async () => {
    const created = await execute('asaas/create_payment', payment({ externalReference: 'proxy' }));
    const id = created.json.data.body.id as string;
    const r = await proxy({ server: 'asaas', endpoint: `/v3/payments/${id}`, method: 'GET' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: 200, data: { id }, proxy_call_id: expect.stringMatching(/^tc_/) });
    expect(r.json.headers['content-type']).toContain('application/json');
    const missing = await proxy({ server: 'asaas', endpoint: '/v3/payments/pay_nope', method: 'GET' });
    expect(missing.status).toBe(200);
    expect(missing.json.status).toBe(404);
  });

  it("refuses Rota's own refusals with their codes, sending nothing", async () => {
    const before = sandbox.control.counters().requests_total;
    for (const endpoint of [
      'https://evil.example/x',
      '//evil.example/x',
      '/../admin',
      '/v3/%2e%2e/admin',
      '/v3/%252e%252e/admin',
      'v3/payments',
    ]) {
      const r = await proxy({ server: 'asaas', endpoint, method: 'GET' });
      expect({ endpoint, status: r.status, error: r.json.error }).toEqual({
        endpoint,
        status: 400,
        error: 'invalid_endpoint',
      });
    }
    for (const name of ['Authorization', 'cookie', 'access_token', 'Proxy-Authorization']) {
      const r = await proxy({ server: 'asaas', endpoint: '/v3/payments', method: 'GET', headers: { [name]: 'x' } });
      expect({ name, status: r.status, error: r.json.error }).toEqual({ name, status: 400, error: 'forbidden_header' });
    }
    const outside = await proxy({ server: 'stripe', endpoint: '/v1/charges', method: 'GET' });
    expect(outside.status).toBe(400);
    expect(outside.json.error).toBe('server_not_in_session');
    const unconnected = await proxy({ server: 'mercadopago', endpoint: '/v1/payments/1', method: 'GET' });
    expect(unconnected.status).toBe(409);
    expect(unconnected.json.error).toBe('connection_required');
    expect(sandbox.control.counters().requests_total).toBe(before);
  });

  it('keeps the credentials out of every response, call row, idempotency record and Redis value', async () => {
    const secrets = [ASAAS_KEY, 'sandbox-mp-secret'];
    expect(bodies.filter((b) => secrets.some((x) => b.includes(x)))).toEqual([]);
    const redis = new Redis(stack.env.REDIS_URL || 'redis://127.0.0.1:6379');
    try {
      const keys = await redis.keys(`${stack.env.ROTA_REDIS_PREFIX}*`);
      expect(keys.some((k) => k.includes('oauth2'))).toBe(true);
      for (const k of keys) {
        const type = await redis.type(k);
        const value =
          type === 'string'
            ? ((await redis.getBuffer(k)) ?? Buffer.alloc(0))
            : type === 'hash'
              ? Buffer.from(JSON.stringify(await redis.hgetall(k)))
              : Buffer.alloc(0);
        expect({ k, leaked: secrets.some((x) => value.includes(x)) }).toEqual({ k, leaked: false });
      }
    } finally {
      redis.disconnect();
    }
    const rows = await stack.db.prisma.$queryRawUnsafe<Array<{ t: string }>>(
      `SELECT row_to_json(c)::text AS t FROM session_tool_calls c UNION ALL SELECT row_to_json(k)::text FROM idempotency_keys k`,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => secrets.some((x) => r.t.includes(x)))).toEqual([]);
  });
});
