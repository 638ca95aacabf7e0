import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { META_TOOL_NAMES } from '@rota/contracts';
import { ApiKeyRepository, createTestDatabase, seed } from '@rota/db';
import { freePort, testPrefix } from '@rota/service-kit/testing/redis-server';
import { insertOtherProject, insertProviders } from './helpers/session-fixtures';
import { http, startStack, type Stack } from './helpers/stack';

// Booting a stack (and, below, child processes) can take longer than Jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

const ALL = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;
const CREDENTIALS_KEY = randomBytes(32).toString('base64');
const SECRET = `sk_live_${randomBytes(12).toString('hex')}`;

type Method = 'GET' | 'POST' | 'DELETE';

function client(stack: Stack) {
  return (method: Method, path: string, key: string | null, json?: unknown, headers: Record<string, string> = {}) =>
    http(`${stack.url}${path}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      json,
    });
}

/** Everything a 404 says apart from its request id. */
const withoutRequestId = (body: Record<string, unknown>) => ({ ...body, request_id: undefined });

describe('connections, sessions and execute', () => {
  let stack: Stack;
  let api: ReturnType<typeof client>;
  let key: string; // live, proj_dev, every scope
  let testKey: string; // test environment, proj_dev
  let otherKey: string; // live, another project in another org
  let readOnly: string; // servers:read only

  const newSession = async (servers: string[] = ['zzpay', 'zzopen', 'zzcert'], k = key) => {
    const r = await api('POST', '/v1/sessions', k, { servers, user_id: 'user_123' });
    expect(r.status).toBe(201);
    return r.json.id as string;
  };
  const execute = (id: string, tool: string, input?: unknown, k = key, headers: Record<string, string> = {}) =>
    api('POST', `/v1/sessions/${id}/execute`, k, input === undefined ? { tool } : { tool, input }, headers);
  const callRows = (sessionId: string) =>
    stack.db.prisma.sessionToolCall.findMany({ where: { sessionId }, orderBy: { calledAt: 'asc' } });

  beforeAll(async () => {
    stack = await startStack({
      env: {
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        ROTA_CREDENTIALS_KEY: CREDENTIALS_KEY,
        ROTA_CREDENTIALS_KEY_ID: 'k2026',
      },
    });
    api = client(stack);
    const other = await insertOtherProject(stack.db.prisma);
    await insertProviders(stack.db.prisma, other);
    key = (await stack.key([...ALL])).key;
    testKey = (await stack.key([...ALL], { environment: 'test' })).key;
    otherKey = (await stack.key([...ALL], { projectId: other })).key;
    readOnly = (await stack.key(['servers:read'])).key;
  });
  afterAll(() => stack.close());

  describe('connections', () => {
    it('stores credentials sealed, answers 201 without them, and replaces them with 200', async () => {
      const r = await api('POST', '/v1/connections', key, { server_id: 'zzpay', credentials: { api_key: SECRET } });
      expect(r.status).toBe(201);
      expect(Object.keys(r.json).sort()).toEqual([
        'auth_type',
        'created_at',
        'environment',
        'has_credentials',
        'id',
        'server_id',
        'status',
        'updated_at',
      ]);
      expect(r.json).toMatchObject({
        server_id: 'zzpay',
        environment: 'live',
        status: 'connected',
        auth_type: 'api_key',
        has_credentials: true,
      });
      expect(r.json.id).toMatch(/^conn_[A-Za-z0-9]{24}$/);
      expect(r.text).not.toContain(SECRET);

      const row = await stack.db.prisma.connection.findUniqueOrThrow({ where: { id: r.json.id } });
      expect(row.credentialsKeyId).toBe('k2026');
      const stored = Buffer.from(row.credentialsCiphertext!);
      expect(stored.includes(Buffer.from(SECRET))).toBe(false);
      expect(stored.includes(Buffer.from('api_key'))).toBe(false);

      const again = await api('POST', '/v1/connections', key, {
        server_id: 'zzpay',
        credentials: { api_key: `${SECRET}_2` },
      });
      expect(again.status).toBe(200);
      expect(again.json.id).toBe(r.json.id);
      const after = await stack.db.prisma.connection.findUniqueOrThrow({ where: { id: r.json.id } });
      expect(Buffer.from(after.credentialsCiphertext!).equals(stored)).toBe(false);
      await api('POST', '/v1/connections', key, { server_id: 'zzpay', credentials: { api_key: SECRET } });
    });

    it('lists the connections of the key’s project and environment only', async () => {
      const live = await api('GET', '/v1/connections', readOnly);
      expect(live.status).toBe(200);
      expect(live.json.environment).toBe('live');
      expect(live.json.connections.map((c: { server_id: string }) => c.server_id)).toContain('zzpay');
      expect(live.text).not.toContain(SECRET);
      const test = await api('GET', '/v1/connections', testKey);
      expect(test.json).toEqual({ environment: 'test', connections: [] });
      const other = await api('GET', '/v1/connections', otherKey);
      expect(other.json).toEqual({ environment: 'live', connections: [] });
    });

    it('needs no credentials for a provider whose auth is none, and reports it not_required', async () => {
      const r = await api('POST', '/v1/connections', key, { server_id: 'zzopen' });
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({
        server_id: 'zzopen',
        status: 'not_required',
        has_credentials: false,
        auth_type: 'none',
      });
    });

    it('400 invalid_body with issues when a provider that needs credentials gets none', async () => {
      for (const body of [{ server_id: 'zzmsg' }, { server_id: 'zzmsg', credentials: {} }]) {
        const r = await api('POST', '/v1/connections', key, body, { 'x-request-id': 'conn-1' });
        expect(r.status).toBe(400);
        expect(r.json).toEqual({
          error: 'invalid_body',
          message: 'The request body is invalid.',
          request_id: 'conn-1',
          issues: [
            {
              path: ['credentials'],
              message: 'zzmsg authenticates with api_key; send its credentials.',
              code: 'custom',
            },
          ],
        });
      }
    });

    it('400 unknown_servers with unknown for a provider id that names nothing', async () => {
      const r = await api(
        'POST',
        '/v1/connections',
        key,
        { server_id: 'nope', credentials: { api_key: SECRET } },
        { 'x-request-id': 'conn-2' },
      );
      expect(r.status).toBe(400);
      expect(r.json).toEqual({
        error: 'unknown_servers',
        message: 'No provider has the id "nope".',
        unknown: ['nope'],
        request_id: 'conn-2',
      });
      expect(r.text).not.toContain(SECRET);
    });

    it.each([
      ['no server_id', { credentials: { api_key: 'x' } }],
      ['a non-string credential', { server_id: 'zzmsg', credentials: { api_key: 42 } }],
      ['nested credentials', { server_id: 'zzmsg', credentials: { oauth: { token: 'x' } } }],
      ['an unknown field', { server_id: 'zzmsg', credentials: { api_key: 'x' }, extra: 1 }],
      ['an empty server_id', { server_id: '', credentials: { api_key: 'x' } }],
    ])('400 invalid_body with issues for %s', async (_label, body) => {
      const r = await api('POST', '/v1/connections', key, body);
      expect(r.status).toBe(400);
      expect(r.json.error).toBe('invalid_body');
      expect(r.json.issues.length).toBeGreaterThan(0);
    });

    it('guards each route with its scope: 401 raw, 403 with the scope named', async () => {
      const none = await api('POST', '/v1/connections', null, { server_id: 'zzpay', credentials: { api_key: 'x' } });
      expect(none.status).toBe(401);
      expect(none.text).toBe('{"error":"unauthorized"}');
      const noWrite = await api('POST', '/v1/connections', readOnly, {
        server_id: 'zzpay',
        credentials: { api_key: 'x' },
      });
      expect(noWrite.status).toBe(403);
      expect(noWrite.json).toMatchObject({
        error: 'forbidden',
        message: "API key does not have the 'connections:write' scope.",
      });
      const execOnly = (await stack.key(['tools:execute'])).key;
      const noRead = await api('GET', '/v1/connections', execOnly);
      expect(noRead.status).toBe(403);
      expect(noRead.json.message).toBe("API key does not have the 'servers:read' scope.");
      const noDelete = await api('DELETE', '/v1/connections/conn_x', readOnly);
      expect(noDelete.status).toBe(403);
    });

    it('400 invalid_query for query parameters on the list', async () => {
      const r = await api('GET', '/v1/connections?server_id=zzpay', key);
      expect(r.status).toBe(400);
      expect(r.json.error).toBe('invalid_query');
      expect(r.json.issues.length).toBeGreaterThan(0);
    });

    it('deletes only within the project and environment; a second delete is 404', async () => {
      const created = await api('POST', '/v1/connections', key, {
        server_id: 'zzmsg',
        credentials: { api_key: 'temp' },
      });
      const id = created.json.id as string;
      const h = { 'x-request-id': 'del-1' };
      const foreign = await api('DELETE', `/v1/connections/${id}`, otherKey, undefined, h);
      const wrongEnv = await api('DELETE', `/v1/connections/${id}`, testKey, undefined, h);
      const never = await api('DELETE', '/v1/connections/conn_never', key, undefined, h);
      expect(foreign.status).toBe(404);
      expect(foreign.json).toEqual({
        error: 'connection_not_found',
        message: 'No connection with this id.',
        request_id: 'del-1',
      });
      expect(wrongEnv.json).toEqual(foreign.json);
      expect(never.json).toEqual(foreign.json);

      const gone = await api('DELETE', `/v1/connections/${id}`, key);
      expect(gone.status).toBe(200);
      expect(gone.json).toEqual({ id, server_id: 'zzmsg', environment: 'live', status: 'disconnected', deleted: true });
      expect(await stack.db.prisma.connection.findUnique({ where: { id } })).toBeNull();
      const twice = await api('DELETE', `/v1/connections/${id}`, key, undefined, h);
      expect(twice.status).toBe(404);
      expect(twice.json).toEqual(foreign.json);
    });
  });

  describe('sessions', () => {
    it('201 with exactly the documented fields and the session MCP URL', async () => {
      const r = await api('POST', '/v1/sessions', key, {
        servers: ['zzpay', 'zzopen'],
        user_id: 'user_123',
        metadata: { order: 'A1' },
      });
      expect(r.status).toBe(201);
      expect(Object.keys(r.json).sort()).toEqual([
        'created_at',
        'environment',
        'id',
        'mcp',
        'servers',
        'status',
        'user_id',
      ]);
      expect(r.json).toMatchObject({
        user_id: 'user_123',
        servers: ['zzpay', 'zzopen'],
        status: 'active',
        environment: 'live',
      });
      expect(r.json.id).toMatch(/^ses_[A-Za-z0-9]{24}$/);
      expect(r.json.mcp).toEqual({ url: `${stack.url}/v1/sessions/${r.json.id}/mcp`, transport: 'streamable-http' });
      expect(new Date(r.json.created_at).toISOString()).toBe(r.json.created_at);

      const got = await api('GET', `/v1/sessions/${r.json.id}`, key);
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject({ ...r.json, metadata: { order: 'A1' }, closed_at: null });
      expect(Date.parse(got.json.expires_at)).toBeGreaterThan(Date.now());
    });

    it('takes the environment of the key that creates it, and user_id is optional', async () => {
      const r = await api('POST', '/v1/sessions', testKey, { servers: ['zzpay'] });
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({ environment: 'test', user_id: null });
    });

    it('400 invalid_body with issues for an empty servers array (minimum 1)', async () => {
      const r = await api('POST', '/v1/sessions', key, { servers: [] }, { 'x-request-id': 'ses-1' });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({
        error: 'invalid_body',
        message: 'The request body is invalid.',
        request_id: 'ses-1',
      });
      expect(r.json.issues).toEqual([expect.objectContaining({ path: ['servers'], code: 'too_small' })]);
    });

    it.each([
      ['21 servers', { servers: Array.from({ length: 21 }, (_, i) => `s${i}`) }],
      ['a repeated server', { servers: ['zzpay', 'zzpay'] }],
      ['no servers', { user_id: 'u' }],
      ['servers not an array', { servers: 'zzpay' }],
      ['an unknown field', { servers: ['zzpay'], ttl: 5 }],
      ['metadata not an object', { servers: ['zzpay'], metadata: [1] }],
    ])('400 invalid_body with issues for %s', async (_label, body) => {
      const r = await api('POST', '/v1/sessions', key, body);
      expect(r.status).toBe(400);
      expect(r.json.error).toBe('invalid_body');
      expect(r.json.issues.length).toBeGreaterThan(0);
    });

    it('400 unknown_servers listing only the ids that name nothing, in the order sent', async () => {
      const r = await api(
        'POST',
        '/v1/sessions',
        key,
        { servers: ['ghost', 'zzpay', 'phantom'] },
        { 'x-request-id': 'ses-2' },
      );
      expect(r.status).toBe(400);
      expect(r.json).toEqual({
        error: 'unknown_servers',
        message: 'No provider has the id "ghost", "phantom".',
        unknown: ['ghost', 'phantom'],
        request_id: 'ses-2',
      });
    });

    it('401 raw and 403 with the scope named', async () => {
      const none = await api('POST', '/v1/sessions', null, { servers: [] });
      expect(none.status).toBe(401);
      expect(none.text).toBe('{"error":"unauthorized"}');
      const r = await api('POST', '/v1/sessions', readOnly, { servers: ['zzpay'] });
      expect(r.status).toBe(403);
      expect(r.json.message).toBe("API key does not have the 'sessions:create' scope.");
    });

    it('DELETE closes; a second DELETE answers the same closed_at', async () => {
      const id = await newSession();
      const first = await api('DELETE', `/v1/sessions/${id}`, key);
      expect(first.status).toBe(200);
      expect(Object.keys(first.json).sort()).toEqual(['closed_at', 'id', 'status']);
      expect(first.json).toMatchObject({ id, status: 'closed' });
      const second = await api('DELETE', `/v1/sessions/${id}`, key);
      expect(second.status).toBe(200);
      expect(second.json).toEqual(first.json);
      const got = await api('GET', `/v1/sessions/${id}`, key);
      expect(got.json).toMatchObject({ status: 'closed', closed_at: first.json.closed_at, expires_at: null });
    });

    it('is a 404 from another project or environment, identical to an id that never existed', async () => {
      const id = await newSession();
      const h = { 'x-request-id': 'x-404' };
      const expected = { error: 'session_not_found', message: 'No session with this id.', request_id: 'x-404' };
      const never = 'ses_' + 'A'.repeat(24);
      for (const k of [otherKey, testKey]) {
        for (const [method, path, body] of [
          ['GET', `/v1/sessions/${id}`, undefined],
          ['DELETE', `/v1/sessions/${id}`, undefined],
          ['POST', `/v1/sessions/${id}/execute`, { tool: 'codespar_list_tools' }],
        ] as const) {
          const foreign = await api(method, path, k, body, h);
          const missing = await api(method, path.replace(id, never), k, body, h);
          expect(foreign.status).toBe(404);
          expect(foreign.json).toEqual(expected);
          expect(missing.json).toEqual(foreign.json);
        }
      }
      const differentRequest = await api('GET', `/v1/sessions/${id}`, otherKey);
      expect(withoutRequestId(differentRequest.json)).toEqual(withoutRequestId(expected));
      // Untouched by the attempts.
      expect((await api('GET', `/v1/sessions/${id}`, key)).json.status).toBe('active');
      // An id that cannot exist is the same 404, not a validation error.
      const odd = await api('GET', `/v1/sessions/${encodeURIComponent('ses_$$$')}`, key, undefined, h);
      expect(odd.json).toEqual(expected);
    });

    it('expires after the idle time: execute answers 409 with status expired', async () => {
      const id = await newSession();
      await stack.db.prisma.session.update({
        where: { id },
        data: { lastActiveAt: new Date(Date.now() - 31 * 60_000) },
      });
      const r = await execute(id, 'codespar_list_tools', {}, key, { 'x-request-id': 'idle-1' });
      expect(r.status).toBe(409);
      expect(r.json).toEqual({
        error: 'session_not_active',
        message: 'The session is expired; open a new session to run tools.',
        status: 'expired',
        request_id: 'idle-1',
      });
      expect((await api('GET', `/v1/sessions/${id}`, key)).json.status).toBe('expired');
      expect(await callRows(id)).toEqual([]);
    });

    it('each call restarts the idle clock', async () => {
      const id = await newSession();
      const stale = new Date(Date.now() - 20 * 60_000);
      await stack.db.prisma.session.update({ where: { id }, data: { lastActiveAt: stale } });
      expect((await execute(id, 'codespar_list_tools')).json.success).toBe(true);
      const row = await stack.db.prisma.session.findUniqueOrThrow({ where: { id } });
      expect(row.lastActiveAt.getTime()).toBeGreaterThan(stale.getTime() + 60_000);
    });
  });

  describe('execute: order of checks', () => {
    it('401 comes before a malformed body, 403 (route scope) too', async () => {
      const id = await newSession();
      const none = await api('POST', `/v1/sessions/${id}/execute`, null, { nope: true });
      expect(none.status).toBe(401);
      expect(none.text).toBe('{"error":"unauthorized"}');
      const r = await api('POST', `/v1/sessions/${id}/execute`, readOnly, { nope: true });
      expect(r.status).toBe(403);
      expect(r.json.message).toBe("API key does not have the 'tools:execute' scope.");
    });

    it.each([
      ['no tool', { input: {} }],
      ['an empty tool', { tool: '' }],
      ['input not an object', { tool: 'codespar_list_tools', input: 'x' }],
      ['an unknown field', { tool: 'codespar_list_tools', extra: 1 }],
    ])('400 invalid_body with issues for %s', async (_label, body) => {
      const id = await newSession();
      const r = await api('POST', `/v1/sessions/${id}/execute`, key, body, { 'x-request-id': 'body-1' });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({
        error: 'invalid_body',
        message: 'The request body is invalid.',
        request_id: 'body-1',
      });
      expect(r.json.issues.length).toBeGreaterThan(0);
    });

    it('400 invalid_query with issues for a query string', async () => {
      const id = await newSession();
      const r = await api('POST', `/v1/sessions/${id}/execute?dry_run=1`, key, { tool: 'codespar_list_tools' });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: 'invalid_query', message: 'The query string is invalid.' });
      expect(r.json.issues.length).toBeGreaterThan(0);
    });

    it('a closed session with a malformed body is 400, not 409; with a good body it is 409 with the real status', async () => {
      const id = await newSession();
      await api('DELETE', `/v1/sessions/${id}`, key);
      const bad = await execute(id, '', {});
      expect(bad.status).toBe(400);
      expect(bad.json.error).toBe('invalid_body');
      const good = await execute(id, 'codespar_list_tools', {}, key, { 'x-request-id': 'closed-1' });
      expect(good.status).toBe(409);
      expect(good.json).toEqual({
        error: 'session_not_active',
        message: 'The session is closed; open a new session to run tools.',
        status: 'closed',
        request_id: 'closed-1',
      });
      // Status comes before tool resolution.
      const unknownTool = await execute(id, 'codespar_cart');
      expect(unknownTool.status).toBe(409);
      expect(await callRows(id)).toEqual([]);
    });

    it('a malformed body on another project’s session is 400: the body is read before the session', async () => {
      const id = await newSession();
      const r = await api('POST', `/v1/sessions/${id}/execute`, otherKey, { tool: 42 });
      expect(r.status).toBe(400);
    });

    it('tool resolution comes before coercion: an unknown tool with bad arguments is Tool not registered', async () => {
      const id = await newSession();
      const r = await execute(id, 'zzpay/does_not_exist', { amount: 'lots' });
      expect(r.json).toMatchObject({
        success: false,
        error: 'Tool not registered',
        data: { code: 'tool_not_registered' },
      });
    });
  });

  describe('execute: tools', () => {
    it('answers the documented result shape and records the call', async () => {
      const id = await newSession();
      const r = await execute(id, 'codespar_list_tools');
      expect(r.status).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual([
        'called_at',
        'data',
        'duration',
        'error',
        'server',
        'success',
        'tool',
        'tool_call_id',
      ]);
      expect(r.json).toMatchObject({ success: true, error: null, server: null, tool: 'codespar_list_tools' });
      expect(r.json.tool_call_id).toMatch(/^tc_[A-Za-z0-9]{24}$/);
      expect(typeof r.json.duration).toBe('number');
      const rows = await callRows(id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        id: r.json.tool_call_id,
        tool: 'codespar_list_tools',
        success: true,
        projectId: 'proj_dev',
        environment: 'live',
      });
      expect(rows[0]!.calledAt.toISOString()).toBe(r.json.called_at);
    });

    it('codespar_list_tools lists the meta-tools and the catalog tools of the session’s providers only', async () => {
      const id = await newSession(['zzpay', 'zzopen']);
      const r = await execute(id, 'codespar_list_tools');
      const names = r.json.data.tools.map((t: { name: string }) => t.name);
      expect(names.slice(0, 15)).toEqual([...META_TOOL_NAMES]);
      expect(names).toEqual(
        expect.arrayContaining([
          'codespar_list_tools',
          'zzpay/create_payment',
          'zzpay/get_payment',
          'zzopen/quote_shipping',
        ]),
      );
      expect(names).not.toContain('zzmsg/send_whatsapp');
      expect(names).not.toContain('zzpay/private_refund');
      expect(r.json.data.tools.find((t: { name: string }) => t.name === 'zzpay/create_payment')).toMatchObject({
        meta_tool: false,
        server_id: 'zzpay',
      });
      expect(r.json.data.servers).toEqual([
        { server_id: 'zzopen', connection_status: 'not_required' },
        { server_id: 'zzpay', connection_status: 'connected' },
      ]);
      expect(r.text).not.toContain(SECRET);
    });

    it.each([
      ['an unpublished meta-tool', 'codespar_cart'],
      ['a catalog tool of a provider outside the session', 'zzmsg/send_whatsapp'],
      ['another project’s own tool', 'zzpay/private_refund'],
      ['a name that is nothing', 'make_coffee'],
      ['a provider name alone', 'zzpay'],
    ])('200 success:false Tool not registered for %s, nothing written', async (_label, tool) => {
      const id = await newSession();
      const r = await execute(id, tool, { a: 1 });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        success: false,
        error: 'Tool not registered',
        data: { code: 'tool_not_registered', tool },
        tool,
        tool_call_id: null,
        server: null,
      });
      expect(await callRows(id)).toEqual([]);
    });

    it('coerces strings to integers, numbers and booleans from the tool schema before the provider call is written down', async () => {
      const id = await newSession();
      const r = await execute(id, 'zzpay/create_payment', {
        amount: ' 1500 ',
        capture: 'TRUE',
        installments: '2.5',
        note: 77,
        method: 'pix',
        extra: 'kept',
      });
      expect(r.status).toBe(200);
      // zzpay's live address is loopback: the call is recorded, then refused before anything is sent.
      expect(r.json).toMatchObject({
        success: false,
        server: 'zzpay',
        tool: 'zzpay/create_payment',
        data: { code: 'provider_not_callable', reason: 'address_refused' },
      });
      expect(r.json.error).toMatch(/address Rota does not call/);
      const [row] = await callRows(id);
      expect(row).toMatchObject({ id: r.json.tool_call_id, server: 'zzpay', success: false });
      expect(row!.input).toEqual({
        amount: 1500,
        capture: true,
        installments: 2.5,
        note: '77',
        method: 'pix',
        extra: 'kept',
      });
    });

    it.each([
      ['a fraction for an integer', { amount: '15.5' }, 'amount'],
      ['words for an integer', { amount: 'fifteen' }, 'amount'],
      ['yes for a boolean', { amount: 1, capture: 'yes' }, 'capture'],
      ['a value outside the enum', { amount: 1, method: 'card' }, 'method'],
      ['below the minimum', { amount: '0' }, 'amount'],
      ['an object for a number', { amount: { v: 1 } }, 'amount'],
      ['a missing required field', { capture: true }, 'amount'],
    ])('invalid_args for %s, with the field named and nothing written', async (_label, input, field) => {
      const id = await newSession();
      const r = await execute(id, 'zzpay/create_payment', input);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ success: false, tool_call_id: null, data: { code: 'invalid_args' } });
      expect(r.json.data.issues).toEqual([expect.objectContaining({ path: [field] })]);
      expect(await callRows(id)).toEqual([]);
    });

    it('meta-tool arguments are coerced too (limit "abc" is invalid_args before the search runs)', async () => {
      const id = await newSession();
      const r = await execute(id, 'codespar_discover', { use_case: 'pix', limit: 'abc' });
      expect(r.json).toMatchObject({
        success: false,
        data: { code: 'invalid_args', issues: [expect.objectContaining({ path: ['limit'] })] },
      });
    });

    it('meta-tool arguments must keep every keyword of the schema (checkout needs at least one item), nothing written', async () => {
      const id = await newSession();
      const r = await execute(id, 'codespar_checkout', { items: [] });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        success: false,
        tool_call_id: null,
        data: { code: 'invalid_args', issues: [expect.objectContaining({ path: ['items'] })] },
      });
      expect(await callRows(id)).toEqual([]);
    });

    it('codespar_discover with an empty use_case is 200 success:false invalid_args, nothing written', async () => {
      const id = await newSession();
      for (const input of [{ use_case: '' }, {}, { query: '   ' }]) {
        const r = await execute(id, 'codespar_discover', input);
        expect(r.status).toBe(200);
        expect(r.json).toMatchObject({
          success: false,
          tool: 'codespar_discover',
          tool_call_id: null,
          data: { code: 'invalid_args' },
        });
        expect(typeof r.json.error).toBe('string');
      }
      expect(await callRows(id)).toEqual([]);
    });

    it('codespar_discover naming another environment than the key’s is invalid_args, nothing written', async () => {
      const id = await newSession();
      const r = await execute(id, 'codespar_discover', { use_case: 'cobrar via pix', environment: 'test' });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        success: false,
        tool: 'codespar_discover',
        tool_call_id: null,
        data: { code: 'invalid_args', issues: [expect.objectContaining({ path: ['environment'] })] },
      });
      expect(await callRows(id)).toEqual([]);
    });

    it('codespar_discover runs in the search service with coerced arguments and is recorded', async () => {
      const id = await newSession();
      const r = await execute(id, 'codespar_discover', {
        use_case: 'send a whatsapp message to a customer',
        limit: '3',
      });
      expect(r.status).toBe(200);
      expect(r.json.success).toBe(true);
      expect(r.json.data).toMatchObject({ use_case: 'send a whatsapp message to a customer' });
      expect(['embedding', 'trigram', 'empty']).toContain(r.json.data.search_strategy);
      expect(r.json.data.related.length).toBeLessThanOrEqual(3);
      expect(Array.isArray(r.json.data.meta_tools)).toBe(true);
      const [row] = await callRows(id);
      expect(row).toMatchObject({ tool: 'codespar_discover', success: true });
      expect(row!.input).toEqual({ use_case: 'send a whatsapp message to a customer', limit: 3 });
    });

    it('codespar_discover, whose search starts before the session checks, is still refused in order and writes nothing', async () => {
      const closed = await newSession();
      await api('DELETE', `/v1/sessions/${closed}`, key);
      const r409 = await execute(closed, 'codespar_discover', { use_case: 'cobrar via pix' });
      expect(r409.status).toBe(409);
      expect(r409.json).toMatchObject({ error: 'session_not_active', status: 'closed' });
      expect(await callRows(closed)).toEqual([]);

      const foreign = await newSession();
      const r404 = await api('POST', `/v1/sessions/${foreign}/execute`, otherKey, {
        tool: 'codespar_discover',
        input: { use_case: 'cobrar via pix' },
      });
      expect(r404.status).toBe(404);
      expect(r404.json.error).toBe('session_not_found');
      expect(await callRows(foreign)).toEqual([]);

      // The same session answers normally afterwards, and the duration covers the whole search.
      const ok = await execute(foreign, 'codespar_discover', { use_case: 'cobrar via pix' });
      expect(ok.json.success).toBe(true);
      expect(ok.json.duration).toBeGreaterThan(0);
      expect(await callRows(foreign)).toHaveLength(1);
    });

    it('codespar_get_started: the ordered path, with the connection step done from real connections', async () => {
      const id = await newSession(['zzpay']);
      const r = await execute(id, 'codespar_get_started');
      expect(r.json.success).toBe(true);
      const data = r.json.data;
      expect(data.steps.map((s: { step: number }) => s.step)).toEqual(data.steps.map((_: unknown, i: number) => i + 1));
      expect(data.steps.map((s: { id: string }) => s.id)).toEqual([
        'api_key',
        'connect_provider',
        'open_session',
        'discover',
        'first_call',
      ]);
      expect(data.steps.find((s: { id: string }) => s.id === 'connect_provider')).toMatchObject({
        done: true,
        tool: 'codespar_manage_connections',
      });
      expect(data.steps.find((s: { id: string }) => s.id === 'open_session').done).toBe(true);
      expect(data.connected).toContain('zzpay');
      expect(data.suggested_tools[0].tool).toBe('codespar_charge');

      // A test-environment project with nothing connected starts at the connection step, and has a go-live step.
      const fresh = await newSession(['zzcert'], testKey);
      const t = (await execute(fresh, 'codespar_get_started', {}, testKey)).json.data;
      expect(t.connected).toEqual([]);
      expect(t.steps.find((s: { id: string }) => s.id === 'connect_provider').done).toBe(false);
      expect(t.steps.at(-1).id).toBe('go_live');
    });

    it('codespar_manage_connections list and status report connected, disconnected and not_required', async () => {
      const id = await newSession(['zzpay', 'zzcert', 'zzopen']);
      const list = await execute(id, 'codespar_manage_connections', { action: 'list' });
      expect(list.json.success).toBe(true);
      const byId = Object.fromEntries(
        list.json.data.connections.map((c: { server_id: string; status: string }) => [c.server_id, c.status]),
      );
      expect(byId).toMatchObject({ zzpay: 'connected', zzcert: 'disconnected', zzopen: 'not_required' });
      expect(list.text).not.toContain(SECRET);

      const one = await execute(id, 'codespar_manage_connections', { action: 'status', server_id: 'zzcert' });
      expect(one.json.data).toEqual({
        action: 'status',
        environment: 'live',
        connections: [
          {
            server_id: 'zzcert',
            name: 'ZZ Cert Bank',
            category: 'banking',
            auth_type: 'certificate',
            status: 'disconnected',
            connected_at: null,
          },
        ],
      });
      // A key acts in its own environment only: naming the other one is refused, and nothing is written.
      const inTest = await execute(id, 'codespar_manage_connections', {
        action: 'status',
        server_id: 'zzpay',
        environment: 'test',
      });
      expect(inTest.json).toMatchObject({ success: false, data: { code: 'invalid_args' }, tool_call_id: null });
      const inLive = await execute(id, 'codespar_manage_connections', {
        action: 'status',
        server_id: 'zzpay',
        environment: 'live',
      });
      expect(inLive.json.data.connections[0].status).toBe('connected');

      const unknown = await execute(id, 'codespar_manage_connections', { action: 'status', server_id: 'ghost' });
      expect(unknown.json).toMatchObject({ success: false, data: { code: 'unknown_server' } });
      const badAction = await execute(id, 'codespar_manage_connections', { action: 'delete_everything' });
      expect(badAction.json).toMatchObject({ success: false, data: { code: 'invalid_args' }, tool_call_id: null });
    });

    it('records a large output by its size only, while the caller still gets all of it', async () => {
      await stack.db.prisma.provider.create({
        data: {
          id: 'zzbig',
          name: 'ZZ Big',
          description: 'many tools',
          category: 'erp',
          countries: ['BR'],
          authType: 'api_key',
          selfServeAuth: true,
          baseUrls: {},
        },
      });
      await stack.db.prisma.mcpTool.createMany({
        data: Array.from({ length: 80 }, (_, i) => ({
          serverId: 'zzbig',
          toolName: `op_${i}`,
          description: `Operation ${i} `.padEnd(240, '.'),
          descriptionHash: `big${i}`,
        })),
      });
      const id = await newSession(['zzbig']);
      const r = await execute(id, 'codespar_list_tools');
      expect(r.json.data.tools).toHaveLength(16 + 80);
      const [row] = await callRows(id);
      expect(row!.output).toEqual({ omitted: true, bytes: Buffer.byteLength(JSON.stringify(r.json.data)) });
    });

    it('calls that reach dispatch but cannot run are answered with their reason and recorded; raw tools are called', async () => {
      const id = await newSession();
      for (const [tool, input, code] of [
        // Charge rails exist, but none of their providers is connected here: nothing is sent.
        [
          'codespar_charge',
          { amount: '50', currency: 'BRL', method: 'pix', description: 'x', buyer: {} },
          'connection_required',
        ],
        // zzcert's catalog entry does not say how it authenticates: nothing to connect through.
        ['codespar_manage_connections', { action: 'connect_start', server_id: 'zzcert' }, 'provider_not_callable'],
        // zzpay's live address is loopback, which Rota does not call.
        ['zzpay/get_payment', { id: 'p1' }, 'provider_not_callable'],
      ] as const) {
        const r = await execute(id, tool, input);
        expect(r.status).toBe(200);
        expect(r.json).toMatchObject({ success: false, tool, data: { code } });
        expect(r.json.tool_call_id).toMatch(/^tc_/);
      }
      expect(await callRows(id)).toHaveLength(3);
    });
  });
});

describe('execute with the quota and the action scope gate enforced', () => {
  let stack: Stack;
  let api: ReturnType<typeof client>;
  let key: string;

  beforeAll(async () => {
    stack = await startStack({
      env: {
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        ROTA_QUOTA_ENFORCE: 'true',
        META_TOOL_ACTION_SCOPES_ENFORCE: 'true',
      },
    });
    api = client(stack);
    const other = await insertOtherProject(stack.db.prisma);
    await insertProviders(stack.db.prisma, other);
    key = (await stack.key(['sessions:create', 'tools:execute', 'servers:read'])).key;
  });
  afterAll(() => stack.close());

  const open = async (k: string) => (await api('POST', '/v1/sessions', k, { servers: ['zzpay'] })).json.id as string;
  const exec = (id: string, k: string, body: unknown, rid = 'q-1') =>
    api('POST', `/v1/sessions/${id}/execute`, k, body, { 'x-request-id': rid });

  it('403 quota_exceeded with plan, limit and used once the org used its monthly calls, before tool resolution', async () => {
    await stack.db.prisma.org.update({ where: { id: 'org_dev' }, data: { quotaMonthlyCalls: 2 } });
    const id = await open(key);
    expect((await exec(id, key, { tool: 'codespar_list_tools' })).json.success).toBe(true);
    expect((await exec(id, key, { tool: 'codespar_get_started' })).json.success).toBe(true);
    const over = await exec(id, key, { tool: 'codespar_list_tools' });
    expect(over.status).toBe(403);
    expect(over.json).toEqual({
      error: 'quota_exceeded',
      message: 'The org has used its 2 tool calls for this month.',
      plan: 'free',
      limit: 2,
      used: 2,
      request_id: 'q-1',
    });
    // Before resolution: an unregistered tool gets the same refusal.
    expect((await exec(id, key, { tool: 'codespar_cart' })).json.error).toBe('quota_exceeded');
    // After body and status: a malformed body is 400, a closed session 409.
    expect((await exec(id, key, { tool: '' })).status).toBe(400);
    await api('DELETE', `/v1/sessions/${id}`, key);
    expect((await exec(id, key, { tool: 'codespar_list_tools' })).status).toBe(409);
    await stack.db.prisma.org.update({ where: { id: 'org_dev' }, data: { quotaMonthlyCalls: null } });
    const fresh = await open(key);
    expect((await exec(fresh, key, { tool: 'codespar_list_tools' })).json.success).toBe(true);
  });

  it('refuses an action whose scope the key lacks, after coercion', async () => {
    const narrow = (await stack.key(['sessions:create', 'tools:execute'], { projectId: 'proj_other' })).key;
    const id = await open(narrow);
    const r = await exec(id, narrow, { tool: 'codespar_manage_connections', input: { action: 'list' } }, 'gate-1');
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      error: 'forbidden',
      message: "API key does not have the 'servers:read' scope.",
      request_id: 'gate-1',
    });
    const write = await exec(id, narrow, { tool: 'codespar_manage_connections', input: { action: 'connect_start' } });
    expect(write.json.message).toBe("API key does not have the 'connections:write' scope.");
    // Coercion runs first: an impossible argument is invalid_args, not 403.
    const bad = await exec(id, narrow, { tool: 'codespar_manage_connections', input: { action: 'nonsense' } });
    expect(bad.status).toBe(200);
    expect(bad.json.data.code).toBe('invalid_args');
    // codespar_discover maps to tools:execute, which the key has.
    const discover = await exec(id, narrow, { tool: 'codespar_discover', input: { use_case: 'emitir nota fiscal' } });
    expect(discover.status).toBe(200);
    expect(discover.json.success).toBe(true);
    expect(await stack.db.prisma.sessionToolCall.count({ where: { sessionId: id } })).toBe(1);
  });
});

describe('credentials never reach the logs', () => {
  const ROOT = join(__dirname, '..');
  const procs: ChildProcess[] = [];
  let output = '';
  let db: Awaited<ReturnType<typeof createTestDatabase>>;

  const start = (script: string, env: Record<string, string>) => {
    const p = spawn(process.execPath, [join(ROOT, script)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    p.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    procs.push(p);
    return p;
  };

  beforeAll(async () => {
    for (const f of ['apps/session/dist/main.js', 'apps/gateway/dist/main.js']) {
      if (!existsSync(join(ROOT, f)))
        throw new Error(`${f} is missing: run \`pnpm build\` first (scripts/test.sh does)`);
    }
    db = await createTestDatabase();
    await seed(db.prisma);
    await insertProviders(db.prisma, await insertOtherProject(db.prisma));
  });
  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
    await db?.drop();
  });

  it('logs requests at trace level without any credential value', async () => {
    const port = await freePort();
    const env = {
      DATABASE_URL: db.url,
      ROTA_REDIS_PREFIX: testPrefix('logs'),
      LOG_LEVEL: 'trace',
      PORT: String(port),
      HOST: '127.0.0.1',
      ROTA_CREDENTIALS_KEY: CREDENTIALS_KEY,
    };
    start('apps/session/dist/main.js', env);
    start('apps/gateway/dist/main.js', env);
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 200; i++) {
      const up = await fetch(`${base}/health/live`).then(
        (r) => r.ok,
        () => false,
      );
      if (up && output.includes('session service listening')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const { key } = await new ApiKeyRepository(db.prisma).create({
      projectId: 'proj_dev',
      environment: 'live',
      scopes: [...ALL],
    });
    const call = (method: Method, path: string, json?: unknown) =>
      http(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}` }, json });

    const secret = `sk_live_LOGCHECK_${randomBytes(8).toString('hex')}`;
    const saved = await call('POST', '/v1/connections', {
      server_id: 'zzpay',
      credentials: { api_key: secret, password: `${secret}-pw` },
    });
    expect(saved.status).toBe(201);
    expect(
      (await call('POST', '/v1/connections', { server_id: 'ghost', credentials: { api_key: secret } })).status,
    ).toBe(400);
    expect(
      (await call('POST', '/v1/connections', { server_id: 'zzpay', credentials: { api_key: secret, bad: 1 } })).status,
    ).toBe(400);
    expect((await call('GET', '/v1/connections')).text).not.toContain(secret);
    const session = await call('POST', '/v1/sessions', { servers: ['zzpay'] });
    const listed = await call('POST', `/v1/sessions/${session.json.id}/execute`, {
      tool: 'codespar_manage_connections',
      input: { action: 'list' },
    });
    expect(listed.text).not.toContain(secret);

    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => (p.exitCode !== null ? undefined : new Promise((r) => p.once('exit', r)))));
    // The logs exist and cover these requests; none holds the secret.
    expect(output).toMatch(/"url":"\/v1\/connections"/);
    expect(output).toMatch(/"pattern":"session\.connections\.save"/);
    expect(output).toMatch(/"msg":"tool call"/);
    expect(output).not.toContain(secret);
  }, 60_000);
});
