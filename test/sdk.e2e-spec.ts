import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { META_TOOL_NAMES, type DiscoverResult as ContractDiscoverResult } from '@rota/contracts';
import { newId } from '@rota/db';
import { Rota, RotaError, type DiscoverResult, type RouteResponse, type ToolSearchResponse } from '@rota/sdk';
import { startStack, type Stack } from './helpers/stack';

jest.setTimeout(60_000);

// The SDK's hand-written result type must say what the contract says: this
// assignment fails to compile as soon as the two drift apart.
const sameShape = (r: DiscoverResult): ContractDiscoverResult => r;
void sameShape;

describe('@rota/sdk against the stack', () => {
  let stack: Stack;
  let rota: Rota;

  beforeAll(async () => {
    // A generous RPC deadline: the machine running the suite may be busy.
    stack = await startStack({
      env: {
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        NL_EXTRACTOR: '',
        ROTA_RPC_TIMEOUT_MS: '30000',
        ROTA_DISCOVER_TIMEOUT_MS: '25000',
      },
    });
    const { key } = await stack.key(['servers:read', 'sessions:create', 'tools:execute']);
    rota = new Rota({ apiKey: key, baseUrl: stack.url, timeoutMs: 30_000 });
    // The one provider these checks name, inserted here rather than taken from the demo catalog.
    await stack.db.prisma.provider.upsert({
      where: { id_owner: { id: 'asaas', owner: '' } },
      create: {
        id: 'asaas',
        name: 'Asaas',
        description: 'Pix, boleto and card payments in Brazil',
        category: 'payments',
        country: 'BR',
        countries: ['BR'],
        authType: 'api_key',
        selfServeAuth: true,
        baseUrls: { live: 'https://asaas.invalid' },
      },
      update: { authType: 'api_key', sandboxAvailable: false },
    });
    await stack.db.prisma.mcpTool.create({
      data: {
        serverId: 'asaas',
        toolName: 'create_payment',
        description: 'Create a Pix or boleto payment',
        descriptionHash: 'asaas/create_payment',
        httpMethod: 'POST',
        endpointTemplate: '/v3/payments',
      },
    });
    await stack.db.prisma.connection.create({
      data: { id: newId('conn'), projectId: 'proj_dev', environment: 'live', serverId: 'asaas', status: 'connected' },
    });
  });
  afterAll(() => stack.close());

  it('tools.search answers path A typed', async () => {
    const r: ToolSearchResponse = await rota.tools.search({
      intent: 'send a whatsapp notification to a customer',
      limit: 3,
    });
    expect(r.source).toBe('fallback');
    expect(r.hits.length).toBeGreaterThan(0);
    for (const hit of r.hits) expect(META_TOOL_NAMES).toContain(hit.tool_name);
  });

  it('metaTools.list answers the 15 published meta-tools', async () => {
    const doc = await rota.metaTools.list();
    expect(doc.tools.map((t) => t.name).sort()).toEqual([...META_TOOL_NAMES].sort());
  });

  it('metaTools.discover answers path C typed, and throws a RotaError with the 424 code', async () => {
    const r: RouteResponse = await rota.metaTools.discover({
      intent: { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 1000 },
    });
    expect(r.recommended.tool).toBe('codespar_charge');
    expect(r.recommended.provider_id).toBe('asaas');

    const err = await rota.metaTools
      .discover({ intent: { operation: 'charge', currency: 'JPY', country: 'JP' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RotaError);
    expect((err as RotaError).status).toBeGreaterThanOrEqual(400);
    expect((err as RotaError).code).toBe(((err as RotaError).body as { error: string }).error);
    expect((err as RotaError).requestId).toMatch(/\S/);
  });

  it('sessions.create then discover answers typed meta_tools', async () => {
    const session = await rota.sessions.create('user_123', { servers: ['asaas'] });
    expect(session.id).toMatch(/^ses_/);
    expect(session.userId).toBe('user_123');
    const found: DiscoverResult = await session.discover('mandar um whatsapp', { limit: 5 });
    expect(found.use_case).toBe('mandar um whatsapp');
    expect(Array.isArray(found.meta_tools)).toBe(true);
    for (const name of found.meta_tools) expect(META_TOOL_NAMES).toContain(name);
    expect(found.recommended === null).toBe(found.recommended_reason !== undefined);
    expect(found.related.length + (found.recommended ? 1 : 0)).toBeLessThanOrEqual(5);
    await session.close();
  });

  it('execute on a closed session answers success:false with the code, without throwing; close is idempotent', async () => {
    const session = await rota.sessions.create('user_123', { servers: ['asaas'], metadata: { order: 'A-1' } });
    const first = await session.close();
    const second = await session.close();
    expect(second.closed_at).toBe(first.closed_at);

    const r = await session.execute('codespar_get_started', {});
    expect(r).toMatchObject({ success: false, code: 'session_not_active', status: 409 });
    // proxyExecute throws on Rota's own refusals (a provider's answer would come back as data).
    await expect(
      session.proxyExecute({ server: 'asaas', endpoint: '/v3/payments', method: 'GET' }),
    ).rejects.toMatchObject({
      name: 'RotaError',
      status: 409,
      code: 'session_not_active',
    });
    expect(r.requestId).toMatch(/\S/);
    expect(r.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a policy refusal comes back as data with its approval; once approved, execute with approvalId passes once', async () => {
    const { key: adminKey } = await stack.key(['servers:read', 'policy:write', 'approvals:write']);
    const admin = new Rota({ apiKey: adminKey, baseUrl: stack.url, timeoutMs: 30_000 });
    await admin.api.put('/v1/policy', {
      body: {
        rules: [{ type: 'approval_above', tool: 'codespar_pay', currency: 'BRL', above_minor: 1000, ttl_seconds: 600 }],
      },
    });
    const session = await rota.sessions.create('user_123', { servers: ['asaas'] });
    const pay = { action: 'pay', method: 'pix', amount: 5000, currency: 'BRL', recipient: 'pix-key-sdk' };
    try {
      const refused = await session.execute('codespar_pay', pay);
      expect(refused).toMatchObject({
        success: false,
        status: 403,
        code: 'policy_denied',
        data: { ruleType: 'approval_above' },
      });
      const approvalId = (refused.data as { approval_id: string }).approval_id;
      expect(approvalId).toMatch(/^apr_/);
      // The SDK's error type reads the same body.
      await expect(
        rota.api.post('/v1/approvals/{id}/approve', { params: { path: { id: approvalId } } }),
      ).rejects.toMatchObject({
        name: 'RotaError',
        status: 403,
      });
      await admin.api.post('/v1/approvals/{id}/approve', { params: { path: { id: approvalId } } });

      // Past policy, whatever the rail answers; a second use of the approval is refused again.
      const passed = await session.execute('codespar_pay', pay, { approvalId });
      expect(passed.status).toBe(200);
      const again = await session.execute('codespar_pay', pay, { approvalId });
      expect(again).toMatchObject({ success: false, status: 403, code: 'policy_denied' });
      expect(String(again.error)).toMatch(/is used/);
    } finally {
      await admin.api.put('/v1/policy', { body: { rules: [] } });
      await session.close();
    }
  });

  it('execute sends the idempotency key: a repeat with the same key is the stored answer', async () => {
    const session = await rota.sessions.create('user_123', { servers: ['asaas'] });
    const a = await session.execute('codespar_list_tools', {}, { idempotencyKey: `sdk-${Date.now()}` });
    const b = await session.execute('codespar_list_tools', {}, { idempotencyKey: a.idempotencyKey });
    expect(a).toMatchObject({ success: true, status: 200, code: null, replayed: false });
    expect(b.replayed).toBe(true);
    expect(b.tool_call_id).toBe(a.tool_call_id);
    const fresh = await session.execute('codespar_list_tools', {});
    expect(fresh.replayed).toBe(false);
    expect(fresh.tool_call_id).not.toBe(a.tool_call_id);
    await session.close();
  });

  it('session.mcp is what an MCP client needs', async () => {
    const session = await rota.sessions.create('user_123', { servers: ['asaas'] });
    expect(session.mcp.url).toBe(`${stack.url}/v1/sessions/${session.id}/mcp`);
    expect(session.mcp.headers.Authorization).toMatch(/^Bearer csk_live_/);
    const client = new Client({ name: 'sdk-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(session.mcp.url), { requestInit: { headers: session.mcp.headers } }),
    );
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(15);
    await client.close();
    await session.close();
  });

  it('api is typed from the OpenAPI document and refusals carry their code', async () => {
    const session = await rota.sessions.create(null, { servers: ['asaas'] });
    const view = await rota.api.get('/v1/sessions/{id}', { params: { path: { id: session.id } } });
    expect(view.status).toBe('active');
    await expect(rota.sessions.get('ses_doesnotexist')).rejects.toMatchObject({
      status: 404,
      code: 'session_not_found',
    });
    await expect(rota.api.post('/v1/sessions', { body: { servers: [] } })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    const anonymous = new Rota({ apiKey: 'csk_live_00000000000000000000000000000000', baseUrl: stack.url });
    await expect(anonymous.metaTools.discover({ description: 'charge a customer in Brazil' })).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
    await session.close();
  });
});
