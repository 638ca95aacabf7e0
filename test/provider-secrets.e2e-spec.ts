import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { ASAAS_SANDBOX_CUSTOMER, startSandbox, type Sandbox } from '../apps/sandbox/src';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(120_000);

const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;

/** Credential values of the run, one per auth type the sandbox checks; a wrong one too, which the provider refuses. */
const CREDENTIALS = {
  asaas: { api_key: 'sandbox-asaas-key' },
  mercadopago: { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' },
  focusnfe: { username: 'sandbox-nfse-token', password: '' },
  whatsapp: { token: 'wrong-whatsapp-token-7f3a9c' },
};

/**
 * After provider calls of every kind (api_key, OAuth2 client credentials,
 * basic, a bearer token the provider refuses; raw tools, a money call, proxy
 * calls), no credential value is anywhere outside the sealed store: not in
 * any response, not in any log line of any app (logged at `trace`), not in
 * any table read as text, not in any Redis key or value.
 */
describe('credentials stay out of responses, logs, rows and Redis', () => {
  let sandbox: Sandbox;
  let stack: Stack;
  let key: string;
  let session: string;
  let dir: string;
  const logFile = () => join(dir, 'stack.log');
  const bodies: string[] = [];
  const secrets = [
    CREDENTIALS.asaas.api_key,
    CREDENTIALS.mercadopago.client_secret,
    CREDENTIALS.focusnfe.username,
    CREDENTIALS.whatsapp.token,
    // How the basic and client-secret credentials travel on the wire.
    Buffer.from(`${CREDENTIALS.focusnfe.username}:`).toString('base64'),
    Buffer.from(`${CREDENTIALS.mercadopago.client_id}:${CREDENTIALS.mercadopago.client_secret}`).toString('base64'),
  ];

  const api = async (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) => {
    const r = await http(`${stack.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...headers },
      json,
    });
    bodies.push(r.text);
    return r;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rota-secrets-'));
    sandbox = await startSandbox({ port: 0 });
    stack = await startStack({
      demoCatalog: true,
      logFile: logFile(),
      env: { ROTA_SANDBOX_URL: sandbox.url, ROTA_RPC_TIMEOUT_MS: '8000', ROTA_LOCAL_EMBEDDER: 'hash' },
    });
    key = (await stack.key([...SCOPES], { environment: 'test' })).key;
    secrets.push(key);
    for (const [server_id, credentials] of Object.entries(CREDENTIALS)) {
      expect((await api('POST', '/v1/connections', { server_id, credentials })).status).toBe(201);
    }
    const s = await api('POST', '/v1/sessions', { servers: Object.keys(CREDENTIALS) });
    expect(s.status).toBe(201);
    session = s.json.id;
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes calls of every kind, the refused one included', async () => {
    const execute = (tool: string, input: Record<string, unknown>, headers: Record<string, string> = {}) =>
      api('POST', `/v1/sessions/${session}/execute`, { tool, input }, headers);
    const proxy = (body: Record<string, unknown>) => api('POST', `/v1/sessions/${session}/proxy`, body);

    const charge = await execute(
      'asaas/create_payment',
      { customer: ASAAS_SANDBOX_CUSTOMER, billingType: 'PIX', value: 15, dueDate: '2026-12-20' },
      { 'idempotency-key': 'secrets-charge' },
    );
    expect(charge.json).toMatchObject({ success: true });
    expect((await execute('asaas/get_payment', { id: charge.json.data.body.id })).json.success).toBe(true);
    const mp = await execute('mercadopago/create_payment', {
      transaction_amount: 9.9,
      payment_method_id: 'pix',
      payer: { email: 'a@example.com' },
    });
    expect(mp.json).toMatchObject({ success: true });
    expect((await proxy({ server: 'mercadopago', endpoint: '/v1/payments/search', method: 'GET' })).json.status).toBe(
      200,
    );
    expect((await proxy({ server: 'asaas', endpoint: '/v3/finance/balance', method: 'GET' })).json.status).toBe(200);
    // Basic auth reaches the provider (a 404 for an unknown invoice, not a 401).
    expect(
      (await proxy({ server: 'focusnfe', endpoint: '/v2/nfse/secrets-test', method: 'GET' })).json.status,
    ).not.toBe(401);
    // A credential the provider refuses: the refusal is reported, the value is not.
    const refused = await proxy({ server: 'whatsapp', endpoint: '/v19.0/123/message_templates', method: 'GET' });
    expect(refused.json.status).toBe(401);
    expect(sandbox.control.counters().auth_failures.whatsapp).toBeGreaterThan(0);
  });

  it('finds no credential value in any response, log line, table or Redis value', async () => {
    const hits = (text: string) => secrets.filter((x) => text.includes(x));

    expect(bodies.flatMap(hits)).toEqual([]);

    const log = readFileSync(logFile(), 'utf8');
    // The file holds the run: the apps logged while the calls were made.
    expect(log.split('\n').filter(Boolean).length).toBeGreaterThan(20);
    expect(log).toContain('"app":"gateway"');
    expect(log).toContain('"app":"session"');
    expect(hits(log)).toEqual([]);

    const tables = await stack.db.prisma.$queryRawUnsafe<Array<{ table_name: string }>>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    const rowHits: string[] = [];
    for (const { table_name: t } of tables) {
      const rows = await stack.db.prisma.$queryRawUnsafe<Array<{ t: string }>>(
        `SELECT (to_jsonb(r) - 'embedding')::text AS t FROM "${t}" r`,
      );
      for (const r of rows) for (const h of hits(r.t)) rowHits.push(`${t}: ${h.slice(0, 6)}…`);
    }
    expect(rowHits).toEqual([]);
    // The calls are on their rows, so the search above read them.
    expect(await stack.db.prisma.sessionToolCall.count({ where: { sessionId: session } })).toBeGreaterThanOrEqual(7);

    const redis = new Redis(stack.env.REDIS_URL || 'redis://127.0.0.1:6379');
    try {
      const keys = await redis.keys(`${stack.env.ROTA_REDIS_PREFIX}*`);
      expect(keys.some((k) => k.includes('oauth2'))).toBe(true);
      const redisHits: string[] = [];
      for (const k of keys) {
        const type = await redis.type(k);
        const value =
          type === 'string'
            ? ((await redis.getBuffer(k)) ?? Buffer.alloc(0)).toString('latin1')
            : type === 'hash'
              ? JSON.stringify(await redis.hgetall(k))
              : type === 'list'
                ? JSON.stringify(await redis.lrange(k, 0, -1))
                : type === 'set'
                  ? JSON.stringify(await redis.smembers(k))
                  : type === 'zset'
                    ? JSON.stringify(await redis.zrange(k, 0, -1))
                    : type === 'stream'
                      ? JSON.stringify(await redis.xrange(k, '-', '+'))
                      : '';
        for (const h of hits(`${k}\n${value}`)) redisHits.push(`${k}: ${h.slice(0, 6)}…`);
      }
      expect(redisHits).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
