import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ASAAS_SANDBOX_CUSTOMER, startSandbox, type Sandbox } from '../apps/sandbox/src';
import { SANDBOX_PROVIDERS } from '../apps/session/src/config';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(180_000);

/** A local server that writes down every request it gets: what reached it was dialled. */
interface Recorder {
  url: string;
  hits: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

/** `echo`: answers with every header and the query it received, as a provider that echoes a key back would. */
async function recorder(echo = false): Promise<Recorder> {
  const hits: Recorder['hits'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(echo ? { 'x-echo-key': String(req.headers['x-api-key'] ?? '') } : {}),
      });
      res.end(JSON.stringify(echo ? { you_sent: { url: req.url, headers: req.headers, body } } : { ok: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        // Kept-alive connections from the provider client would hold the close forever.
        server.closeAllConnections();
      }),
  };
}

const SECRET = 'tenant-a-secret-7c1e9f2a44';
const ECHO_SECRET = 'echo-secret-5d8b0c3e91';
const SCOPES = [
  'servers:read',
  'sessions:create',
  'tools:execute',
  'connections:write',
  'catalog:write',
  'policy:write',
  'logs:read',
] as const;

/** A v2 catalog entry with an API key header. */
function entry(id: string, base: { live?: string; test?: string }, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: id,
    category: 'payments',
    base_urls: base,
    http: { auth: { type: 'api_key', in: 'header', name: 'x-api-key' }, idempotency_header: 'Idempotency-Key' },
    tools: [
      {
        name: 'charge',
        description: `Charge a payer through ${id}.`,
        http_method: 'POST',
        endpoint_template: '/charges',
        input_schema: { type: 'object', properties: { amount: { type: 'number' } } },
      },
    ],
    ...extra,
  };
}

/**
 * The hostile-tenant reproductions: shadowing a global provider id, private
 * addresses through a project's own entry, credentials sent to a changed
 * origin, a re-categorised provider lifting amount rules, the sandbox's
 * control API and another tenant's sandbox data, secrets in a proxy
 * endpoint and in an echoed answer, and endpoint encodings. Each is refused
 * with a documented code, and the canary server beside the stack never
 * receives a request, let alone a credential.
 */
describe('a tenant cannot take over what is not its own', () => {
  let sandbox: Sandbox;
  let canary: Recorder;
  let legit: Recorder;
  let echo: Recorder;
  let stack: Stack;
  let key: string;
  let narrow: string;
  let other: string;
  let operator: string;
  let session: string;

  const call = (k: string, method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
    http(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${k}`, ...headers }, json });
  const importAs = (k: string, servers: unknown[], owner?: 'project' | 'catalog') =>
    call(k, 'POST', `/v1/catalog/import${owner ? `?owner=${owner}` : ''}`, {
      format: 'rota-catalog',
      version: 2,
      servers,
    });
  const sessionFor = async (k: string, servers: string[]) => {
    const r = await call(k, 'POST', '/v1/sessions', { servers });
    expect(r.status).toBe(201);
    return r.json.id as string;
  };
  const proxy = (k: string, ses: string, body: Record<string, unknown>) =>
    call(k, 'POST', `/v1/sessions/${ses}/proxy`, body);
  const canaryClean = () => {
    expect(canary.hits).toEqual([]);
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
    [canary, legit, echo] = await Promise.all([recorder(), recorder(), recorder(true)]);
    stack = await startStack({
      demoCatalog: true,
      env: {
        ROTA_SANDBOX_URL: sandbox.url,
        ROTA_PROVIDER_TIMEOUT_MS: '1500',
        ROTA_RPC_TIMEOUT_MS: '8000',
        // The operator's own local entries of this run, beside the sandbox ones.
        ROTA_PRIVATE_PROVIDERS: [...SANDBOX_PROVIDERS, 'zzmoving', 'zzecho'].join(','),
      },
    });
    await stack.db.prisma.project.upsert({
      where: { id: 'proj_tt2' },
      create: { id: 'proj_tt2', orgId: 'org_dev', name: 'Other' },
      update: {},
    });
    key = (await stack.key([...SCOPES], { environment: 'test' })).key;
    // The issue's attacker: may write its project's catalog, not its connections, not read servers.
    narrow = (await stack.key(['catalog:write', 'sessions:create', 'tools:execute'], { environment: 'test' })).key;
    other = (await stack.key([...SCOPES], { environment: 'test', projectId: 'proj_tt2' })).key;
    operator = (await stack.operatorKey()).key;
    const op = await importAs(
      operator,
      [
        entry('zzmoving', { test: `${legit.url}/v1` }),
        entry('zzecho', { test: `${echo.url}/v1` }, { category: 'other' }),
      ],
      'catalog',
    );
    expect(op.status).toBe(200);
    for (const [server, value] of [
      ['asaas', SECRET],
      ['zzmoving', SECRET],
      ['zzecho', ECHO_SECRET],
    ] as const) {
      expect(
        (await call(key, 'POST', '/v1/connections', { server_id: server, credentials: { api_key: value } })).status,
      ).toBe(201);
    }
    expect(
      (
        await call(other, 'POST', '/v1/connections', {
          server_id: 'asaas',
          credentials: { api_key: 'sandbox-asaas-key' },
        })
      ).status,
    ).toBe(201);
    session = await sessionFor(key, ['asaas', 'zzmoving', 'zzecho']);
  });

  afterAll(async () => {
    await stack?.close();
    await Promise.all([sandbox?.close(), canary?.close(), legit?.close(), echo?.close()]);
  });

  it('refuses a project entry under a global id with 409 provider_id_taken, whatever the key', async () => {
    for (const k of [key, narrow]) {
      const r = await importAs(
        k,
        [entry('asaas', { live: canary.url, test: canary.url }, { category: 'other' })],
        'project',
      );
      expect(r.status).toBe(409);
      expect(r.json).toMatchObject({ error: 'provider_id_taken', ids: ['asaas'] });
    }
    // The project still means the operator's asaas: a charge goes to the sandbox with the project's key.
    const before = sandbox.control.counters().charges_created;
    const r = await call(key, 'POST', `/v1/sessions/${session}/execute`, {
      tool: 'asaas/create_payment',
      input: { customer: ASAAS_SANDBOX_CUSTOMER, billingType: 'PIX', value: 12.5, dueDate: '2026-12-10' },
    });
    expect(r.json.data).toMatchObject({ status: 401 });
    expect(sandbox.control.counters().charges_created).toBe(before);
    canaryClean();
  });

  it("never lets a project's own entry reach a private address, in any spelling", async () => {
    const port = new URL(canary.url).port;
    const hosts = [
      '127.0.0.1',
      '127.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '169.254.169.254',
      '0x7f000001',
      'localhost',
      '10.0.0.1',
    ];
    // No credentials needed: nothing but the address policy stands between these entries and the canary.
    const servers = hosts.map((h, i) => ({
      ...entry(`zzown${i}`, { test: `http://${h}:${port}/v1`, live: `http://${h}:${port}/v1` }),
      http: { auth: { type: 'none' } },
    }));
    expect((await importAs(narrow, servers, 'project')).status).toBe(200);
    const ses = await sessionFor(
      narrow,
      servers.map((s) => s.id),
    );
    for (const s of servers) {
      const r = await proxy(narrow, ses, { server: s.id, method: 'GET', endpoint: '/latest/meta-data/' });
      expect({ server: s.id, status: r.status, error: r.json?.error }).toEqual({
        server: s.id,
        status: 409,
        error: 'provider_not_callable',
      });
    }
    // The sandbox's control listener is no more reachable than any other private address.
    const ctl = { ...entry('zzctl', { test: sandbox.controlUrl! }), http: { auth: { type: 'none' } } };
    expect((await importAs(narrow, [ctl], 'project')).status).toBe(200);
    const ses2 = await sessionFor(narrow, ['zzctl']);
    expect((await proxy(narrow, ses2, { server: 'zzctl', method: 'POST', endpoint: '/_control/reset' })).status).toBe(
      409,
    );
    canaryClean();
  });

  it('injects credentials only at the origin they were stored for: a moved provider needs a new connection', async () => {
    const ok = await proxy(key, session, { server: 'zzmoving', method: 'GET', endpoint: '/charges' });
    expect(ok.status).toBe(200);
    expect(legit.hits.at(-1)!.headers['x-api-key']).toBe(SECRET);
    // The operator moves the entry; the stored credentials stay behind.
    expect((await importAs(operator, [entry('zzmoving', { test: `${canary.url}/v1` })], 'catalog')).status).toBe(200);
    const moved = await proxy(key, session, { server: 'zzmoving', method: 'GET', endpoint: '/charges' });
    expect(moved.status).toBe(409);
    expect(moved.json).toMatchObject({ error: 'connection_required' });
    const raw = await call(key, 'POST', `/v1/sessions/${session}/execute`, {
      tool: 'zzmoving/charge',
      input: { amount: 1 },
    });
    expect(raw.json).toMatchObject({ success: false, data: { code: 'connection_required' } });
    canaryClean();
    // A new connection binds the new origin.
    expect(
      (
        await call(key, 'POST', '/v1/connections', {
          server_id: 'zzmoving',
          credentials: { api_key: 'for-the-new-origin-1' },
        })
      ).status,
    ).toBe(200);
    expect((await proxy(key, session, { server: 'zzmoving', method: 'GET', endpoint: '/charges' })).status).toBe(200);
    expect(canary.hits.map((h) => h.headers['x-api-key'])).toEqual(['for-the-new-origin-1']);
    canary.hits.length = 0;
    await importAs(operator, [entry('zzmoving', { test: `${legit.url}/v1` })], 'catalog');
  });

  it('counts a project-declared category as moving money: amount rules still hold', async () => {
    const own = entry('zzcheap', { test: 'https://zzcheap.invalid/v1' }, { category: 'other', moves_money: false });
    expect((await importAs(key, [own], 'project')).status).toBe(200);
    expect(
      (
        await call(key, 'PUT', '/v1/policy', {
          rules: [{ type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 10_000 }],
        })
      ).status,
    ).toBe(200);
    try {
      const ses = await sessionFor(key, ['zzcheap']);
      const r = await proxy(key, ses, {
        server: 'zzcheap',
        method: 'POST',
        endpoint: '/charges',
        body: { value: 9999.99 },
      });
      expect(r.status).toBe(403);
      expect(r.json).toMatchObject({ ruleType: 'max_amount' });
      const raw = await call(key, 'POST', `/v1/sessions/${ses}/execute`, {
        tool: 'zzcheap/charge',
        input: { amount: 9999.99 },
      });
      expect(raw.status).toBe(403);
    } finally {
      await call(key, 'PUT', '/v1/policy', { rules: [] });
    }
  });

  it("keeps the sandbox's control API and other tenants' sandbox data out of reach", async () => {
    sandbox.control.clearFaults();
    await call(key, 'POST', '/v1/connections', { server_id: 'asaas', credentials: { api_key: 'sandbox-asaas-key' } });
    // Under the provider's base URL, /_control is just an unknown path of the asaas prefix.
    const plain = await proxy(key, session, {
      server: 'asaas',
      method: 'POST',
      endpoint: '/_control/faults',
      body: { provider: '*', mode: '5xx' },
    });
    expect(plain.status).toBe(200);
    expect(plain.json.status).toBe(404);
    // Climbing out of the base URL is refused before anything is sent.
    for (const endpoint of [
      '/../_control/faults',
      '/%2e%2e/%2e%2e/_control/reset',
      '/..%2f..%2f_control/reset',
      '/v3/..;/..;/_control/reset',
    ]) {
      const r = await proxy(key, session, {
        server: 'asaas',
        method: 'POST',
        endpoint,
        body: { provider: '*', mode: '5xx' },
      });
      expect({ endpoint, status: r.status, error: r.json?.error }).toEqual({
        endpoint,
        status: 400,
        error: 'invalid_endpoint',
      });
    }
    expect(sandbox.control.listFaults()).toEqual([]);
    // The tenant header is Rota's to write.
    const named = await proxy(key, session, {
      server: 'asaas',
      method: 'GET',
      endpoint: '/v3/payments',
      headers: { 'X-Rota-Sandbox-Tenant': 'someone-else' },
    });
    expect(named.status).toBe(400);
    expect(named.json.error).toBe('forbidden_header');
    // Each tenant sees only its own charges.
    const otherSession = await sessionFor(other, ['asaas']);
    const made = await call(other, 'POST', `/v1/sessions/${otherSession}/execute`, {
      tool: 'asaas/create_payment',
      input: { customer: ASAAS_SANDBOX_CUSTOMER, billingType: 'PIX', value: 33.33, dueDate: '2026-12-10' },
    });
    expect(made.json.success).toBe(true);
    const id = made.json.data.body.id as string;
    expect(
      (await call(other, 'POST', `/v1/sessions/${otherSession}/execute`, { tool: 'asaas/get_payment', input: { id } }))
        .json.data.status,
    ).toBe(200);
    const peek = await call(key, 'POST', `/v1/sessions/${session}/execute`, {
      tool: 'asaas/get_payment',
      input: { id },
    });
    expect(peek.json).toMatchObject({ success: false, data: { status: 404 } });
    canaryClean();
  });

  it('masks secrets in a proxy endpoint and cuts an echoed credential out of the answer, the call row and the logs', async () => {
    const endpoint = `/things?api_key=${SECRET}&cpf=52998224725&page=2`;
    const r = await proxy(key, session, { server: 'zzecho', method: 'GET', endpoint });
    expect(r.status).toBe(200);
    // The provider got the credential it needs...
    expect(echo.hits.at(-1)!.headers['x-api-key']).toBe(ECHO_SECRET);
    // ...and echoed it back, which nobody sees.
    expect(r.text).not.toContain(ECHO_SECRET);
    expect(r.text).toContain('[redacted]');
    const row = await stack.db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id: r.json.proxy_call_id } });
    expect(JSON.stringify(row)).not.toContain(ECHO_SECRET);
    // The endpoint is written down with its query masked as params are (the provider's own answer is its output).
    const input = JSON.stringify(row.input);
    expect(input).not.toContain(SECRET);
    expect(input).not.toContain('52998224725');
    expect(input).toContain('page=2');
    const logs = await call(key, 'GET', '/v1/logs?limit=50');
    expect(logs.status).toBe(200);
    expect(logs.text).not.toContain(ECHO_SECRET);
    const entry = JSON.stringify(
      (logs.json.data ?? logs.json.logs ?? logs.json).find?.((l: { id?: string }) => l.id === r.json.proxy_call_id) ??
        logs.json,
    );
    expect(entry).toContain('page=2');
    expect(entry).not.toContain(`api_key=${SECRET}`);
  });

  it('refuses backslashes, ";" path parameters and dot segments in every encoding, dialling nothing', async () => {
    const before = echo.hits.length;
    const endpoints = [
      '/a/..%5c..%5cadmin',
      '/%2e%2e%5cadmin',
      '/a/..;/admin',
      '/a;x=1/b',
      '/a/%3b/b',
      '/a/%252e%252e/admin',
      '/a/%25252e%25252e/admin',
      '/a/%255c/b',
      '/a/.%2e/b',
      '/a/%2E/b',
      '/a\\b',
      '/a/%5C',
    ];
    for (const e of endpoints) {
      const r = await proxy(key, session, { server: 'zzecho', method: 'GET', endpoint: e });
      expect({ e, status: r.status, error: r.json?.error }).toEqual({ e, status: 400, error: 'invalid_endpoint' });
    }
    expect(echo.hits.length).toBe(before);
  });

  it('lists connections through codespar_manage_connections only with servers:read', async () => {
    const ses = await sessionFor(narrow, ['asaas']);
    const r = await call(narrow, 'POST', `/v1/sessions/${ses}/execute`, {
      tool: 'codespar_manage_connections',
      input: { action: 'list' },
    });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ error: 'forbidden' });
    expect(r.text).not.toContain('conn_');
  });
});
