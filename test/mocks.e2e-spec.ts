import { ASAAS_SANDBOX_CUSTOMER, startSandbox, type Sandbox } from '../apps/sandbox/src';
import { Rota, RotaError } from '@rota/sdk';
import { BaseConfig, loadConfig, startService, type StartedService } from '@rota/service-kit';
import { SessionModule } from '../apps/session/src/session.module';
import { SessionConfig } from '../apps/session/src/config';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(120_000);

const ASAAS_KEY = 'sandbox-asaas-key';
const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;
const CHARGE = {
  method: 'pix',
  amount: 49.9,
  currency: 'BRL',
  description: 'Pedido 1001',
  buyer: { name: 'Maria Souza', document: '529.982.247-25', email: 'maria@example.com' },
};

/**
 * Mocks of raw catalog tools in test sessions, against the in-process
 * sandbox provider server: what answers, what is refused, what is written,
 * and that nothing mocked ever reaches the sandbox.
 */
describe('mocks in the test environment', () => {
  let sandbox: Sandbox;
  let stack: Stack;
  let testKey: string;
  let liveKey: string;

  const api = (key: string, method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
    http(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...headers }, json });
  const openSession = async (key: string, servers: string[] = ['asaas']) => {
    const s = await api(key, 'POST', '/v1/sessions', { servers });
    expect(s.status).toBe(201);
    return s.json.id as string;
  };
  const execute = (
    session: string,
    tool: string,
    input: Record<string, unknown>,
    key = testKey,
    headers: Record<string, string> = {},
  ) => api(key, 'POST', `/v1/sessions/${session}/execute`, { tool, input }, headers);
  const mock = (session: string, body: unknown, key = testKey) =>
    api(key, 'POST', `/v1/sessions/${session}/mocks`, body);
  const listMocks = (session: string, key = testKey) => api(key, 'GET', `/v1/sessions/${session}/mocks`);
  const payment = (extra: Record<string, unknown> = {}) => ({
    customer: ASAAS_SANDBOX_CUSTOMER,
    billingType: 'PIX',
    value: 49.9,
    dueDate: '2026-12-10',
    ...extra,
  });
  const sent = () => sandbox.control.counters().requests_total;
  const mockRows = (sessionId?: string) =>
    stack.db.prisma.sessionMock.count(sessionId ? { where: { sessionId } } : undefined);
  const callRows = (sessionId: string) => stack.db.prisma.sessionToolCall.count({ where: { sessionId } });

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
    stack = await startStack({
      demoCatalog: true,
      env: {
        ROTA_SANDBOX_URL: sandbox.url,
        ROTA_PROVIDER_TIMEOUT_MS: '1500',
        ROTA_RPC_TIMEOUT_MS: '15000',
        ROTA_LOCAL_EMBEDDER: 'hash',
        LOG_LEVEL: 'error',
      },
    });
    testKey = (await stack.key([...SCOPES], { environment: 'test' })).key;
    liveKey = (await stack.key([...SCOPES], { environment: 'live' })).key;
    const c = await api(testKey, 'POST', '/v1/connections', {
      server_id: 'asaas',
      credentials: { api_key: ASAAS_KEY },
    });
    expect(c.status).toBe(201);
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
  });

  it('a test session without mocks calls the sandbox as before', async () => {
    const session = await openSession(testKey);
    expect((await listMocks(session)).json).toEqual({ session_id: session, mocks: [] });
    const before = sandbox.control.counters().charges_created;
    const r = await execute(session, 'asaas/create_payment', payment());
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      success: true,
      server: 'asaas',
      data: { status: 200, body: { billingType: 'PIX' } },
    });
    expect(sandbox.control.counters().charges_created).toBe(before + 1);
  });

  it('refuses bad mocks with 400 in the envelope and writes nothing', async () => {
    const session = await openSession(testKey, ['asaas']);
    const bad: Array<[string, unknown]> = [
      ['times 0', { tool: 'asaas/create_payment', response: {}, times: 0 }],
      ['times 1001', { tool: 'asaas/create_payment', response: {}, times: 1001 }],
      ['times 1.5', { tool: 'asaas/create_payment', response: {}, times: 1.5 }],
      ['no response', { tool: 'asaas/create_payment', times: 1 }],
      ['an unknown field', { tool: 'asaas/create_payment', response: {}, times: 1, extra: true }],
      ['an unknown tool', { tool: 'asaas/no_such_tool', response: {}, times: 1 }],
      ['a provider outside the session', { tool: 'mercadopago/create_payment', response: {}, times: 1 }],
      ['a meta-tool that reads', { tool: 'codespar_discover', response: {}, times: 1 }],
      ['the connections meta-tool', { tool: 'codespar_manage_connections', response: {}, times: 1 }],
      ['the list built-in', { tool: 'codespar_list_tools', response: {}, times: 1 }],
    ];
    for (const [label, body] of bad) {
      const r = await mock(session, body);
      expect({
        label,
        status: r.status,
        error: r.json?.error,
        request_id: typeof r.json?.request_id,
        issues: Array.isArray(r.json?.issues),
      }).toEqual({
        label,
        status: 400,
        error: 'invalid_body',
        request_id: 'string',
        issues: true,
      });
    }
    expect(await mockRows(session)).toBe(0);
    expect((await listMocks(session)).json.mocks).toEqual([]);
    expect((await mock('ses_does_not_exist', { tool: 'asaas/create_payment', response: {}, times: 1 })).status).toBe(
      404,
    );
    expect((await listMocks('ses_does_not_exist')).status).toBe(404);
  });

  describe('a test session with mocks', () => {
    let session: string;
    beforeAll(async () => {
      session = await openSession(testKey, ['asaas', 'mercadopago']);
    });

    it('answers two calls from two mocks, in order, then 422 mocks_exhausted; the sandbox sees nothing', async () => {
      // Both aliases name the same tool; the answer names it canonically.
      const first = await mock(session, {
        tool: 'asaas.create_payment',
        response: { id: 'pay_mock_1', status: 'PENDING' },
        times: 1,
      });
      expect(first.status).toBe(201);
      expect(first.json).toEqual({
        id: expect.stringMatching(/^mck_/),
        tool: 'asaas/create_payment',
        times: 1,
        remaining: 1,
      });
      const second = await mock(session, {
        tool: 'ASAAS_CREATE_PAYMENT',
        response: { id: 'pay_mock_2', status: 'RECEIVED' },
      });
      expect(second.json).toMatchObject({ tool: 'asaas/create_payment', times: 1, remaining: 1 });

      const requests = sent();
      const rows = await callRows(session);
      const a = await execute(session, 'asaas/create_payment', payment());
      const b = await execute(session, 'ASAAS_CREATE_PAYMENT', payment());
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(a.json).toMatchObject({
        success: true,
        error: null,
        server: 'asaas',
        tool: 'asaas/create_payment',
        data: { id: 'pay_mock_1', status: 'PENDING' },
      });
      expect(b.json).toMatchObject({ success: true, server: 'asaas', data: { id: 'pay_mock_2', status: 'RECEIVED' } });
      const row = await stack.db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id: a.json.tool_call_id } });
      expect(row).toMatchObject({
        server: 'asaas',
        tool: 'asaas/create_payment',
        success: true,
        state: 'done',
        attempts: 0,
        upstreamStatus: null,
      });
      expect(row.output).toEqual({ id: 'pay_mock_1', status: 'PENDING' });

      const third = await execute(session, 'asaas/create_payment', payment());
      expect(third.status).toBe(422);
      expect(third.json).toMatchObject({
        error: 'mocks_exhausted',
        tool: 'asaas/create_payment',
        message: expect.any(String),
        request_id: expect.any(String),
      });
      expect(sent()).toBe(requests);
      expect(await callRows(session)).toBe(rows + 2);

      const listed = await listMocks(session);
      expect(listed.status).toBe(200);
      expect(listed.json).toEqual({
        session_id: session,
        mocks: [
          { id: first.json.id, tool: 'asaas/create_payment', times: 1, remaining: 0 },
          { id: second.json.id, tool: 'asaas/create_payment', times: 1, remaining: 0 },
        ],
      });
    });

    it('answers 422 tool_not_mocked for a raw tool without a mock, sending and writing nothing', async () => {
      const requests = sent();
      const rows = await callRows(session);
      const r = await execute(session, 'asaas/get_payment', { id: 'pay_x' });
      expect(r.status).toBe(422);
      expect(r.json).toMatchObject({ error: 'tool_not_mocked', tool: 'asaas/get_payment' });
      // Even a provider the project never connected: the mocks answer before the connection is looked at.
      const unconnected = await execute(session, 'mercadopago/create_payment', {
        transaction_amount: 10,
        payment_method_id: 'pix',
        payer: { email: 'a@b.co' },
      });
      expect(unconnected.status).toBe(422);
      expect(unconnected.json.error).toBe('tool_not_mocked');
      expect(sent()).toBe(requests);
      expect(await callRows(session)).toBe(rows);
    });

    it('never answers 422 for a meta-tool', async () => {
      const list = await execute(session, 'codespar_list_tools', {});
      expect(list.status).toBe(200);
      expect(list.json.success).toBe(true);
      const discover = await execute(session, 'codespar_discover', { use_case: 'create a pix charge' });
      expect(discover.status).toBe(200);
      expect(discover.json.success).toBe(true);
      const started = await execute(session, 'codespar_get_started', {});
      expect(started.status).toBe(200);
      // An acting meta-tool with no mock of its own runs on its rails, against the sandbox, in a session full of raw mocks.
      const before = sandbox.control.counters().charges_created;
      const charged = await execute(session, 'codespar_charge', CHARGE);
      expect({ status: charged.status, success: charged.json.success }).toEqual({ status: 200, success: true });
      expect(charged.json.data).toMatchObject({ amount_minor: 4990, currency: 'BRL', method: 'pix' });
      expect(sandbox.control.counters().charges_created).toBe(before + 1);
    });

    it('answers an acting meta-tool from its mock first, then from its rails again, never 422', async () => {
      const charge = { id: 'chg_mocked', status: 'paid', amount_minor: 4990, currency: 'BRL', method: 'pix' };
      const m = await mock(session, { tool: 'codespar_charge', response: charge, times: 1 });
      expect(m.status).toBe(201);
      expect(m.json).toMatchObject({ tool: 'codespar_charge', times: 1, remaining: 1 });

      const requests = sent();
      const mocked = await execute(session, 'codespar_charge', CHARGE);
      expect(mocked.status).toBe(200);
      expect(mocked.json).toMatchObject({
        success: true,
        error: null,
        server: null,
        tool: 'codespar_charge',
        data: charge,
      });
      expect(sent()).toBe(requests);
      const row = await stack.db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id: mocked.json.tool_call_id } });
      expect(row).toMatchObject({ tool: 'codespar_charge', success: true, railId: null });
      expect(row.output).toEqual(charge);

      // Money the rails refuse is refused with a mock too: it is never used up by a bad call.
      const bad = await execute(session, 'codespar_charge', { ...CHARGE, amount: 49.999 });
      expect(bad.status).toBe(200);
      expect(bad.json).toMatchObject({ success: false, data: { code: 'invalid_args' } });

      // Used up: the rails run the next one, and the sandbox creates the charge.
      const before = sandbox.control.counters().charges_created;
      const real = await execute(session, 'codespar_charge', CHARGE);
      expect({ status: real.status, success: real.json.success }).toEqual({ status: 200, success: true });
      expect(real.json.data.id).not.toBe('chg_mocked');
      expect(sandbox.control.counters().charges_created).toBe(before + 1);
      const listed = await listMocks(session);
      expect(listed.json.mocks.find((x: { id: string }) => x.id === m.json.id)).toMatchObject({ remaining: 0 });

      // Raw tools still answer only from their own mocks: a meta-tool mock does not unlock them.
      expect((await execute(session, 'asaas/get_payment', { id: 'pay_x' })).json.error).toBe('tool_not_mocked');
    });

    it('a session with only meta-tool mocks leaves its raw tools to the provider', async () => {
      const only = await openSession(testKey);
      expect((await mock(only, { tool: 'codespar_charge', response: { id: 'chg_only' }, times: 1 })).status).toBe(201);
      const before = sandbox.control.counters().charges_created;
      const raw = await execute(only, 'asaas/create_payment', payment());
      expect(raw.json).toMatchObject({ success: true, server: 'asaas', data: { status: 200 } });
      expect(sandbox.control.counters().charges_created).toBe(before + 1);
    });

    it('replays an Idempotency-Key with the first mocked answer without using another', async () => {
      const m = await mock(session, { tool: 'asaas/get_payment', response: { id: 'pay_read' }, times: 2 });
      expect(m.status).toBe(201);
      const first = await execute(session, 'asaas/get_payment', { id: 'pay_read' }, testKey, {
        'idempotency-key': 'mocked-read-1',
      });
      const again = await execute(session, 'asaas/get_payment', { id: 'pay_read' }, testKey, {
        'idempotency-key': 'mocked-read-1',
      });
      expect(first.json.data).toEqual({ id: 'pay_read' });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.json.tool_call_id).toBe(first.json.tool_call_id);
      const listed = await listMocks(session);
      expect(listed.json.mocks.find((x: { id: string }) => x.id === m.json.id)).toMatchObject({
        times: 2,
        remaining: 1,
      });
    });
  });

  it('works through the SDK: Session.mock, Session.mocks, and the refusals as RotaError', async () => {
    const rota = new Rota({ apiKey: testKey, baseUrl: stack.url });
    const session = await rota.sessions.create('sdk-user', { servers: ['asaas'] });
    const m = await session.mock('asaas/get_payment', { id: 'pay_sdk' }, 1);
    expect(m).toMatchObject({ tool: 'asaas/get_payment', times: 1, remaining: 1 });
    expect((await session.execute('asaas/get_payment', { id: 'pay_sdk' })).data).toEqual({ id: 'pay_sdk' });
    expect((await session.mocks()).mocks).toEqual([{ id: m.id, tool: 'asaas/get_payment', times: 1, remaining: 0 }]);
    // execute hands refusals back as results; the other routes throw.
    expect(await session.execute('asaas/get_payment', { id: 'pay_sdk' })).toMatchObject({
      success: false,
      status: 422,
      code: 'mocks_exhausted',
    });
    const live = await new Rota({ apiKey: liveKey, baseUrl: stack.url }).sessions.create('sdk-user', {
      servers: ['asaas'],
    });
    const refused = await live.mock('asaas/get_payment', {}).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RotaError);
    expect(refused).toMatchObject({ status: 400, code: 'mocks_test_only' });
  });

  it('hands out each answer once across two session replicas', async () => {
    const base = loadConfig(BaseConfig, stack.env);
    const second: StartedService = await startService(
      'session',
      SessionModule.forConfig(loadConfig(SessionConfig, stack.env)),
      base,
    );
    try {
      const session = await openSession(testKey);
      expect((await mock(session, { tool: 'asaas/get_payment', response: { ok: true }, times: 5 })).status).toBe(201);
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => execute(session, 'asaas/get_payment', { id: 'pay_race' })),
      );
      const statuses = answers.map((r) => (r.status === 200 ? 'mocked' : `${r.status} ${r.json.error}`)).sort();
      expect(statuses).toEqual([...Array(7).fill('422 mocks_exhausted'), ...Array(5).fill('mocked')].sort());
      expect((await listMocks(session)).json.mocks[0].remaining).toBe(0);
      expect(await callRows(session)).toBe(5);
    } finally {
      await second.app.close();
    }
  });

  it('a live session cannot have mocks, and a live key ignores any row that exists', async () => {
    const session = await openSession(liveKey);
    const r = await mock(
      session,
      { tool: 'asaas/create_payment', response: { id: 'pay_live_mock' }, times: 3 },
      liveKey,
    );
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: 'mocks_test_only', request_id: expect.any(String) });
    expect(await mockRows(session)).toBe(0);
    // A test key cannot see the live session at all.
    expect((await mock(session, { tool: 'asaas/create_payment', response: {}, times: 1 })).status).toBe(404);

    // Even a row put there behind the API's back is never read in live.
    await stack.db.prisma.sessionMock.create({
      data: {
        id: 'mck_live_row',
        sessionId: session,
        tool: 'asaas/create_payment',
        response: { id: 'pay_live_mock' },
        times: 3,
        remaining: 3,
      },
    });
    const call = await execute(session, 'asaas/create_payment', payment(), liveKey);
    expect(call.status).toBe(200);
    expect(call.json).toMatchObject({ success: false, data: { code: 'connection_required' } });
    const other = await execute(session, 'asaas/get_payment', { id: 'pay_x' }, liveKey);
    expect(other.status).toBe(200);
    expect(other.json.data.code).toBe('connection_required');
    expect((await stack.db.prisma.sessionMock.findUniqueOrThrow({ where: { id: 'mck_live_row' } })).remaining).toBe(3);

    // Nor a meta-tool's: live with nothing connected, the charge names what to connect.
    await stack.db.prisma.sessionMock.create({
      data: {
        id: 'mck_live_meta',
        sessionId: session,
        tool: 'codespar_charge',
        response: { id: 'chg_live_mock' },
        times: 1,
        remaining: 1,
      },
    });
    const charged = await execute(session, 'codespar_charge', CHARGE, liveKey);
    expect(charged.status).toBe(200);
    expect(charged.json).toMatchObject({
      success: false,
      data: { code: 'connection_required', connect: expect.arrayContaining(['asaas']) },
    });
    expect((await stack.db.prisma.sessionMock.findUniqueOrThrow({ where: { id: 'mck_live_meta' } })).remaining).toBe(1);
  });

  it('answers 503 {"code":"mocks_engine_error"} when the mocks store is unreachable, and recovers', async () => {
    const plain = await openSession(testKey);
    const liveSession = await openSession(liveKey);
    await stack.db.prisma.$executeRawUnsafe('ALTER TABLE session_mocks RENAME TO session_mocks_unreachable');
    try {
      const requests = sent();
      const rows = await callRows(plain);
      const down = await execute(plain, 'asaas/create_payment', payment());
      expect(down.status).toBe(503);
      expect(down.json).toEqual({
        code: 'mocks_engine_error',
        message: expect.any(String),
        request_id: expect.any(String),
      });
      expect(down.json.error).toBeUndefined();
      expect(sent()).toBe(requests);
      expect(await callRows(plain)).toBe(rows);

      for (const r of [
        await listMocks(plain),
        await mock(plain, { tool: 'asaas/get_payment', response: {}, times: 1 }),
      ]) {
        expect(r.status).toBe(503);
        expect(r.json.code).toBe('mocks_engine_error');
      }
      // An acting meta-tool in a test session reads the store, and fails closed like a raw tool.
      const charge = await execute(plain, 'codespar_charge', CHARGE);
      expect(charge.status).toBe(503);
      expect(charge.json.code).toBe('mocks_engine_error');
      expect(sent()).toBe(requests);
      // Other meta-tools and live keys never read the store.
      expect((await execute(plain, 'codespar_list_tools', {})).status).toBe(200);
      expect((await execute(liveSession, 'asaas/get_payment', { id: 'pay_x' }, liveKey)).status).toBe(200);
    } finally {
      await stack.db.prisma.$executeRawUnsafe('ALTER TABLE session_mocks_unreachable RENAME TO session_mocks');
    }
    const back = await execute(plain, 'asaas/create_payment', payment());
    expect(back.status).toBe(200);
    expect(back.json.success).toBe(true);
  });
});
