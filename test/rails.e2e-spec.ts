import { startSandbox, type Sandbox } from '../apps/sandbox/src';
import { saveConnection, setTestBaseUrl } from './helpers/rails';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(120_000);

const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write', 'policy:write'] as const;
const BUYER = { name: 'Maria Souza', document: '529.982.247-25', email: 'maria@example.com' };
const CHARGE = { method: 'pix', amount: 49.9, currency: 'BRL', description: 'Pedido 1001', buyer: BUYER };

/**
 * Acting meta-tools routed to rails at execute time, against the sandbox
 * provider server: the normalised answer, exactly one provider request per
 * call, failover only when nothing was sent, and telemetry from every attempt.
 */
describe('rails: codespar_charge through the router', () => {
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
  const charges = () => sandbox.control.counters().charges_created;
  const row = (id: string) => stack.db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id } });
  /** Points a provider's test base URL at a closed port (connections refused) or back at the sandbox. */
  const setBase = async (provider: string, url: string) => expect(await setTestBaseUrl(stack, provider, url)).toBe(1);
  const sandboxBase = (provider: string) => `${sandbox.url}/${provider}`;

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
    const connect = async (server: string, credentials: Record<string, string>) =>
      expect([200, 201]).toContain((await saveConnection(api, server, credentials)).status);
    await connect('asaas', { api_key: 'sandbox-asaas-key' });
    await connect('mercadopago', { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' });
    const s = await api('POST', '/v1/sessions', { servers: ['asaas', 'mercadopago'] });
    expect(s.status).toBe(201);
    session = s.json.id;
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
  });

  let firstRail = '';
  let chargeId = '';

  it('charges by Pix: the normalised charge, one provider request with the credential injected, the rail on the row', async () => {
    const before = charges();
    const seen = sandbox.control.counters();
    const r = await execute('codespar_charge', CHARGE, { 'idempotency-key': 'rails-charge-1' });
    expect({ status: r.status, success: r.json.success, data: r.json.success ? undefined : r.json.data }).toEqual({
      status: 200,
      success: true,
      data: undefined,
    });
    expect(r.json.server).toBeNull();
    expect(r.json.data).toMatchObject({
      status: 'pending',
      amount_minor: 4990,
      currency: 'BRL',
      method: 'pix',
      pix: { copia_e_cola: expect.any(String) },
    });
    // A hosted payment page lives on the provider's domain; every other field is provider-neutral.
    const { payment_url: _page, ...neutral } = r.json.data;
    expect(JSON.stringify(neutral)).not.toMatch(/asaas|mercado/i);
    expect(charges()).toBe(before + 1);
    const call = await row(r.json.tool_call_id);
    expect(call).toMatchObject({ state: 'done', success: true, tool: 'codespar_charge', objectRef: r.json.data.id });
    expect(call.railId).toMatch(/^(asaas|mercadopago)\.pix\.in$/);
    expect(call.attemptLog).toEqual([
      expect.objectContaining({ rail_id: call.railId, outcome: 'answered', upstream_status: expect.any(Number) }),
    ]);
    // Exactly one create-payment request reached the provider, authenticated with the injected credential and keyed.
    const provider = call.railId!.split('.')[0]!;
    const now = sandbox.control.counters();
    expect(now.requests[provider]?.create_payment).toBe((seen.requests[provider]?.create_payment ?? 0) + 1);
    expect(now.auth_failures[provider] ?? 0).toBe(seen.auth_failures[provider] ?? 0);
    expect(now.last_credentials[provider]).toBeDefined();
    expect(now.last_idempotency_key[provider]).toMatch(/^rota-/);
    firstRail = call.railId!;
    chargeId = r.json.data.id;
  });

  it('replays the same Idempotency-Key without a second charge', async () => {
    const before = charges();
    const r = await execute('codespar_charge', CHARGE, { 'idempotency-key': 'rails-charge-1' });
    expect(r.headers.get('idempotent-replayed')).toBe('true');
    expect(r.json.data.id).toBe(chargeId);
    expect(charges()).toBe(before);
  });

  it('refunds over the rail that took the money', async () => {
    const provider = firstRail.split('.')[0]!;
    expect(sandbox.control.markPaid(provider, chargeId)).toBe(true);
    const r = await execute('codespar_charge', { ...CHARGE, action: 'refund', charge_id: chargeId, amount: 10 });
    expect({ success: r.json.success, data: r.json.data }).toMatchObject({
      success: true,
      data: { charge_id: chargeId, amount_minor: 1000, currency: 'BRL' },
    });
    expect((await row(r.json.tool_call_id)).railId).toBe(firstRail);
  });

  it('refuses inexact, negative, zero and non-finite amounts as invalid_args and sends nothing', async () => {
    const before = sandbox.control.counters().requests_total;
    for (const [amount, currency] of [
      [49.999, 'BRL'],
      [-1, 'BRL'],
      [0, 'BRL'],
      [1e-7, 'BRL'],
      [10.5, 'CLP'],
      [1e300, 'BRL'],
    ] as const) {
      const r = await execute('codespar_charge', { ...CHARGE, amount, currency });
      expect({ amount, currency, success: r.json.success, code: r.json.data?.code, row: r.json.tool_call_id }).toEqual({
        amount,
        currency,
        success: false,
        code: 'invalid_args',
        row: null,
      });
    }
    expect(sandbox.control.counters().requests_total).toBe(before);
  });

  it('fails over to the second rail when the first refuses connections: two attempts recorded, metrics show both', async () => {
    const provider = firstRail.split('.')[0]!;
    const other = provider === 'asaas' ? 'mercadopago' : 'asaas';
    await setBase(provider, 'http://127.0.0.1:1');
    try {
      const before = charges();
      const r = await execute('codespar_charge', CHARGE);
      expect({ success: r.json.success, data: r.json.success ? undefined : r.json.data }).toEqual({
        success: true,
        data: undefined,
      });
      expect(charges()).toBe(before + 1);
      const call = await row(r.json.tool_call_id);
      expect(call.railId).toBe(`${other}.pix.in`);
      expect(call.attemptLog).toEqual([
        expect.objectContaining({ rail_id: firstRail, outcome: 'not_sent' }),
        expect.objectContaining({ rail_id: `${other}.pix.in`, outcome: 'answered' }),
      ]);
      expect(call.attempts).toBeGreaterThanOrEqual(1);
    } finally {
      await setBase(provider, sandboxBase(provider));
    }
    // Telemetry is recorded without holding up the answer: wait for it to land.
    let rows: Array<{ provider_id: string; tool: string; attempts: number; last_error_code: string | null }> = [];
    for (let i = 0; i < 50; i++) {
      const m = await api('GET', '/v1/router/metrics?tool=codespar_charge');
      rows = m.json.rows;
      if (rows.find((x) => x.provider_id === provider && x.last_error_code?.startsWith('not_sent'))) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const failed = rows.find((x) => x.provider_id === provider)!;
    const answered = rows.find((x) => x.provider_id === other)!;
    expect(failed.attempts).toBeGreaterThanOrEqual(2);
    expect(failed.last_error_code).toMatch(/^not_sent/);
    expect(answered.attempts).toBeGreaterThanOrEqual(1);
  });

  it('never fails over after the provider accepted and timed out: outcome_unknown, one charge, and a replay charges nothing', async () => {
    // Whichever rail ranks first now gets the fault.
    const probe = await execute('codespar_charge', CHARGE);
    const top = (await row(probe.json.tool_call_id)).railId!.split('.')[0]!;
    sandbox.control.addFault({ provider: top, route: 'create_payment', mode: 'timeout_after_accept', times: 1 });
    const before = sandbox.control.counters();
    const r = await execute('codespar_charge', CHARGE, { 'idempotency-key': 'rails-lost' });
    expect(r.json).toMatchObject({ success: false, data: { code: 'outcome_unknown' } });
    const after = sandbox.control.counters();
    expect(after.charges_created).toBe(before.charges_created + 1);
    const call = await row(r.json.tool_call_id);
    expect(call.state).toBe('outcome_unknown');
    expect((call.attemptLog as unknown[]).length).toBe(1);
    const again = await execute('codespar_charge', CHARGE, { 'idempotency-key': 'rails-lost' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data.code).toBe('outcome_unknown');
    expect(sandbox.control.counters().charges_created).toBe(after.charges_created);
  });

  it('follows the router when the rail it picked last time lost its connection: the next charge goes to the other rail', async () => {
    // The session reads the provider it expects while the router decides; that read must never steer the call.
    const first = await execute('codespar_charge', CHARGE);
    expect(first.json.success).toBe(true);
    const provider = (await row(first.json.tool_call_id)).railId!.split('.')[0]!;
    const other = provider === 'asaas' ? 'mercadopago' : 'asaas';
    const listed = await api('GET', '/v1/connections');
    const conn = listed.json.connections.find((c: { server_id: string }) => c.server_id === provider);
    expect((await api('DELETE', `/v1/connections/${conn.id}`)).status).toBe(200);
    try {
      const seen = sandbox.control.counters();
      const r = await execute('codespar_charge', CHARGE);
      expect(r.json.success).toBe(true);
      const call = await row(r.json.tool_call_id);
      expect(call.railId).toBe(`${other}.pix.in`);
      expect(call.attemptLog).toEqual([expect.objectContaining({ rail_id: `${other}.pix.in`, outcome: 'answered' })]);
      expect(sandbox.control.counters().requests[provider]?.create_payment ?? 0).toBe(
        seen.requests[provider]?.create_payment ?? 0,
      );
    } finally {
      const restored =
        provider === 'asaas'
          ? await saveConnection(api, 'asaas', { api_key: 'sandbox-asaas-key' })
          : await saveConnection(api, 'mercadopago', {
              client_id: 'sandbox-mp-client',
              client_secret: 'sandbox-mp-secret',
            });
      expect([200, 201]).toContain(restored.status);
    }
  });

  it('answers no_rail for a method no rail carries, writing a row and sending nothing', async () => {
    const before = sandbox.control.counters().requests_total;
    const r = await execute('codespar_charge', { ...CHARGE, method: 'pse', currency: 'COP' });
    expect(r.json).toMatchObject({ success: false, data: { code: 'no_rail' } });
    expect(sandbox.control.counters().requests_total).toBe(before);
  });

  it('allow_providers narrows the rails the router may pick, and refuses as policy only when none remains', async () => {
    const put = async (rules: unknown[]) => expect((await api('PUT', '/v1/policy', { rules })).status).toBe(200);
    try {
      await put([{ type: 'allow_providers', providers: ['mercadopago'] }]);
      for (let i = 0; i < 3; i++) {
        const r = await execute('codespar_charge', CHARGE);
        expect(r.json.success).toBe(true);
        expect((await row(r.json.tool_call_id)).railId).toBe('mercadopago.pix.in');
      }
      await put([{ type: 'allow_providers', providers: ['stripe'] }]);
      const before = sandbox.control.counters().requests_total;
      const refused = await execute('codespar_charge', CHARGE);
      expect(refused.status).toBe(403);
      expect(refused.json).toMatchObject({
        ruleType: 'allow_providers',
        ruleId: expect.any(String),
        reason: expect.any(String),
      });
      expect(refused.json.error).toBeUndefined();
      expect(sandbox.control.counters().requests_total).toBe(before);
    } finally {
      await put([]);
    }
  });

  it('keeps credentials out of every response', () => {
    for (const b of bodies)
      for (const secret of ['sandbox-asaas-key', 'sandbox-mp-secret']) expect(b).not.toContain(secret);
  });
});
