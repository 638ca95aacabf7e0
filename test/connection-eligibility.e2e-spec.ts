import { ProjectRepository } from '@rota/db';
import Redis from 'ioredis';
import { eligibilityRefreshesKey } from '../apps/router/src/eligibility/eligibility.service';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(120_000);

/**
 * Path C follows connections at once: a connection write refreshes the
 * router's eligibility before it answers. And the live environment never
 * falls back on the shared sandbox: with nothing connected it names what to
 * connect. Demo catalog, live and test keys.
 */
describe('eligibility follows connections; live with nothing connected', () => {
  let stack: Stack;
  let redis: Redis;
  const charge = { intent: { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 4990 } };

  const project = async (name: string) =>
    (await new ProjectRepository(stack.db.prisma).create({ orgId: 'org_dev', name })).id;
  const keyFor = async (projectId: string, environment: 'live' | 'test') =>
    (await stack.key(['servers:read', 'connections:write'], { projectId, environment })).key;
  const call = (key: string, method: string, path: string, json?: unknown) =>
    http(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${key}` }, json });
  const discover = (key: string) => call(key, 'POST', '/v1/meta-tools/discover', charge);
  /** Every provider a path C answer offers. */
  const offered = (json: any): string[] => [
    json.recommended.provider_id,
    ...json.alternatives.map((a: any) => a.provider_id),
  ];
  const refreshes = async (projectId: string) =>
    Number(
      await redis.get(
        eligibilityRefreshesKey(stack.env.ROTA_REDIS_PREFIX!, {
          org_id: 'org_dev',
          project_id: projectId,
          environment: 'live',
        }),
      ),
    );

  beforeAll(async () => {
    // A cold stack on a busy machine can take seconds over its first requests.
    stack = await startStack({
      demoCatalog: true,
      env: { ANTHROPIC_API_KEY: '', NL_EXTRACTOR: '', ROTA_LOCAL_EMBEDDER: 'hash', ROTA_RPC_TIMEOUT_MS: '15000' },
    });
    redis = new Redis(stack.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    redis?.disconnect();
    await stack?.close();
  });

  it('the very next path C call sees a connection made or deleted', async () => {
    const projectId = await project('eligibility follows connections');
    const key = await keyFor(projectId, 'live');
    expect(
      (
        await call(key, 'POST', '/v1/connections', {
          server_id: 'mercadopago',
          credentials: { client_id: 'mp-live-client', client_secret: 'mp-live-secret' },
        })
      ).status,
    ).toBe(201);
    const first = await discover(key);
    expect(first.status).toBe(200);
    expect(offered(first.json)).toContain('mercadopago');
    expect(offered(first.json)).not.toContain('asaas');

    // The set the router stores now lives for minutes: only the write's own refresh can change the next answer.
    const before = await refreshes(projectId);
    const created = await call(key, 'POST', '/v1/connections', {
      server_id: 'asaas',
      credentials: { api_key: 'asaas_live_x' },
    });
    expect(created.status).toBe(201);
    expect(await refreshes(projectId)).toBe(before + 1);
    const withAsaas = await discover(key);
    expect(withAsaas.status).toBe(200);
    expect(offered(withAsaas.json)).toEqual(expect.arrayContaining(['asaas', 'mercadopago']));

    const deleted = await call(key, 'DELETE', `/v1/connections/${created.json.id}`);
    expect(deleted.status).toBe(200);
    expect(await refreshes(projectId)).toBe(before + 2);
    const without = await discover(key);
    expect(without.status).toBe(200);
    expect(offered(without.json)).toContain('mercadopago');
    expect(offered(without.json)).not.toContain('asaas');
  });

  it('live with nothing connected: 424 eligibility_empty naming what to connect; the sandbox serves only test', async () => {
    const projectId = await project('live, nothing connected');
    const live = await discover(await keyFor(projectId, 'live'));
    expect(live.status).toBe(424);
    expect(live.json).toMatchObject({ error: 'eligibility_empty', request_id: expect.any(String) });
    // asaas offers a sandbox, and still is not eligible in live.
    expect(live.json.detail).toMatch(/Connecting one of these providers would fix it: .*asaas/);
    const test = await discover(await keyFor(projectId, 'test'));
    expect(test.status).toBe(200);
    expect(test.json.recommended.reasons.join(' ')).toContain('shared sandbox');
  });

  it('live with nothing connected: execute answers 200 success: false connection_required, naming what to connect, and sends nothing', async () => {
    const projectId = await project('live execute, nothing connected');
    const { key } = await stack.key(['sessions:create', 'tools:execute'], { projectId, environment: 'live' });
    const session = await call(key, 'POST', '/v1/sessions', { servers: ['asaas', 'mercadopago'] });
    expect(session.status).toBe(201);
    const execute = (tool: string, input: Record<string, unknown>) =>
      call(key, 'POST', `/v1/sessions/${session.json.id}/execute`, { tool, input });

    const buyer = { name: 'Maria Souza', document: '529.982.247-25', email: 'maria@example.com' };
    const charged = await execute('codespar_charge', {
      method: 'pix',
      amount: 49.9,
      currency: 'BRL',
      description: 'Pedido 1',
      buyer,
    });
    expect(charged.status).toBe(200);
    expect(charged.json).toMatchObject({
      success: false,
      server: null,
      data: {
        code: 'connection_required',
        message: expect.stringContaining('live'),
        connect: expect.arrayContaining(['asaas', 'mercadopago']),
      },
    });
    const notified = await execute('codespar_notify', { channel: 'whatsapp', to: '+5511999990000', message: 'hi' });
    expect(notified.status).toBe(200);
    expect(notified.json).toMatchObject({ success: false, data: { code: 'connection_required' } });
    const raw = await execute('asaas/get_payment', { id: 'pay_x' });
    expect(raw.status).toBe(200);
    expect(raw.json).toMatchObject({ success: false, server: 'asaas', data: { code: 'connection_required' } });

    // Nothing reached a provider: no call was sent, only refusals recorded.
    const sent = await stack.db.prisma.sessionToolCall.count({
      where: { sessionId: session.json.id, attempts: { gt: 0 } },
    });
    expect(sent).toBe(0);
  });
});
