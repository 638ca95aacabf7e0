import { ApiKeyRepository } from '@rota/db';
import { Rota, RotaError } from '@rota/sdk';
import { insertOtherProject, insertProviders } from './helpers/session-fixtures';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(60_000);

const ALL = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write', 'keys:write'] as const;

type Method = 'GET' | 'POST' | 'DELETE';

/** Polls until `check` holds or 30 s pass (far above any cache lifetime), then returns its last answer. */
async function eventually<T>(probe: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  const giveUp = Date.now() + 30_000;
  let v = await probe();
  while (!check(v) && Date.now() < giveUp) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    v = await probe();
  }
  return v;
}

describe('short-lived keys (POST /v1/keys)', () => {
  let stack: Stack;
  let parent: { id: string; key: string };
  const api = (
    method: Method,
    path: string,
    key: string | null,
    json?: unknown,
    headers: Record<string, string> = {},
  ) =>
    http(`${stack.url}${path}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      json,
    });
  const mint = (body: unknown, key = parent.key) => api('POST', '/v1/keys', key, body);
  const openSession = async (key: string, userId?: string) => {
    const r = await api('POST', '/v1/sessions', key, { servers: ['zzopen'], ...(userId ? { user_id: userId } : {}) });
    expect(r.status).toBe(201);
    return r.json as { id: string; user_id: string | null };
  };

  beforeAll(async () => {
    stack = await startStack({ env: { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', ROTA_KEYS_MINT_PER_MIN: '1000' } });
    await insertProviders(stack.db.prisma, await insertOtherProject(stack.db.prisma));
    parent = await stack.key([...ALL]);
  });
  afterAll(() => stack.close());

  it('mints a child of the caller’s project and environment, expiring in an hour by default, that works like any key', async () => {
    const before = Date.now();
    const r = await mint({ scopes: ['sessions:create', 'tools:execute'], name: 'agent' });
    expect(r.status).toBe(201);
    expect(r.json).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^csk_live_[A-Za-z0-9]{32}$/),
      prefix: r.json.key.slice(0, 12),
      name: 'agent',
      scopes: ['sessions:create', 'tools:execute'],
      environment: 'live',
      parent_id: parent.id,
      session_id: null,
      user_id: null,
      created_at: expect.any(String),
      expires_at: expect.any(String),
    });
    const ttl = Date.parse(r.json.expires_at) - before;
    expect(ttl).toBeGreaterThan(3590_000);
    expect(ttl).toBeLessThanOrEqual(3600_000 + 5_000);
    // The secret is stored only as its hash.
    const row = await stack.db.prisma.apiKey.findUniqueOrThrow({ where: { id: r.json.id } });
    expect(row).toMatchObject({ projectId: 'proj_dev', environment: 'live', parentId: parent.id });
    expect(JSON.stringify(row)).not.toContain(r.json.key);
    const session = await openSession(r.json.key);
    expect((await api('GET', `/v1/sessions/${session.id}`, r.json.key)).status).toBe(200);
  });

  it('answers 401 with the raw body once the key expires', async () => {
    const r = await mint({ scopes: ['sessions:create'], expires_in: 2 });
    expect(r.status).toBe(201);
    const session = await openSession(r.json.key);
    const after = await eventually(
      () => api('GET', `/v1/sessions/${session.id}`, r.json.key),
      (res) => res.status !== 200,
    );
    expect(after.status).toBe(401);
    expect(after.text).toBe('{"error":"unauthorized"}');
    // Never before its expiry.
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(r.json.expires_at));
  });

  it('refuses scopes the caller lacks, keys:write and admin, and changes nothing', async () => {
    const narrow = await stack.key(['sessions:create', 'keys:write']);
    const before = await stack.db.prisma.apiKey.count();
    const wider = await mint({ scopes: ['sessions:create', 'tools:execute'] }, narrow.key);
    expect(wider.status).toBe(403);
    expect(wider.json).toMatchObject({ error: 'forbidden', missing: ['tools:execute'] });
    const minting = await mint({ scopes: ['keys:write'] });
    expect(minting.status).toBe(403);
    expect(minting.json.error).toBe('forbidden');
    const admin = await mint({ scopes: ['admin'] });
    expect(admin.status).toBe(400);
    expect(admin.json.error).toBe('invalid_body');
    for (const body of [
      { scopes: [] },
      { scopes: ['servers:read'], expires_in: 0 },
      { scopes: ['servers:read'], expires_in: 30 * 86400 + 1 },
      { scopes: ['servers:read'], x: 1 },
    ]) {
      const bad = await mint(body);
      expect(bad.status).toBe(400);
      expect(bad.json.error).toBe('invalid_body');
    }
    expect(await stack.db.prisma.apiKey.count()).toBe(before);
  });

  it('accepts up to 30 days, and never lets a child outlive its parent', async () => {
    const month = await mint({ scopes: ['servers:read'], expires_in: 30 * 86400 });
    expect(month.status).toBe(201);
    const short = await new ApiKeyRepository(stack.db.prisma).create({
      projectId: 'proj_dev',
      environment: 'live',
      scopes: ['servers:read', 'keys:write'],
      expiresAt: new Date(Date.now() + 600_000),
    });
    const child = await mint({ scopes: ['servers:read'], expires_in: 86400 }, short.key);
    expect(child.status).toBe(201);
    expect(child.json.expires_at).toBe(short.expiresAt!.toISOString());
  });

  it('403 for a key without keys:write, for a child key, and for operator keys', async () => {
    const plain = await stack.key(['servers:read']);
    expect((await mint({ scopes: ['servers:read'] }, plain.key)).status).toBe(403);
    const child = await mint({ scopes: ['servers:read'] });
    expect((await mint({ scopes: ['servers:read'] }, child.json.key)).status).toBe(403);
    const operator = await stack.operatorKey();
    const r = await mint({ scopes: ['servers:read'] }, operator.key);
    expect(r.status).toBe(403);
    expect(r.json.error).toBe('forbidden');
  });

  it('a test-environment parent mints test keys that see only test sessions', async () => {
    const testParent = await stack.key([...ALL], { environment: 'test' });
    const r = await mint({ scopes: ['sessions:create'] }, testParent.key);
    expect(r.json).toMatchObject({ environment: 'test', key: expect.stringMatching(/^csk_test_/) });
    const live = await openSession(parent.key);
    expect((await api('GET', `/v1/sessions/${live.id}`, r.json.key)).status).toBe(404);
  });

  describe('session-bound keys', () => {
    it('reach only their session: another session is the unknown-session 404, other routes 403', async () => {
      const mine = await openSession(parent.key, 'user_a');
      const other = await openSession(parent.key, 'user_a');
      const r = await mint({ scopes: ['sessions:create', 'tools:execute', 'servers:read'], session_id: mine.id });
      expect(r.status).toBe(201);
      expect(r.json.session_id).toBe(mine.id);
      const k = r.json.key as string;
      expect((await api('GET', `/v1/sessions/${mine.id}`, k)).status).toBe(200);
      const ran = await api('POST', `/v1/sessions/${mine.id}/execute`, k, { tool: 'codespar_get_started' });
      expect(ran.status).toBe(200);

      const elsewhere = await api('GET', `/v1/sessions/${other.id}`, k, undefined, { 'x-request-id': 'bound-1' });
      const unknown = await api('GET', `/v1/sessions/ses_doesnotexist`, parent.key, undefined, {
        'x-request-id': 'bound-1',
      });
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.json).toEqual(unknown.json);
      expect((await api('POST', `/v1/sessions/${other.id}/execute`, k, { tool: 'codespar_get_started' })).status).toBe(
        404,
      );
      expect((await api('DELETE', `/v1/sessions/${other.id}`, k)).status).toBe(404);

      expect((await api('POST', '/v1/sessions', k, { servers: ['zzopen'] })).status).toBe(403);
      expect((await api('GET', '/v1/connections', k)).status).toBe(403);
      expect((await api('POST', '/v1/tools/search', k, { query: 'pay' })).status).toBe(403);
      // MCP bound to its own session works; the project transport does not.
      const init = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      const mcpHeaders = { accept: 'application/json, text/event-stream' };
      expect((await api('POST', `/v1/sessions/${mine.id}/mcp`, k, init, mcpHeaders)).status).toBe(200);
      expect((await api('POST', `/v1/sessions/${other.id}/mcp`, k, init, mcpHeaders)).status).toBe(404);
      expect((await api('POST', `/mcp`, k, init, mcpHeaders)).status).toBe(403);
    });

    it('404 when the session is not the project’s and environment’s', async () => {
      const testParent = await stack.key([...ALL], { environment: 'test' });
      const live = await openSession(parent.key);
      const r = await mint({ scopes: ['sessions:create'], session_id: live.id }, testParent.key);
      expect(r.status).toBe(404);
      expect(r.json.error).toBe('session_not_found');
      expect((await mint({ scopes: ['sessions:create'], session_id: 'ses_nope' })).status).toBe(404);
    });
  });

  describe('user-bound keys', () => {
    it('open sessions only for their user and see only that user’s sessions', async () => {
      const r = await mint({ scopes: ['sessions:create', 'tools:execute'], user_id: 'user_b' });
      expect(r.json.user_id).toBe('user_b');
      const k = r.json.key as string;
      const own = await openSession(k);
      expect(own.user_id).toBe('user_b');
      expect((await openSession(k, 'user_b')).user_id).toBe('user_b');
      const foreign = await api('POST', '/v1/sessions', k, { servers: ['zzopen'], user_id: 'user_c' });
      expect(foreign.status).toBe(403);
      expect(foreign.json.error).toBe('forbidden');

      const theirs = await openSession(parent.key, 'user_c');
      const unowned = await openSession(parent.key);
      for (const id of [theirs.id, unowned.id]) {
        expect((await api('GET', `/v1/sessions/${id}`, k)).status).toBe(404);
        expect((await api('POST', `/v1/sessions/${id}/execute`, k, { tool: 'codespar_get_started' })).status).toBe(404);
        expect((await api('DELETE', `/v1/sessions/${id}`, k)).status).toBe(404);
      }
      // Another user's stored answer is not replayed to it under the same Idempotency-Key either.
      const idem = { 'idempotency-key': 'order-42' };
      const first = await api(
        'POST',
        `/v1/sessions/${theirs.id}/execute`,
        parent.key,
        { tool: 'codespar_get_started' },
        idem,
      );
      expect(first.status).toBe(200);
      const replay = await api('POST', `/v1/sessions/${theirs.id}/execute`, k, { tool: 'codespar_get_started' }, idem);
      expect(replay.status).toBe(404);
      expect(replay.headers.get('idempotent-replayed')).toBeNull();
      // Still open: the refused close changed nothing.
      expect((await api('GET', `/v1/sessions/${theirs.id}`, parent.key)).json.status).toBe('active');
      expect((await api('POST', `/v1/sessions/${own.id}/execute`, k, { tool: 'codespar_get_started' })).status).toBe(
        200,
      );
      expect((await api('DELETE', `/v1/sessions/${own.id}`, k)).status).toBe(200);
    });

    it('reach the catalog, sessions and MCP, and get 403 on every route that shows or changes the whole project', async () => {
      const r = await mint({
        scopes: ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'],
        user_id: 'user_e',
      });
      const k = r.json.key as string;
      expect((await api('GET', '/v1/servers', k)).status).toBe(200);
      const init = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      expect((await api('POST', '/mcp', k, init, { accept: 'application/json, text/event-stream' })).status).toBe(200);
      for (const [method, path] of [
        ['GET', '/v1/connections'],
        ['GET', '/v1/policy'],
        ['GET', '/v1/approvals'],
        ['GET', '/v1/usage'],
        ['GET', '/v1/health'],
        ['GET', '/v1/router/metrics'],
      ] as const) {
        const refused = await api(method, path, k);
        expect([path, refused.status, refused.json?.error]).toEqual([path, 403, 'forbidden']);
      }
      const conn = await api('POST', '/v1/connections', k, { server_id: 'zzopen' });
      expect(conn.status).toBe(403);
      expect(await stack.db.prisma.connection.count({ where: { serverId: 'zzopen' } })).toBe(0);
    });

    it('a session-bound key for a user must name a session of that user', async () => {
      const theirs = await openSession(parent.key, 'user_c');
      const r = await mint({ scopes: ['sessions:create'], user_id: 'user_b', session_id: theirs.id });
      expect(r.status).toBe(400);
      expect(r.json.error).toBe('invalid_body');
    });
  });

  it('revoking the parent revokes every child within the auth cache, and marks them revoked', async () => {
    const own = await stack.key([...ALL]);
    const a = await mint({ scopes: ['sessions:create'] }, own.key);
    const b = await mint({ scopes: ['sessions:create'], user_id: 'user_z' }, own.key);
    const s = await openSession(own.key);
    for (const k of [a.json.key, b.json.key])
      expect((await api('POST', '/v1/sessions', k, { servers: ['zzopen'] })).status).toBe(201);
    await new ApiKeyRepository(stack.db.prisma).revoke(own.id);
    for (const k of [a.json.key, b.json.key]) {
      const r = await eventually(
        () => api('GET', `/v1/sessions/${s.id}`, k),
        (res) => res.status === 401,
      );
      expect(r.status).toBe(401);
      expect(r.text).toBe('{"error":"unauthorized"}');
    }
    const rows = await stack.db.prisma.apiKey.findMany({ where: { id: { in: [a.json.id, b.json.id] } } });
    expect(rows.every((row) => row.revokedAt !== null)).toBe(true);
    // A revoked parent mints nothing.
    const after = await eventually(
      () => mint({ scopes: ['sessions:create'] }, own.key),
      (res) => res.status === 401,
    );
    expect(after.status).toBe(401);
  });

  it('dashboards: a short-lived key’s cookie ends with the key, and bound keys get 403', async () => {
    const r = await mint({ scopes: ['servers:read'], expires_in: 3 });
    const signIn = (key: string) => http(`${stack.url}/dashboard/session`, { method: 'POST', json: { key } });
    const res = await signIn(r.json.key);
    expect(res.status).toBe(204);
    const maxAge = Number(/Max-Age=(\d+)/.exec(res.headers.get('set-cookie')!)![1]);
    expect(maxAge).toBeGreaterThanOrEqual(1);
    expect(maxAge).toBeLessThanOrEqual(3);
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    // The cookie's store entry and the key end together; the database says no even if a store entry were left.
    const after = await eventually(
      () => http(`${stack.url}/dashboard/data/health`, { headers: { cookie } }),
      (x) => x.status === 401,
    );
    expect(after.status).toBe(401);
    const s = await openSession(parent.key);
    for (const body of [
      { scopes: ['servers:read'], user_id: 'user_d' },
      { scopes: ['servers:read', 'sessions:create'], session_id: s.id },
    ]) {
      const bound = await mint(body);
      const refused = await signIn(bound.json.key);
      expect(refused.status).toBe(403);
      expect(refused.json.error).toBe('forbidden');
      expect(refused.headers.get('set-cookie')).toBeNull();
    }
  });

  it('limits how many keys one key mints per minute', async () => {
    const limited = await startStack({
      env: { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', ROTA_KEYS_MINT_PER_MIN: '2' },
    });
    try {
      const k = await limited.key(['servers:read', 'keys:write']);
      const go = () =>
        http(`${limited.url}/v1/keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${k.key}` },
          json: { scopes: ['servers:read'] },
        });
      expect((await go()).status).toBe(201);
      expect((await go()).status).toBe(201);
      const third = await go();
      expect(third.status).toBe(429);
      expect(third.json.error).toBe('rate_limited');
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another key has its own count.
      const k2 = await limited.key(['servers:read', 'keys:write']);
      const other = await http(`${limited.url}/v1/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k2.key}` },
        json: { scopes: ['servers:read'] },
      });
      expect(other.status).toBe(201);
    } finally {
      await limited.close();
    }
  });

  it('the SDK’s rota.keys.create mints one, and throws RotaError for a refusal', async () => {
    const rota = new Rota({ apiKey: parent.key, baseUrl: stack.url });
    const created = await rota.keys.create({ scopes: ['servers:read'], expires_in: 60, user_id: 'user_sdk' });
    expect(created).toMatchObject({ scopes: ['servers:read'], user_id: 'user_sdk', parent_id: parent.id });
    const err = await rota.keys.create({ scopes: ['keys:write'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RotaError);
    expect(err).toMatchObject({ status: 403, code: 'forbidden' });
  });
});
