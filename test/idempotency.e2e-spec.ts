import Redis from 'ioredis';
import { idempotencyMarkerKey } from '@rota/service-kit';
import { requestHash } from '../apps/session/src/calls/request-hash';
import { insertOtherProject, insertProviders } from './helpers/session-fixtures';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(60_000);

const SCOPES = ['servers:read', 'sessions:create', 'tools:execute'] as const;

describe('Idempotency-Key on execute', () => {
  let stack: Stack;
  let key: string;
  let otherKey: string;
  let session: string;

  const execute = (id: string, body: unknown, k = key, headers: Record<string, string> = {}) =>
    http(`${stack.url}/v1/sessions/${id}/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k}`, ...headers },
      json: body,
    });
  const rows = () => stack.db.prisma.sessionToolCall.count();
  const keys = () => stack.db.prisma.idempotencyKey.count();

  beforeAll(async () => {
    stack = await startStack();
    const other = await insertOtherProject(stack.db.prisma);
    await insertProviders(stack.db.prisma, other);
    key = (await stack.key([...SCOPES])).key;
    otherKey = (await stack.key([...SCOPES], { projectId: other })).key;
    const s = await http(`${stack.url}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      json: { servers: ['zzpay'] },
    });
    session = s.json.id;
  });
  afterAll(() => stack.close());

  it('runs a call once: a repeat gets the stored answer with Idempotent-Replayed and writes nothing', async () => {
    const before = await rows();
    const first = await execute(session, { tool: 'codespar_list_tools' }, key, { 'idempotency-key': 'order-1001' });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(first.json.tool_call_id).toMatch(/^tc_/);
    expect(await rows()).toBe(before + 1);

    const again = await execute(session, { tool: 'codespar_list_tools' }, key, { 'idempotency-key': 'order-1001' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
    expect(await rows()).toBe(before + 1);

    const row = await stack.db.prisma.idempotencyKey.findFirst({ where: { key: 'order-1001' } });
    expect(row).toMatchObject({
      state: 'done',
      toolCallId: first.json.tool_call_id,
      projectId: 'proj_dev',
      environment: 'live',
    });
  });

  it('refuses the same key for a different request with 409 idempotency_key_reused', async () => {
    await execute(session, { tool: 'codespar_list_tools' }, key, { 'idempotency-key': 'order-2002' });
    const before = await rows();
    const r = await execute(session, { tool: 'codespar_get_started' }, key, {
      'idempotency-key': 'order-2002',
      'x-request-id': 'idem-1',
    });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ error: 'idempotency_key_reused', request_id: 'idem-1' });
    expect(await rows()).toBe(before);
  });

  it('refuses a malformed key with 400 invalid_idempotency_key and writes nothing', async () => {
    const [before, keysBefore] = [await rows(), await keys()];
    for (const bad of ['x'.repeat(256), 'tab\tinside', 'é-not-ascii']) {
      const r = await execute(session, { tool: 'codespar_list_tools' }, key, { 'idempotency-key': bad });
      expect({ bad, status: r.status, error: r.json?.error }).toEqual({
        bad,
        status: 400,
        error: 'invalid_idempotency_key',
      });
    }
    expect(await rows()).toBe(before);
    expect(await keys()).toBe(keysBefore);
  });

  it('keeps keys per project: another tenant using the same key runs its own call', async () => {
    const s = await http(`${stack.url}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${otherKey}` },
      json: { servers: ['zzpay'] },
    });
    const r = await execute(s.json.id, { tool: 'codespar_list_tools' }, otherKey, { 'idempotency-key': 'order-1001' });
    expect(r.status).toBe(200);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
  });

  it('gives the key back after a refusal that ran nothing', async () => {
    const missing = await execute('ses_does_not_exist', { tool: 'codespar_list_tools' }, key, {
      'idempotency-key': 'order-3003',
    });
    expect(missing.status).toBe(404);
    expect(await stack.db.prisma.idempotencyKey.count({ where: { key: 'order-3003' } })).toBe(0);
    const r = await execute(session, { tool: 'codespar_list_tools' }, key, { 'idempotency-key': 'order-3003' });
    expect(r.status).toBe(200);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 409 request_in_progress while the first request runs, and takes over a claim abandoned before dispatch', async () => {
    const body = { tool: 'codespar_list_tools', input: {} };
    const hash = requestHash({ session_id: session, tool: body.tool, input: body.input });
    const base = {
      orgId: 'org_dev',
      projectId: 'proj_dev',
      environment: 'live' as const,
      requestHash: hash,
      state: 'running',
      expiresAt: new Date(Date.now() + 3_600_000),
    };
    await stack.db.prisma.idempotencyKey.create({
      data: { ...base, key: 'busy-1', deadline: new Date(Date.now() + 60_000) },
    });
    const busy = await execute(session, body, key, { 'idempotency-key': 'busy-1' });
    expect(busy.status).toBe(409);
    expect(busy.json.error).toBe('request_in_progress');

    // Past its deadline with no call row: it provably dispatched nothing.
    await stack.db.prisma.idempotencyKey.create({
      data: { ...base, key: 'stale-1', deadline: new Date(Date.now() - 60_000) },
    });
    const before = await rows();
    const taken = await execute(session, body, key, { 'idempotency-key': 'stale-1' });
    expect(taken.status).toBe(200);
    expect(await rows()).toBe(before + 1);
  });

  it('marks a claimed key in Redis for the gateway, hashed, and unmarks a key given back', async () => {
    const redis = new Redis(stack.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const tenant = { org_id: 'org_dev', project_id: 'proj_dev', environment: 'live' as const };
      const marker = (k: string) => idempotencyMarkerKey(stack.env.ROTA_REDIS_PREFIX!, tenant, k);
      expect(
        await execute(session, { tool: 'codespar_list_tools' }, key, { 'idempotency-key': 'order-4004' }),
      ).toMatchObject({ status: 200 });
      expect(await redis.exists(marker('order-4004'))).toBe(1);
      // Kept no longer than the key row (24 h), and never under the caller's key itself.
      const ttl = await redis.pttl(marker('order-4004'));
      expect(ttl).toBeGreaterThan(23 * 3_600_000);
      expect(ttl).toBeLessThan(24 * 3_600_000);
      expect(await redis.keys(`${stack.env.ROTA_REDIS_PREFIX}:*order-4004*`)).toEqual([]);

      // A refusal that ran nothing gives the key back, and its marker with it: the retry is counted like a new call.
      expect(
        (await execute('ses_does_not_exist', { tool: 'codespar_list_tools' }, key, { 'idempotency-key': 'order-5005' }))
          .status,
      ).toBe(404);
      expect(await redis.exists(marker('order-5005'))).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it('reads the key from params._meta over MCP', async () => {
    const call = (id: number) =>
      http(`${stack.url}/v1/sessions/${session}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream' },
        json: {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'codespar_list_tools', arguments: {}, _meta: { idempotency_key: 'mcp-1' } },
        },
      });
    const before = await rows();
    const first = await call(1);
    const second = await call(2);
    expect(first.status).toBe(200);
    expect(second.json.result.structuredContent).toEqual(first.json.result.structuredContent);
    expect(await rows()).toBe(before + 1);
  });
});
