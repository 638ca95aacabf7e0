import { seedDemoCatalog } from '@rota/catalog';
import { META_TOOLS } from '@rota/contracts';
import { ProjectRepository, newId, type PrismaClient } from '@rota/db';
import {
  BaseConfig,
  loadConfig,
  requestContext,
  RpcClient,
  startService,
  type StartedService,
} from '@rota/service-kit';
import { startFakeAnthropic, type FakeAnthropic } from '@rota/testing';
import Redis from 'ioredis';
import { RouterConfig } from '../apps/router/src/config';
import { eligibilityRefreshesKey } from '../apps/router/src/eligibility/eligibility.service';
import { RAIL_PROVIDER_IDS } from '../apps/router/src/rails/rails';
import { RouterModule } from '../apps/router/src/router.module';
import { repairCooldownKey } from '../apps/router/src/route/route.service';
import { http, startStack, type Stack } from './helpers/stack';

/**
 * Puts every provider the rails name in a known state for this database:
 * credentials needed (api_key), no sandbox, unless `overrides` says otherwise.
 * The demo catalog may or may not be seeded; this makes the answers below
 * independent of it.
 */
async function forceProviders(
  prisma: PrismaClient,
  overrides: Record<string, { authType?: string; sandbox?: boolean }> = {},
) {
  for (const id of RAIL_PROVIDER_IDS) {
    const authType = overrides[id]?.authType ?? 'api_key';
    const sandboxAvailable = overrides[id]?.sandbox ?? false;
    await prisma.provider.upsert({
      where: { id_owner: { id, owner: '' } },
      create: {
        id,
        name: id,
        description: `${id} provider`,
        category: 'payments',
        authType,
        selfServeAuth: true,
        baseUrls: {},
        sandboxAvailable,
      },
      update: { authType, sandboxAvailable },
    });
  }
}

interface Tenant {
  projectId: string;
  key: string;
  connect(...providers: string[]): Promise<void>;
}

async function tenant(stack: Stack, environment: 'live' | 'test' = 'live', providers: string[] = []): Promise<Tenant> {
  const project = await new ProjectRepository(stack.db.prisma).create({
    orgId: 'org_dev',
    name: `path-c ${Math.random()}`,
  });
  const connect = async (...ids: string[]) => {
    for (const serverId of ids)
      await stack.db.prisma.connection.create({
        data: { id: newId('conn'), projectId: project.id, environment, serverId, status: 'connected' },
      });
  };
  await connect(...providers);
  const { key } = await stack.key(['servers:read'], { projectId: project.id, environment });
  return { projectId: project.id, key, connect };
}

const discover = (stack: Stack, key: string, body: unknown, headers: Record<string, string> = {}) =>
  http(`${stack.url}/v1/meta-tools/discover`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, ...headers },
    json: body,
  });

const schemaOf = (tool: string) => META_TOOLS.find((t) => t.name === tool)!.inputSchema;

/** Shape checks every 200 answer must pass. */
function expectWellFormed(json: any) {
  expect(Object.keys(json)).toEqual(['recommended', 'alternatives', 'resolved_intent']);
  expect(Object.keys(json.recommended)).toEqual(['tool', 'rail', 'provider_id', 'args_template', 'reasons']);
  expect(json.recommended.reasons.length).toBeGreaterThan(0);
  const props = schemaOf(json.recommended.tool).properties;
  for (const field of Object.keys(json.recommended.args_template))
    if (field !== 'missing') expect(props).toHaveProperty(field);
  expect(Array.isArray(json.recommended.args_template.missing)).toBe(true);
  json.alternatives.forEach((a: any, i: number) => {
    expect(Object.keys(a)).toEqual([
      'tool',
      'rail',
      'provider_id',
      'cost_minor',
      'mean_latency_ms',
      'latency_p50_ms',
      'success_rate',
      'reasons',
    ]);
    expect(a.reasons[0]).toMatch(new RegExp(`^Ranked ${i + 2} of ${json.alternatives.length + 1} `));
    expect(`${a.provider_id}/${a.rail}`).not.toBe(`${json.recommended.provider_id}/${json.recommended.rail}`);
  });
  expect(json.recommended.reasons[0]).toMatch(new RegExp(`^Ranked 1 of ${json.alternatives.length + 1} `));
}

describe('path C: POST /v1/meta-tools/discover', () => {
  let stack: Stack;
  let t: Tenant;
  let rpc: RpcClient;

  beforeAll(async () => {
    // Rates are read on every route here, so a test sees the rates it stores at once.
    stack = await startStack({ env: { ANTHROPIC_API_KEY: '', NL_EXTRACTOR: '', ROTA_ROUTER_FX_CACHE_MS: '0' } });
    await forceProviders(stack.db.prisma, { envia: { authType: 'none' } });
    t = await tenant(stack, 'live', [
      'asaas',
      'mercadopago',
      'openpay',
      'wise',
      'transbank',
      'focusnfe',
      'whatsapp',
      'melhorenvio',
    ]);
    rpc = new RpcClient({
      url: stack.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      prefix: stack.env.ROTA_REDIS_PREFIX!,
      timeoutMs: 5000,
    });
    await rpc.connect();
  }, 60_000);
  afterAll(async () => {
    await rpc.close();
    await stack.close();
  }, 60_000);

  describe('one operation per meta-tool, with a complete args_template', () => {
    it('charge → codespar_charge, amount in major units (BRL 4990 → 49.9)', async () => {
      const r = await discover(stack, t.key, {
        intent: { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 4990, metadata: { order: 'A-1' } },
      });
      expect(r.status).toBe(200);
      expectWellFormed(r.json);
      expect(r.json.recommended.tool).toBe('codespar_charge');
      expect(['asaas', 'mercadopago']).toContain(r.json.recommended.provider_id);
      expect(r.json.recommended.args_template).toMatchObject({
        action: 'charge',
        amount: 49.9,
        currency: 'BRL',
        country: 'BR',
        metadata: { order: 'A-1' },
      });
      expect(r.json.recommended.args_template.method).toBe(r.json.recommended.rail);
      expect(r.json.recommended.args_template.missing).toEqual(['description', 'buyer']);
      expect(r.json.resolved_intent).toEqual({
        operation: 'charge',
        currency: 'BRL',
        country: 'BR',
        amount_minor: 4990,
        metadata: { order: 'A-1' },
      });
      // The charge rails the connected BR providers can run: asaas pix and boleto, mercadopago pix and wallet.
      expect(r.json.alternatives).toHaveLength(3);
    });

    it('charge in CLP → codespar_charge with whole pesos (exponent 0)', async () => {
      const r = await discover(stack, t.key, {
        intent: { operation: 'charge', currency: 'clp', country: 'cl', amount_minor: 15000 },
      });
      expect(r.status).toBe(200);
      expectWellFormed(r.json);
      expect(r.json.recommended).toMatchObject({ tool: 'codespar_charge', rail: 'card', provider_id: 'transbank' });
      expect(r.json.recommended.args_template).toMatchObject({
        action: 'charge',
        method: 'card',
        amount: 15000,
        currency: 'CLP',
        country: 'CL',
      });
      expect(r.json.alternatives).toEqual([]);
    });

    it('refund → codespar_charge with action refund and charge_id to fill', async () => {
      const r = await discover(stack, t.key, {
        intent: { operation: 'refund', currency: 'BRL', country: 'BR', amount_minor: 3000 },
      });
      expect(r.status).toBe(200);
      expectWellFormed(r.json);
      expect(r.json.recommended.tool).toBe('codespar_charge');
      expect(r.json.recommended.args_template).toMatchObject({ action: 'refund', amount: 30, currency: 'BRL' });
      expect(r.json.recommended.args_template.missing).toContain('charge_id');
      // Boleto cannot send money back, so only pix and card rails are offered.
      for (const route of [r.json.recommended, ...r.json.alternatives]) expect(['pix', 'card']).toContain(route.rail);
    });

    it('payout → codespar_pay with the amount in minor units (BRL 45000 stays 45000; one route, no alternatives)', async () => {
      const r = await discover(stack, t.key, {
        intent: { operation: 'payout', currency: 'BRL', country: 'BR', amount_minor: 45000, urgency: 'same_day' },
      });
      expect(r.status).toBe(200);
      expectWellFormed(r.json);
      expect(r.json.recommended).toMatchObject({ tool: 'codespar_pay', rail: 'pix', provider_id: 'asaas' });
      expect(r.json.recommended.args_template).toEqual({
        action: 'pay',
        method: 'pix',
        amount: 45000,
        currency: 'BRL',
        country: 'BR',
        missing: ['recipient'],
      });
      expect(r.json.alternatives).toEqual([]);
    });

    it('payout in MXN → codespar_pay over SPEI (a Rota extension of the method enum), minor units', async () => {
      const r = await discover(stack, t.key, {
        intent: { operation: 'payout', currency: 'MXN', country: 'MX', amount_minor: 300000, urgency: 'instant' },
      });
      expect(r.status).toBe(200);
      expectWellFormed(r.json);
      expect(r.json.recommended).toMatchObject({ tool: 'codespar_pay', rail: 'spei', provider_id: 'openpay' });
      expect(r.json.recommended.args_template).toMatchObject({
        action: 'pay',
        method: 'spei',
        amount: 300000,
        currency: 'MXN',
      });
      expect(r.json.alternatives.map((a: any) => `${a.provider_id} ${a.rail}`)).toEqual(['wise spei']);
      expect(r.json.alternatives[0]).toMatchObject({ cost_minor: expect.any(Number), success_rate: 0.97 });
    });

    it('issue_invoice → codespar_invoice with action issue and the document type', async () => {
      const r = await discover(stack, t.key, {
        intent: { operation: 'issue_invoice', currency: 'BRL', country: 'BR', recipient_kind: 'cnpj' },
      });
      expect(r.status).toBe(200);
      expectWellFormed(r.json);
      expect(r.json.recommended).toMatchObject({ tool: 'codespar_invoice', provider_id: 'focusnfe' });
      expect(r.json.recommended.args_template).toEqual({
        action: 'issue',
        type: r.json.recommended.rail,
        missing: ['recipient', 'items'],
      });
    });

    it('send_notification → codespar_notify with the channel', async () => {
      const r = await discover(stack, t.key, {
        intent: { operation: 'send_notification', currency: 'MXN', country: 'MX', method: 'whatsapp' },
      });
      expect(r.status).toBe(200);
      expectWellFormed(r.json);
      expect(r.json.recommended).toMatchObject({ tool: 'codespar_notify', rail: 'whatsapp', provider_id: 'whatsapp' });
      expect(r.json.recommended.args_template).toEqual({ channel: 'whatsapp', missing: ['to', 'message'] });
    });

    it('ship → codespar_ship with action quote (not intent_unmappable), including a provider that needs no connection', async () => {
      const r = await discover(stack, t.key, {
        intent: { operation: 'ship', currency: 'BRL', country: 'BR', urgency: 'next_day', metadata: { order: 9 } },
      });
      expect(r.status).toBe(200);
      expectWellFormed(r.json);
      expect(r.json.recommended.tool).toBe('codespar_ship');
      expect(r.json.recommended.args_template).toEqual({
        action: 'quote',
        service_level: 'standard',
        metadata: { order: 9 },
        missing: ['origin', 'destination', 'items'],
      });
      const all = [r.json.recommended, ...r.json.alternatives];
      expect(all.map((x: any) => x.provider_id).sort()).toEqual(['envia', 'melhorenvio']);
      const envia = all.find((x: any) => x.provider_id === 'envia');
      expect(envia.reasons.join(' ')).toContain('needs no connection');
    });
  });

  describe('amounts across currencies', () => {
    const ship = () => discover(stack, t.key, { intent: { operation: 'ship', currency: 'USD', country: 'BR' } });
    const byProvider = (json: any) =>
      Object.fromEntries([json.recommended, ...json.alternatives].map((x: any) => [x.provider_id, x]));

    it('prices a fee kept in another currency at the stored rate, directly or through a third currency, and says so', async () => {
      // Melhor Envio prices labels in BRL only: with no rate, it has no price in USD (Envia keeps one in USD).
      const before = await ship();
      expect(before.status).toBe(200);
      expect(byProvider(before.json).melhorenvio.reasons.join(' ')).toContain('No price on record in USD');
      expect(byProvider(before.json).envia.reasons.join(' ')).not.toContain('No price on record');
      await stack.db.prisma.fxRate.create({
        data: { base: 'USD', quote: 'BRL', rate: '5', source: 'test', fetchedAt: new Date('2026-11-30T12:00:00Z') },
      });
      try {
        const after = await ship();
        expect(after.status).toBe(200);
        const all = byProvider(after.json);
        // BRL 22.50 and BRL 18.90 at 0.2 USD per BRL.
        // The alternative's cost is in USD cents too.
        expect(after.json.alternatives.map((a: any) => a.cost_minor)).toEqual([
          after.json.alternatives[0].provider_id === 'envia' ? 650 : 378,
        ]);
        const reasons = (p: string) => all[p].reasons.join(' ');
        expect(reasons('melhorenvio')).toMatch(
          /Costs USD 3\.78: a fixed BRL 18\.90 converted at 0\.200000 USD per BRL, rate of 2026-11-30/,
        );
        expect(reasons('envia')).not.toMatch(/converted/);
        // Quoted against a third currency only: crossed through it.
        await stack.db.prisma.fxRate.deleteMany({ where: { source: 'test' } });
        await stack.db.prisma.fxRate.createMany({
          data: [
            { base: 'EUR', quote: 'BRL', rate: '6', source: 'test', fetchedAt: new Date('2026-11-29T12:00:00Z') },
            { base: 'EUR', quote: 'USD', rate: '1.2', source: 'test', fetchedAt: new Date('2026-11-30T12:00:00Z') },
          ],
        });
        const crossed = byProvider((await ship()).json);
        expect(crossed.melhorenvio.reasons.join(' ')).toMatch(
          /Costs USD 3\.78: a fixed BRL 18\.90 converted at 0\.200000 USD per BRL \(through EUR\), rate of 2026-11-29/,
        );
      } finally {
        await stack.db.prisma.fxRate.deleteMany({ where: { source: 'test' } });
      }
    });
  });

  describe('descriptions with the local extractor (the default without a model key)', () => {
    it('reads a Portuguese sentence into the intent and echoes it', async () => {
      const r = await discover(stack, t.key, { description: 'cobrar R$ 49,90 via pix de um cliente no Brasil' });
      expect(r.status).toBe(200);
      expect(r.json.resolved_intent).toEqual({
        operation: 'charge',
        currency: 'BRL',
        country: 'BR',
        amount_minor: 4990,
        method: 'pix',
      });
      expect(r.json.recommended).toMatchObject({ tool: 'codespar_charge', rail: 'pix' });
      expect(r.json.recommended.args_template.amount).toBe(49.9);
    });

    it('ranks a description exactly like the intent it resolves to', async () => {
      const a = await discover(stack, t.key, { description: 'send a WhatsApp to a customer in Mexico' });
      const b = await discover(stack, t.key, { intent: a.json.resolved_intent });
      expect(a.status).toBe(200);
      expect(b.json).toEqual(a.json);
    });

    it('400 intent_unmappable for a request none of the six operations covers', async () => {
      const r = await discover(stack, t.key, { description: 'book me a flight to Lisbon next friday' });
      expect(r.status).toBe(400);
      expect(r.json.error).toBe('intent_unmappable');
    });

    it('400 intent_unmappable when the local parser cannot read the text (the caller’s to fix, never a 5xx)', async () => {
      const r = await discover(stack, t.key, { description: 'qwrt zxcv plmk' }, { 'x-request-id': 'nl-1' });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: 'intent_unmappable', request_id: 'nl-1' });
      expect(r.json.message).toMatch(/Rephrase it/);
    });
  });

  describe('refusals', () => {
    const ok = { operation: 'charge', currency: 'BRL', country: 'BR' };
    it.each([
      ['an empty body', {}],
      ['both shapes at once', { intent: ok, description: 'cobrar' }],
      ['an unknown operation', { intent: { ...ok, operation: 'teleport' } }],
      ['a made-up currency', { intent: { ...ok, currency: 'XYZ' } }],
      ['a currency that is not three letters', { intent: { ...ok, currency: 'REAL' } }],
      ['a made-up country', { intent: { ...ok, country: 'ZZ' } }],
      ['an alpha-3 country', { intent: { ...ok, country: 'BRA' } }],
      ['a negative amount', { intent: { ...ok, amount_minor: -100 } }],
      ['a fractional amount', { intent: { ...ok, amount_minor: 10.5 } }],
      ['an amount as a string', { intent: { ...ok, amount_minor: '100' } }],
      ['a zero charge', { intent: { ...ok, amount_minor: 0 } }],
      ['an unknown urgency', { intent: { ...ok, urgency: 'yesterday' } }],
      ['an unknown recipient kind', { intent: { ...ok, recipient_kind: 'iban' } }],
      ['limit beside the intent', { intent: ok, limit: 5 }],
      ['limit inside the intent', { intent: { ...ok, limit: 1000 } }],
      ['a missing currency', { intent: { operation: 'charge', country: 'BR' } }],
      ['an empty description', { description: '' }],
      ['a description of 2001 characters', { description: 'a'.repeat(2001) }],
      ['a description that is not text', { description: 42 }],
      ['an array', [ok]],
    ])('400 invalid_body with issues for %s', async (_label, body) => {
      const r = await discover(stack, t.key, body, { 'x-request-id': 'pc-400' });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: 'invalid_body', request_id: 'pc-400' });
      expect(r.json.issues.length).toBeGreaterThan(0);
    });

    it('401 raw body without a key, 403 without servers:read', async () => {
      const none = await http(`${stack.url}/v1/meta-tools/discover`, { method: 'POST', json: { intent: ok } });
      expect(none.status).toBe(401);
      expect(none.text).toBe('{"error":"unauthorized"}');
      const narrow = (await stack.key(['tools:execute'])).key;
      const r = await discover(stack, narrow, { intent: ok });
      expect(r.status).toBe(403);
      expect(r.json.message).toBe("API key does not have the 'servers:read' scope.");
    });
  });

  describe('telemetry', () => {
    it('moves the ranking: a failing provider drops below a healthy one', async () => {
      const intent = { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 4990, method: 'pix' };
      const before = await discover(stack, t.key, { intent });
      expect(before.status).toBe(200);
      const first = before.json.recommended.provider_id as string;
      const second = before.json.alternatives[0].provider_id as string;
      // Telemetry is kept per environment: these calls are the live environment's.
      const live = { tenant: { org_id: 'org_dev', project_id: t.projectId, environment: 'live' as const } };
      for (let i = 0; i < 30; i++) {
        await rpc.send(
          'router.record',
          { provider_id: first, tool: 'codespar_charge', success: false, latency_ms: 2000, error_code: 'upstream_5xx' },
          live,
        );
        await rpc.send(
          'router.record',
          { provider_id: second, tool: 'codespar_charge', success: true, latency_ms: 300 },
          live,
        );
      }
      const after = await discover(stack, t.key, { intent });
      expect(after.json.recommended.provider_id).toBe(second);
      const demoted = after.json.alternatives.find((a: any) => a.provider_id === first);
      expect(demoted).toMatchObject({ success_rate: 0, latency_p50_ms: expect.any(Number) });
      expect(demoted.latency_p50_ms).toBeGreaterThan(1000);
      expect(demoted.reasons.join(' ')).toContain('Succeeded in 0 of 30 calls');

      const metrics = await http(`${stack.url}/v1/router/metrics?provider_id=${first}`, {
        headers: { authorization: `Bearer ${t.key}` },
      });
      expect(metrics.status).toBe(200);
      const row = metrics.json.rows.find((x: any) => x.tool === 'codespar_charge');
      expect(row).toMatchObject({ provider_id: first, attempts: 30, success_rate: 0, last_error_code: 'upstream_5xx' });
      expect(row.attempts_24h[23]).toBe(30);
    });

    it('GET /v1/router/metrics: one row per provider and tool with 24 hourly buckets', async () => {
      const r = await http(`${stack.url}/v1/router/metrics`, { headers: { authorization: `Bearer ${t.key}` } });
      expect(r.status).toBe(200);
      expect(Object.keys(r.json)).toEqual(['window_start', 'rows']);
      expect(new Date(r.json.window_start).getUTCMinutes()).toBe(0);
      const seen = new Set<string>();
      for (const row of r.json.rows) {
        expect(Object.keys(row)).toEqual([
          'provider_id',
          'tool',
          'attempts',
          'success_rate',
          'latency_p50_ms',
          'last_error_code',
          'attempts_24h',
          'latency_24h',
        ]);
        expect(row.attempts_24h).toHaveLength(24);
        expect(row.latency_24h).toHaveLength(24);
        expect(row.attempts_24h.reduce((a: number, b: number) => a + b, 0)).toBe(row.attempts);
        if (row.attempts === 0)
          expect(row).toMatchObject({ success_rate: null, latency_p50_ms: null, last_error_code: null });
        seen.add(`${row.provider_id}/${row.tool}`);
      }
      expect(seen.size).toBe(r.json.rows.length);
      expect(seen).toContain('stp/codespar_pay');
      const filtered = await http(`${stack.url}/v1/router/metrics?tool=codespar_notify`, {
        headers: { authorization: `Bearer ${t.key}` },
      });
      expect(filtered.json.rows.every((x: any) => x.tool === 'codespar_notify')).toBe(true);
      const bad = await http(`${stack.url}/v1/router/metrics?limit=5`, {
        headers: { authorization: `Bearer ${t.key}` },
      });
      expect(bad.status).toBe(400);
      expect(bad.json.error).toBe('invalid_query');
    });
  });

  it('gives the test environment the shared sandbox set', async () => {
    await forceProviders(stack.db.prisma, { envia: { authType: 'none' }, mercadopago: { sandbox: true } });
    const sandboxed = await tenant(stack, 'test');
    const live = await tenant(stack, 'live');
    const intent = { operation: 'charge', currency: 'BRL', country: 'BR', method: 'pix' };
    const r = await discover(stack, sandboxed.key, { intent });
    expect(r.status).toBe(200);
    expect(r.json.recommended.provider_id).toBe('mercadopago');
    expect(r.json.recommended.reasons.join(' ')).toContain('shared sandbox');
    expect((await discover(stack, live.key, { intent })).status).toBe(424);
  });
});

describe('path C 424s and the eligibility repair, with two router replicas', () => {
  let stack: Stack;
  let redis: Redis;
  const replicas: StartedService[] = [];
  let prefix: string;

  const startReplica = async () => {
    const r = await startService(
      'router',
      RouterModule.forConfig(loadConfig(RouterConfig, stack.env)),
      loadConfig(BaseConfig, stack.env),
    );
    replicas.push(r);
    return r;
  };
  const stopReplica = async (r: StartedService) => {
    await r.app.close();
    replicas.splice(replicas.indexOf(r), 1);
  };
  const tenantOf = (projectId: string) => ({ org_id: 'org_dev', project_id: projectId, environment: 'live' as const });
  const refreshes = async (projectId: string) =>
    Number(await redis.get(eligibilityRefreshesKey(prefix, tenantOf(projectId))));

  beforeAll(async () => {
    stack = await startStack({ env: { ANTHROPIC_API_KEY: '', NL_EXTRACTOR: '' } });
    prefix = stack.env.ROTA_REDIS_PREFIX!;
    await forceProviders(stack.db.prisma);
    redis = new Redis(stack.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    replicas.push(stack.services.router);
    await startReplica();
  }, 60_000);
  afterAll(async () => {
    redis.disconnect();
    // stack.close() stops whichever replica it holds; stop the others here.
    stack.services.router = replicas[0]!;
    for (const r of replicas.slice(1)) await r.app.close();
    await stack.close();
  }, 60_000);

  it('direction_blocked: candidates that only collect cannot refund; one repair across both replicas, then none inside the window', async () => {
    const t = await tenant(stack, 'live', ['openpay']);
    const rpc = new RpcClient({ url: stack.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix, timeoutMs: 5000 });
    await rpc.connect();
    try {
      await requestContext.run({ requestId: 'refresh', tenant: tenantOf(t.projectId) }, () =>
        rpc.send('router.eligibility.refresh', {}),
      );
    } finally {
      await rpc.close();
    }
    expect(await refreshes(t.projectId)).toBe(1);

    const body = { intent: { operation: 'refund', currency: 'MXN', country: 'MX', amount_minor: 1000 } };
    const answers = await Promise.all(Array.from({ length: 8 }, () => discover(stack, t.key, body)));
    for (const r of answers) {
      expect(r.status).toBe(424);
      expect(r.json).toMatchObject({
        error: 'direction_blocked',
        detail: expect.stringContaining('openpay spei'),
        request_id: expect.any(String),
      });
      expect(typeof r.json.message).toBe('string');
    }
    // Eight refusals spread over two replicas: exactly one repair.
    expect(await refreshes(t.projectId)).toBe(2);
    expect(await redis.pttl(repairCooldownKey(prefix, tenantOf(t.projectId)))).toBeGreaterThan(0);

    const again = await discover(stack, t.key, body);
    expect(again.json.error).toBe('direction_blocked');
    expect(await refreshes(t.projectId)).toBe(2);
  });

  it('eligibility_empty, not direction_blocked, where the only rails bind nothing: they are planning data, never named', async () => {
    // wise.wire.out lists UYU but binds no action; no rail Rota can run collects or pays in Uruguay.
    const t = await tenant(stack, 'live', ['wise']);
    const r = await discover(stack, t.key, {
      intent: { operation: 'charge', currency: 'UYU', country: 'UY', amount_minor: 10000 },
    });
    expect(r.status).toBe(424);
    expect(r.json).toMatchObject({
      error: 'eligibility_empty',
      detail: expect.stringContaining('Nothing in the catalog'),
    });
    expect(r.json.detail).not.toMatch(/wise|stripe|adyen/);
  });

  it('eligibility_empty: the repair runs once, a second call on the other replica skips it, the next window heals', async () => {
    const t = await tenant(stack, 'live');
    const body = { intent: { operation: 'charge', currency: 'COP', country: 'CO', amount_minor: 5_000_000 } };

    // Only replica A is running for the first call.
    const [a, b] = replicas;
    await stopReplica(b!);
    const first = await discover(stack, t.key, body);
    expect(first.status).toBe(424);
    expect(first.json).toMatchObject({ error: 'eligibility_empty', detail: expect.stringContaining('wompi') });
    // The first lookup seeded the set (1) and the repair re-seeded it (2).
    expect(await refreshes(t.projectId)).toBe(2);

    // Swap replicas: the second call can only be answered by the new one.
    await startReplica();
    await stopReplica(a!);
    // A connection appears behind the stored set's back (the connections API would also ask for a refresh).
    await t.connect('wompi');
    const second = await discover(stack, t.key, body);
    expect(second.status).toBe(424);
    expect(second.json.error).toBe('eligibility_empty');
    expect(await refreshes(t.projectId)).toBe(2);

    // The window ends (deleting the stamp stands in for 30 seconds passing): the repair runs and finds the connection.
    await redis.del(repairCooldownKey(prefix, tenantOf(t.projectId)));
    const third = await discover(stack, t.key, body);
    expect(third.status).toBe(200);
    expect(third.json.recommended.provider_id).toBe('wompi');
    expect(await refreshes(t.projectId)).toBe(3);
  });
});

describe('path C descriptions with NL_EXTRACTOR=off', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { ANTHROPIC_API_KEY: 'sk-ant-unused', NL_EXTRACTOR: 'off' } });
    await forceProviders(stack.db.prisma);
  }, 60_000);
  afterAll(() => stack.close(), 60_000);

  it('501 nl_unavailable for a description; a structured intent still routes', async () => {
    const t = await tenant(stack, 'live', ['asaas']);
    const r = await discover(stack, t.key, { description: 'cobrar R$ 10 via pix' }, { 'x-request-id': 'off-1' });
    expect(r.status).toBe(501);
    expect(r.json).toMatchObject({ error: 'nl_unavailable', request_id: 'off-1' });
    const s = await discover(stack, t.key, {
      intent: { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 1000 },
    });
    expect(s.status).toBe(200);
  });
});

describe('path C descriptions with the Anthropic extractor (fake Messages API)', () => {
  let stack: Stack;
  let fake: FakeAnthropic;
  let t: Tenant;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
    // No NL_EXTRACTOR: a key makes `anthropic` the default.
    stack = await startStack({
      env: {
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ANTHROPIC_BASE_URL: fake.url,
        NL_EXTRACTOR: '',
        ROTA_NL_TIMEOUT_MS: '2000',
      },
    });
    await forceProviders(stack.db.prisma);
    t = await tenant(stack, 'live', ['openpay']);
  }, 60_000);
  afterAll(async () => {
    await stack.close();
    await fake.close();
  }, 60_000);

  it('routes the intent the model read and echoes it', async () => {
    fake.setBehaviour({
      kind: 'text',
      text: '{"operation":"payout","currency":"MXN","country":"MX","amount_minor":250000,"method":"spei"}',
    });
    const r = await discover(stack, t.key, { description: 'paga 2,500 pesos por SPEI a mi proveedor' });
    expect(r.status).toBe(200);
    expect(r.json.resolved_intent).toEqual({
      operation: 'payout',
      currency: 'MXN',
      country: 'MX',
      amount_minor: 250000,
      method: 'spei',
    });
    expect(r.json.recommended.args_template).toMatchObject({ action: 'pay', method: 'spei', amount: 250000 });
    expect(JSON.stringify(fake.calls.at(-1)!.body)).toContain('paga 2,500 pesos por SPEI a mi proveedor');
  });

  it('502 nl_extraction_failed on garbage from the model', async () => {
    fake.setBehaviour({ kind: 'text', text: 'Sure! I think they want to pay someone, probably.' });
    const r = await discover(stack, t.key, { description: 'paga a mi proveedor' });
    expect(r.status).toBe(502);
    expect(r.json.error).toBe('nl_extraction_failed');
  });

  it('502 when the model answers JSON that is no valid intent, 400 intent_unmappable when it says none', async () => {
    fake.setBehaviour({ kind: 'text', text: '{"operation":"charge","currency":"REAIS","country":"Brasil"}' });
    expect((await discover(stack, t.key, { description: 'cobrar' })).status).toBe(502);
    fake.setBehaviour({ kind: 'text', text: '{"operation":"none"}' });
    const r = await discover(stack, t.key, { description: 'book a flight to Lisbon' });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('intent_unmappable');
  });
});

describe('path C over the demo catalog as seeded', () => {
  let stack: Stack;
  let seeded: boolean;
  beforeAll(async () => {
    stack = await startStack({ env: { ANTHROPIC_API_KEY: '', NL_EXTRACTOR: '' } });
    seeded = (await seedDemoCatalog(stack.db.prisma)) !== null;
  }, 60_000);
  afterAll(() => stack.close(), 60_000);

  it.each([
    ['charge', { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 4990 }, 'codespar_charge'],
    ['refund', { operation: 'refund', currency: 'BRL', country: 'BR', amount_minor: 4990 }, 'codespar_charge'],
    ['payout', { operation: 'payout', currency: 'MXN', country: 'MX', amount_minor: 4_990_000 }, 'codespar_pay'],
    ['issue_invoice', { operation: 'issue_invoice', currency: 'MXN', country: 'MX' }, 'codespar_invoice'],
    [
      'send_notification',
      { operation: 'send_notification', currency: 'CLP', country: 'CL', method: 'whatsapp' },
      'codespar_notify',
    ],
    ['ship', { operation: 'ship', currency: 'CLP', country: 'CL' }, 'codespar_ship'],
  ])('%s routes for a test key through the shared sandbox', async (_op, intent, tool) => {
    if (!seeded) return; // the demo catalog file is not in this checkout
    const t = await tenant(stack, 'test');
    const r = await discover(stack, t.key, { intent });
    expect(r.status).toBe(200);
    expectWellFormed(r.json);
    expect(r.json.recommended.tool).toBe(tool);
    expect(r.json.recommended.reasons.join(' ')).toContain('shared sandbox');
  });
});
