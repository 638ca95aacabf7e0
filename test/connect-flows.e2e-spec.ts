import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProjectRepository } from '@rota/db';
import Redis from 'ioredis';
import { ASAAS_SANDBOX_CUSTOMER, startSandbox, type Sandbox } from '../apps/sandbox/src';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(120_000);

const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;
const PUBLIC_URL = 'https://rota.example.test';
const CALLBACK = `${PUBLIC_URL}/v1/connections/oauth/callback`;
const MP_CLIENT = { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' };
const ASAAS_KEY = 'sandbox-asaas-key';
/** What must never come back out: the secrets sent in, and anything the sandbox's authorization server issues. */
const NEVER_SHOWN = [MP_CLIENT.client_secret, ASAAS_KEY, 'sbx_at_', 'sbx_rt_', 'sbx_code_'];

/**
 * `codespar_manage_connections` connect flows and shopper profiles, against
 * the sandbox provider server (test environment, demo catalog pointing at
 * it). The OAuth2 authorization code flow runs end to end: the sandbox's
 * authorization page approves at once and redirects to Rota's callback,
 * which is public at ROTA_PUBLIC_URL; the test plays the reverse proxy and
 * replays that redirect's path and query against the gateway.
 */
describe('codespar_manage_connections: connect flows and profiles', () => {
  let sandbox: Sandbox;
  let stack: Stack;
  let dir: string;
  const bodies: string[] = [];

  interface Tenant {
    projectId: string;
    key: string;
    session: string;
  }
  let a: Tenant;
  let b: Tenant;

  const api = async (t: { key: string } | null, method: string, path: string, json?: unknown) => {
    const r = await http(`${stack.url}${path}`, {
      method,
      headers: t ? { authorization: `Bearer ${t.key}` } : {},
      json,
      redirect: 'manual',
    });
    bodies.push(r.text);
    return r;
  };
  const manage = (t: Tenant, input: Record<string, unknown>) =>
    api(t, 'POST', `/v1/sessions/${t.session}/execute`, { tool: 'codespar_manage_connections', input });
  const execute = (t: Tenant, tool: string, input: Record<string, unknown>) =>
    api(t, 'POST', `/v1/sessions/${t.session}/execute`, { tool, input });
  const tokenRequests = () => sandbox.control.counters().token_requests.mercadopago ?? 0;

  /** Follows the sandbox's authorization page: its 302 goes to Rota's public callback with a code and the state. */
  const authorize = async (authorizationUrl: string) => {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    return location;
  };
  /** The reverse proxy's part: the public callback URL, delivered to the gateway. */
  const callback = (location: URL) => api(null, 'GET', `${location.pathname}${location.search}`);

  const tenant = async (name: string): Promise<Tenant> => {
    const project = await new ProjectRepository(stack.db.prisma).create({ orgId: 'org_dev', name });
    const { key } = await stack.key([...SCOPES], { projectId: project.id, environment: 'test' });
    const s = await http(`${stack.url}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      json: { servers: ['mercadopago', 'asaas'] },
    });
    expect(s.status).toBe(201);
    return { projectId: project.id, key, session: s.json.id };
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'rota-connect-'));
    stack = await startStack({
      demoCatalog: true,
      // Every app's log lines, at trace level, so the last test can search them for secrets.
      logFile: join(dir, 'stack.log'),
      env: {
        ROTA_SANDBOX_URL: sandbox.url,
        ROTA_PUBLIC_URL: PUBLIC_URL,
        ROTA_PROVIDER_TIMEOUT_MS: '1500',
        ROTA_RPC_TIMEOUT_MS: '15000',
        ROTA_LOCAL_EMBEDDER: 'hash',
      },
    });
    a = await tenant('connect flows A');
    b = await tenant('connect flows B');
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('connects Mercado Pago through its authorization page with PKCE, and the first raw call uses the new token', async () => {
    const plan = await manage(a, { action: 'initiate', server_id: 'mercadopago' });
    expect(plan.json).toMatchObject({
      success: true,
      data: { action: 'initiate', method: 'authorization', status: 'disconnected', fields: [] },
    });

    const started = await manage(a, { action: 'connect_start', server_id: 'mercadopago', credentials: MP_CLIENT });
    expect(started.json).toMatchObject({
      success: true,
      data: { method: 'authorization', redirect_uri: CALLBACK, context_id: expect.stringMatching(/^cfl_/) },
    });
    const { authorization_url: authorizationUrl, context_id: contextId } = started.json.data;
    const authorization = new URL(authorizationUrl);
    expect(`${authorization.origin}${authorization.pathname}`).toBe(`${sandbox.url}/mercadopago/oauth/authorize`);
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: MP_CLIENT.client_id,
      redirect_uri: CALLBACK,
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: expect.any(String),
    });

    // Before the user is back, finishing says so.
    const early = await manage(a, { action: 'connect_finish', context_id: contextId });
    expect(early.json).toMatchObject({
      success: false,
      data: { code: 'connect_pending', authorization_url: authorizationUrl },
    });

    const tokensBefore = tokenRequests();
    const location = await authorize(authorizationUrl);
    expect(location.searchParams.get('code')).toMatch(/^sbx_code_/);
    const back = await callback(location);
    expect(back.status).toBe(200);
    expect(back.headers.get('cache-control')).toBe('no-store');
    expect(back.json).toMatchObject({
      status: 'connected',
      server_id: 'mercadopago',
      environment: 'test',
      context_id: contextId,
    });
    // One token request: the code exchange (with the verifier; the sandbox checks it against the challenge).
    expect(tokenRequests()).toBe(tokensBefore + 1);

    const listed = await api(a, 'GET', '/v1/connections');
    expect(listed.json.connections).toEqual([
      expect.objectContaining({
        server_id: 'mercadopago',
        status: 'connected',
        has_credentials: true,
        environment: 'test',
      }),
    ]);
    const finished = await manage(a, { action: 'connect_finish', context_id: contextId });
    expect(finished.json).toMatchObject({
      success: true,
      data: { status: 'connected', connection: { server_id: 'mercadopago', has_credentials: true } },
    });

    const paid = await execute(a, 'mercadopago/create_payment', {
      transaction_amount: 25.5,
      payment_method_id: 'pix',
      description: 'order 77',
      payer: { email: 'buyer@example.com' },
    });
    expect({ success: paid.json.success, error: paid.json.error }).toEqual({ success: true, error: null });
    // The exchanged access token served the call: no second token request.
    expect(tokenRequests()).toBe(tokensBefore + 1);

    // The flow keeps no secret once it is done.
    const flow = await stack.db.prisma.connectFlow.findUniqueOrThrow({ where: { id: contextId } });
    expect(flow).toMatchObject({ status: 'connected', secretCiphertext: null, projectId: a.projectId });

    // A replayed state is refused and changes nothing.
    const replay = await callback(location);
    expect(replay.status).toBe(400);
    expect(replay.json).toMatchObject({ error: 'oauth_state_invalid', request_id: expect.any(String) });
    expect((await api(a, 'GET', '/v1/connections')).json.connections).toHaveLength(1);
  });

  it('refuses a state rewritten for another tenant, and another tenant’s context id; the genuine state still works once', async () => {
    const started = await manage(a, {
      action: 'connect_start',
      server_id: 'mercadopago',
      credentials: MP_CLIENT,
      return_to: 'https://shop.example.test/connected?x=1',
    });
    const { authorization_url: authorizationUrl, context_id: contextId } = started.json.data;
    const location = await authorize(authorizationUrl);
    const state = location.searchParams.get('state')!;

    // The payload names tenant B, the signature is A's.
    const [body, sig] = state.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
    expect(payload.p).toBe(a.projectId);
    const forged = new URL(location);
    forged.searchParams.set(
      'state',
      `${Buffer.from(JSON.stringify({ ...payload, p: b.projectId })).toString('base64url')}.${sig}`,
    );
    const refused = await callback(forged);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toBe('oauth_state_invalid');
    expect((await api(b, 'GET', '/v1/connections')).json.connections).toEqual([]);

    // B cannot read or finish A's flow: it does not exist for B.
    const foreign = await manage(b, { action: 'connect_finish', context_id: contextId });
    expect(foreign.json).toMatchObject({ success: false, data: { code: 'connect_context_invalid' } });

    // The forgery spent nothing: A's own state completes, and sends the user back to return_to.
    const back = await callback(location);
    expect(back.status).toBe(303);
    const to = new URL(back.headers.get('location')!);
    expect(`${to.origin}${to.pathname}`).toBe('https://shop.example.test/connected');
    expect(Object.fromEntries(to.searchParams)).toEqual({
      x: '1',
      status: 'connected',
      server_id: 'mercadopago',
      context_id: contextId,
    });
  });

  it('answers a refusal at the authorization page: the flow fails, nothing is stored', async () => {
    const started = await manage(b, { action: 'connect_start', server_id: 'mercadopago', credentials: MP_CLIENT });
    const state = new URL(started.json.data.authorization_url).searchParams.get('state')!;
    const denied = await api(
      null,
      'GET',
      `/v1/connections/oauth/callback?${new URLSearchParams({ state, error: 'access_denied', error_description: 'no' })}`,
    );
    expect(denied.status).toBe(400);
    expect(denied.json.error).toBe('oauth_authorization_failed');
    const finished = await manage(b, { action: 'connect_finish', context_id: started.json.data.context_id });
    expect(finished.json).toMatchObject({ success: false, data: { code: 'connect_failed', reason: 'access_denied' } });
    expect((await api(b, 'GET', '/v1/connections')).json.connections).toEqual([]);
    const garbage = await api(null, 'GET', '/v1/connections/oauth/callback?state=not-a-state&code=x');
    expect(garbage.status).toBe(400);
    expect(garbage.json.error).toBe('oauth_state_invalid');
  });

  it('connects a key-based provider through a connect context naming its fields', async () => {
    // Nothing of B's is connected: a charge names what to connect, and the router now holds B's eligibility.
    const PIX = {
      method: 'pix',
      amount: 10,
      currency: 'BRL',
      description: 'order 78',
      buyer: { name: 'Maria Souza', document: '529.982.247-25', email: 'maria@example.com' },
    };
    const refused = await execute(b, 'codespar_charge', PIX);
    expect(refused.json).toMatchObject({
      success: false,
      data: { code: 'connection_required', connect: expect.arrayContaining(['asaas']) },
    });

    const plan = await manage(b, { action: 'initiate', server_id: 'asaas' });
    expect(plan.json.data).toMatchObject({
      method: 'credentials',
      status: 'disconnected',
      fields: [{ name: 'api_key', required: true }],
    });

    const started = await manage(b, { action: 'connect_start', server_id: 'asaas' });
    expect(started.json).toMatchObject({
      success: true,
      data: { method: 'credentials', fields: [{ name: 'api_key' }], context_id: expect.stringMatching(/^cfl_/) },
    });
    expect(started.json.data.authorization_url).toBeUndefined();
    const contextId = started.json.data.context_id;

    const missing = await manage(b, {
      action: 'connect_finish',
      context_id: contextId,
      credentials: { apikey: ASAAS_KEY },
    });
    expect(missing.json).toMatchObject({ success: false, tool_call_id: null, data: { code: 'invalid_args' } });
    expect(missing.json.data.issues.map((i: any) => i.path.join('.'))).toEqual([
      'credentials.api_key',
      'credentials.apikey',
    ]);

    // A's session cannot finish B's context.
    expect(
      (await manage(a, { action: 'connect_finish', context_id: contextId, credentials: { api_key: ASAAS_KEY } })).json
        .data.code,
    ).toBe('connect_context_invalid');

    const finished = await manage(b, {
      action: 'connect_finish',
      context_id: contextId,
      credentials: { api_key: ASAAS_KEY },
    });
    expect(finished.json).toMatchObject({
      success: true,
      data: { status: 'connected', connection: { server_id: 'asaas', has_credentials: true } },
    });
    const again = await manage(b, {
      action: 'connect_finish',
      context_id: contextId,
      credentials: { api_key: ASAAS_KEY },
    });
    expect(again.json.data.code).toBe('connect_context_invalid');

    const charge = await execute(b, 'asaas/create_payment', {
      customer: ASAAS_SANDBOX_CUSTOMER,
      billingType: 'PIX',
      value: 10,
      dueDate: '2026-12-10',
    });
    expect(charge.json.success).toBe(true);
    // connect_finish refreshed the router's eligibility before answering: the very next meta-tool call routes to the new connection.
    const routed = await execute(b, 'codespar_charge', PIX);
    expect({ success: routed.json.success, code: routed.json.data?.code }).toEqual({ success: true, code: undefined });
    expect(routed.json.data).toMatchObject({ amount_minor: 1000, currency: 'BRL', method: 'pix' });

    // The call row shows which fields were sent, never their values.
    const row = await stack.db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id: finished.json.tool_call_id } });
    expect(row.input).toMatchObject({ action: 'connect_finish', credentials: { api_key: '[redacted]' } });
  });

  it('saves and reads a shopper profile per consumer, project and environment', async () => {
    const saved = await manage(a, {
      action: 'save_profile',
      consumer_id: 'cus-42',
      profile: { name: 'Ana', email: 'ana@example.com', address: { cep: '01001-000' } },
    });
    expect(saved.json).toMatchObject({
      success: true,
      data: { action: 'save_profile', consumer_id: 'cus-42', profile: { name: 'Ana', email: 'ana@example.com' } },
    });
    // Fields merge; a null removes one.
    const merged = await manage(a, {
      action: 'save_profile',
      consumer_id: 'cus-42',
      profile: { phone: '+5511999990000', email: null },
    });
    expect(merged.json.data.profile).toEqual({ name: 'Ana', phone: '+5511999990000', address: { cep: '01001-000' } });
    const read = await manage(a, { action: 'get_profile', consumer_id: 'cus-42' });
    expect(read.json).toMatchObject({
      success: true,
      data: { action: 'get_profile', profile: merged.json.data.profile, updated_at: expect.any(String) },
    });

    expect((await manage(a, { action: 'get_profile', consumer_id: 'nobody' })).json.data).toMatchObject({
      profile: null,
      updated_at: null,
    });
    expect((await manage(b, { action: 'get_profile', consumer_id: 'cus-42' })).json.data.profile).toBeNull();

    const secret = await manage(a, {
      action: 'save_profile',
      consumer_id: 'cus-42',
      profile: { card: { card_number: '4111111111111111' } },
    });
    expect(secret.json).toMatchObject({ success: false, tool_call_id: null, data: { code: 'invalid_args' } });
    expect(JSON.stringify(secret.json)).not.toContain('4111111111111111');
    expect((await manage(a, { action: 'get_profile' })).json.data.code).toBe('invalid_args');
  });

  it('keeps every credential out of call rows, answers, log lines, tables and Redis', async () => {
    const rows = await stack.db.prisma.sessionToolCall.findMany({
      where: { projectId: { in: [a.projectId, b.projectId] } },
    });
    const connectCalls = rows.filter((r) =>
      ['connect_start', 'connect_finish'].includes((r.input as { action?: string }).action ?? ''),
    );
    expect(connectCalls.length).toBeGreaterThan(3);
    const recorded = JSON.stringify(rows);
    const answered = bodies.join('\n');
    const log = readFileSync(join(dir, 'stack.log'), 'utf8');
    // The file holds the run: the callback and the connect calls were logged.
    expect(log).toContain('/v1/connections/oauth/callback');
    expect(log).toContain('"app":"session"');
    for (const s of NEVER_SHOWN) {
      expect({ s, inRows: recorded.includes(s) }).toEqual({ s, inRows: false });
      expect({ s, inAnswers: answered.includes(s) }).toEqual({ s, inAnswers: false });
      expect({ s, inLogs: log.includes(s) }).toEqual({ s, inLogs: false });
    }

    // Every table (connect flows keep only the sealed verifier and client, and drop them once done).
    const tables = await stack.db.prisma.$queryRawUnsafe<Array<{ table_name: string }>>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    const rowHits: string[] = [];
    for (const { table_name: t } of tables) {
      const all = await stack.db.prisma.$queryRawUnsafe<Array<{ t: string }>>(
        `SELECT (to_jsonb(r) - 'embedding')::text AS t FROM "${t}" r`,
      );
      for (const r of all) for (const s of NEVER_SHOWN) if (r.t.includes(s)) rowHits.push(`${t}: ${s.slice(0, 6)}…`);
    }
    expect(rowHits).toEqual([]);

    // Redis: the exchanged access token is cached sealed.
    const redis = new Redis(stack.env.REDIS_URL || 'redis://127.0.0.1:6379');
    try {
      const keys = await redis.keys(`${stack.env.ROTA_REDIS_PREFIX}*`);
      expect(keys.some((k) => k.includes('oauth2'))).toBe(true);
      const redisHits: string[] = [];
      for (const k of keys) {
        const value =
          (await redis.type(k)) === 'string' ? ((await redis.getBuffer(k)) ?? Buffer.alloc(0)).toString('latin1') : '';
        for (const s of NEVER_SHOWN) if (`${k}\n${value}`.includes(s)) redisHits.push(`${k}: ${s.slice(0, 6)}…`);
      }
      expect(redisHits).toEqual([]);
    } finally {
      redis.disconnect();
    }
    // connect_start with an OAuth client: recorded as field names only.
    expect(
      connectCalls.find((r) => (r.input as any).action === 'connect_start' && (r.input as any).credentials)?.input,
    ).toMatchObject({
      credentials: { client_id: '[redacted]', client_secret: '[redacted]' },
    });
  });
});
