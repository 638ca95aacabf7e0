import { Client } from 'pg';
import { ASAAS_SANDBOX_CUSTOMER, startSandbox, type Sandbox } from '../apps/sandbox/src';
import { finishStuckKeys } from '../apps/worker/src/jobs/calls-reconcile';
import { SessionsRepository } from '../apps/worker/src/jobs/sessions.repository';
import { saveConnection, setTestBaseUrl } from './helpers/rails';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(180_000);

const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;
/** The gateway stops waiting after this: a request still running is then answered `outcome_unknown`. */
const RPC_TIMEOUT_MS = 5000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One idempotency key sends at most once, against a sandbox that does not
 * de-duplicate by the provider's idempotency key (so a second send would be
 * a second charge): a request that claimed a key and then stalled past its
 * deadline, before writing its pending row, loses the key to its retry and
 * sends nothing when it wakes up. Stalls come from a Postgres lock held on
 * the call table and from the session service's test-only pause point.
 */
describe('a stalled request never sends after its retry took the key over', () => {
  let sandbox: Sandbox;
  let stack: Stack;
  let key: string;
  let session: string;

  const api = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
    http(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...headers }, json });
  const payment = (value: number, ref: string) => ({
    customer: ASAAS_SANDBOX_CUSTOMER,
    billingType: 'PIX',
    value,
    dueDate: '2026-12-20',
    externalReference: ref,
  });
  const execute = (input: Record<string, unknown>, idem: string) =>
    api(
      'POST',
      `/v1/sessions/${session}/execute`,
      { tool: 'asaas/create_payment', input },
      { 'idempotency-key': idem },
    );
  const proxy = (body: Record<string, unknown>, idem: string) =>
    api('POST', `/v1/sessions/${session}/proxy`, body, { 'idempotency-key': idem });

  /** Requests that reached the sandbox's Asaas under any key, and charges it made. */
  const provider = () => {
    const c = sandbox.control.counters();
    return {
      keyed: Object.values(c.keyed_requests.asaas ?? {}).reduce((a, b) => a + b, 0),
      charges: c.charges_created,
    };
  };
  const callRows = (ref: string) =>
    stack.db.prisma.sessionToolCall.count({ where: { input: { path: ['externalReference'], equals: ref } } });
  const keyRow = (idem: string) => stack.db.prisma.idempotencyKey.findFirstOrThrow({ where: { key: idem } });

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, ignoreIdempotencyKeys: true });
    stack = await startStack({
      demoCatalog: true,
      env: {
        ROTA_SANDBOX_URL: sandbox.url,
        ROTA_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
        ROTA_PROVIDER_TIMEOUT_MS: '2000',
        ROTA_TEST_PAUSE_AFTER_CLAIM_MS: String(RPC_TIMEOUT_MS + 2500),
        ROTA_QUOTA_ENFORCE: 'false',
      },
    });
    key = (await stack.key([...SCOPES], { environment: 'test' })).key;
    expect([200, 201]).toContain((await saveConnection(api, 'asaas', { api_key: 'sandbox-asaas-key' })).status);
    const s = await api('POST', '/v1/sessions', { servers: ['asaas'] });
    expect(s.status).toBe(201);
    session = s.json.id;
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
  });

  it('the lock-stall reproduction: a payment whose pending row waits on a locked call table, then its retry, charge once', async () => {
    const before = provider();
    const locker = new Client({ connectionString: stack.db.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE session_tool_calls IN ACCESS EXCLUSIVE MODE');
    const lifted = (async () => {
      await sleep(2 * RPC_TIMEOUT_MS + 1000);
      await locker.query('COMMIT');
      await locker.end();
    })();
    try {
      const first = await execute(payment(33.33, 'lock-stall'), 'lock-stall-1');
      expect(first.status).toBe(503);
      expect(first.json).toMatchObject({ error: 'outcome_unknown' });
      // The retry takes the key over (the first request's deadline passed without a call row) and waits on the same lock.
      const retry = await execute(payment(33.33, 'lock-stall'), 'lock-stall-1');
      await lifted;
      // Whatever the retry was told, the key settles on one answer once the lock lifts.
      let last = retry;
      for (let i = 0; i < 20 && last.status !== 200; i++) {
        await sleep(500);
        last = await execute(payment(33.33, 'lock-stall'), 'lock-stall-1');
      }
      expect(last.status).toBe(200);
      expect(last.json).toMatchObject({ success: true, data: { status: 200, body: { value: 33.33 } } });
      await sleep(1000);
      expect(provider()).toEqual({ keyed: before.keyed + 1, charges: before.charges + 1 });
      expect(await callRows('lock-stall')).toBe(1);
      expect(await keyRow('lock-stall-1')).toMatchObject({ state: 'done', toolCallId: last.json.tool_call_id });
    } finally {
      await lifted.catch(() => undefined);
    }
  });

  it('a stall between the claim and the pending row (the test-only pause point): the retry sends once, the stalled request nothing (execute)', async () => {
    const before = provider();
    const idem = 'pause-after-claim-execute';
    const first = await execute(payment(12.5, 'pause-execute'), idem);
    expect(first.status).toBe(503);
    expect(first.json).toMatchObject({ error: 'outcome_unknown' });
    // Not paused: this claim took the key over, it is not the key's first.
    const retry = await execute(payment(12.5, 'pause-execute'), idem);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.json).toMatchObject({ success: true, data: { status: 200 } });
    // The stalled request wakes up, finds the key no longer its own, and sends nothing.
    await sleep(4000);
    expect(provider()).toEqual({ keyed: before.keyed + 1, charges: before.charges + 1 });
    expect(await callRows('pause-execute')).toBe(1);
    const again = await execute(payment(12.5, 'pause-execute'), idem);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(retry.json);
  });

  it('the same through the proxy: one provider request, and the stored answer is the retry’s', async () => {
    const before = provider();
    const idem = 'pause-after-claim-proxy';
    const body = { server: 'asaas', endpoint: '/v3/payments', method: 'POST', body: payment(7.25, 'pause-proxy') };
    const first = await proxy(body, idem);
    expect(first.status).toBe(503);
    expect(first.json).toMatchObject({ error: 'outcome_unknown' });
    const retry = await proxy(body, idem);
    expect(retry.status).toBe(200);
    expect(retry.json).toMatchObject({ status: 200, data: { value: 7.25 } });
    await sleep(4000);
    expect(provider()).toEqual({ keyed: before.keyed + 1, charges: before.charges + 1 });
    const again = await proxy(body, idem);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.proxy_call_id).toBe(retry.json.proxy_call_id);
  });

  it('a key left running behind a completed call (a crash between two writes) answers 409 only until the sweep finishes it with the stored answer', async () => {
    const first = await execute(payment(41, 'stuck-key'), 'stuck-key-1');
    expect(first.status).toBe(200);
    // Completion and key answer are one statement now; this is what the two separate writes could leave behind.
    await stack.db.prisma.idempotencyKey.updateMany({
      where: { key: 'stuck-key-1' },
      data: { state: 'running', response: undefined },
    });
    expect((await execute(payment(41, 'stuck-key'), 'stuck-key-1')).json).toMatchObject({
      error: 'request_in_progress',
    });
    const charges = provider().charges;

    expect(await finishStuckKeys(new SessionsRepository(stack.db.prisma))).toBe(1);
    const again = await execute(payment(41, 'stuck-key'), 'stuck-key-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toMatchObject({
      success: true,
      tool_call_id: first.json.tool_call_id,
      data: { status: 200, body: { id: first.json.data.body.id } },
    });
    expect(provider().charges).toBe(charges);
    expect(await finishStuckKeys(new SessionsRepository(stack.db.prisma))).toBe(0);
  });

  it('over MCP, a replayed acting meta-tool result says so in _meta, and the rail charged once', async () => {
    const before = provider();
    const call = (id: number) =>
      http(`${stack.url}/v1/sessions/${session}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream' },
        json: {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name: 'codespar_charge',
            arguments: {
              method: 'pix',
              amount: 19.9,
              currency: 'BRL',
              description: 'Pedido mcp',
              buyer: { name: 'Maria Souza', document: '529.982.247-25' },
            },
            _meta: { idempotency_key: 'mcp-charge-1' },
          },
        },
      });
    const first = await call(1);
    expect(first.json.result.isError).toBe(false);
    expect(first.json.result._meta?.['rota/replayed']).toBeUndefined();
    const again = await call(2);
    expect(again.json.result._meta).toEqual({ 'rota/replayed': true });
    expect(again.json.result.structuredContent).toEqual(first.json.result.structuredContent);
    // The rail's preparatory step carries a key of its own: each key reached the provider once, one charge.
    expect(provider().charges).toBe(before.charges + 1);
    expect(Math.max(...Object.values(sandbox.control.counters().keyed_requests.asaas ?? {}))).toBe(1);
  });

  it('a raw tool call that provably never reached the provider gives its key back, as the proxy does', async () => {
    expect(await setTestBaseUrl(stack, 'asaas', 'http://127.0.0.1:1/asaas')).toBe(1);
    try {
      const refused = await execute(payment(5, 'never-sent'), 'never-sent-1');
      expect(refused.json).toMatchObject({ success: false, data: { code: 'upstream_unreachable' } });
      expect(await stack.db.prisma.idempotencyKey.count({ where: { key: 'never-sent-1' } })).toBe(0);
    } finally {
      expect(await setTestBaseUrl(stack, 'asaas', `${sandbox.url}/asaas`)).toBe(1);
    }
    const retry = await execute(payment(5, 'never-sent'), 'never-sent-1');
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.json).toMatchObject({ success: true, data: { status: 200 } });
  });
});
