// Health events benchmark: how long from a health transition to the signed
// webhook arriving at a receiver, with two worker replicas. Each cycle makes
// the deployment degraded (a stale FX pair) and healthy again (a fresh one);
// `GET /v1/health` evaluates it, the transition's event goes to the outbox,
// the worker dispatches at once and delivers. Measured from the event's `at`
// (set when the transition is evaluated) to the receiver reading the body,
// both on this machine's clock. Needs a build (`pnpm build`), Postgres and
// Redis.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, benchPrefix, fmt, freePort, sleep, startProcess, stop, table } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const CYCLES = Number(process.env.BENCH_HEALTH_CYCLES ?? 40);

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

export async function healthWebhooksBench() {
  const { createTestDatabase, seed, ApiKeyRepository } = require(join(ROOT, 'packages/db/dist/index.js'));
  const db = await createTestDatabase();
  const procs = [];
  const arrivals = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      arrivals.push({ at: Date.now(), body: JSON.parse(body) });
      res.writeHead(204).end();
    });
  });
  try {
    await seed(db.prisma);
    await db.prisma.provider.create({
      data: {
        id: 'benchpay',
        name: 'Bench Pay',
        description: 'payments',
        category: 'payments',
        countries: ['BR'],
        authType: 'api_key',
        selfServeAuth: true,
        baseUrls: {},
      },
    });
    for (let i = 0; i < 10; i++) {
      await db.prisma.mcpTool.create({
        data: { serverId: 'benchpay', toolName: `tool_${i}`, description: `Bench tool ${i}`, descriptionHash: `b${i}` },
      });
    }
    const { key } = await new ApiKeyRepository(db.prisma).create({
      operator: true,
      scopes: ['admin', 'servers:read', 'webhooks:write'],
    });
    const env = {
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ROTA_DEV_MODE: 'true',
      ROTA_REDIS_PREFIX: benchPrefix('health'),
      ROTA_LOCAL_EMBEDDER: 'hash',
      ROTA_WEBHOOK_ALLOW_PRIVATE: 'true',
      ROTA_HEALTH_INTERVAL_S: '3600',
      ROTA_EVENTS_DISPATCH_EVERY_MS: '60000',
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: '',
    };
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    procs.push(
      await startProcess(
        join(ROOT, 'apps/gateway/dist/main.js'),
        { ...env, PORT: String(port) },
        async () => (await fetch(`${base}/health/live`)).ok,
      ),
    );
    for (const app of ['session', 'router', 'search'])
      procs.push(await startProcess(join(ROOT, `apps/${app}/dist/main.js`), env, async () => true));
    for (let i = 0; i < 2; i++)
      procs.push(await startProcess(join(ROOT, 'apps/worker/dist/main.js'), env, async () => true));
    let ready;
    for (let i = 0; i < 600 && ready?.status !== 'ready'; i++) {
      ready = await (await fetch(`${base}/health/ready`)).json();
      await sleep(100);
    }
    if (ready.status !== 'ready') throw new Error(`the stack is not ready: ${JSON.stringify(ready.checks)}`);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const call = async (method, path, body) => {
      const r = await fetch(`${base}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
      const json = await r.json();
      if (!r.ok) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(json)}`);
      return json;
    };
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${receiver.address().port}/hook`;
    await call('POST', '/v1/fx/rates', { rates: [{ base: 'USD', quote: 'BRL', rate: '5.4' }] });
    for (let i = 0; (await call('GET', '/v1/health')).status !== 'healthy'; i++) {
      if (i > 300) throw new Error('the deployment never became healthy (embeddings?)');
      await sleep(100);
    }
    await call('POST', '/v1/webhooks', { url, events: ['system.health.*'] });
    const old = new Date(Date.now() - 100 * 3600_000).toISOString();
    // A stored rate observed later is never overwritten by an older one, so each cycle goes stale on a pair of its own.
    const bases = ['EUR', 'GBP', 'JPY', 'CAD', 'AUD', 'CHF', 'CNY', 'INR', 'SEK', 'NOK'];
    const quotes = ['ARS', 'CLP', 'COP', 'MXN', 'PEN', 'UYU', 'PYG', 'BOB'];
    for (let c = 0; c < CYCLES; c++) {
      const pair = { base: bases[c % bases.length], quote: quotes[Math.floor(c / bases.length) % quotes.length] };
      await call('POST', '/v1/fx/rates', { rates: [{ ...pair, rate: '6.1', fetched_at: old }] });
      await call('GET', '/v1/health');
      await call('POST', '/v1/fx/rates', { rates: [{ ...pair, rate: '6.2', fetched_at: new Date().toISOString() }] });
      await call('GET', '/v1/health');
    }
    for (let i = 0; arrivals.length < CYCLES * 2 && i < 100; i++) await sleep(100);
    await sleep(500);
    const ms = arrivals.map((a) => a.at - Date.parse(a.body.data.at)).sort((a, b) => a - b);
    const types = arrivals.map((a) => a.body.type);
    const alternating = types.every(
      (t, i) => t === (i % 2 === 0 ? 'system.health.degraded' : 'system.health.recovered'),
    );
    console.log(`\n## Health events through webhooks (${CYCLES} cycles, two worker replicas)\n`);
    table([
      { measure: 'events received / transitions', value: `${arrivals.length} / ${CYCLES * 2}`, target: 'equal' },
      { measure: 'degraded and recovered alternate', value: String(alternating), target: 'true' },
      { measure: 'transition → delivered p50 (ms)', value: fmt(pct(ms, 0.5)), target: '' },
      { measure: 'transition → delivered p95 (ms)', value: fmt(pct(ms, 0.95)), target: '≤ 1000' },
    ]);
  } finally {
    receiver.close();
    for (const p of procs.reverse()) await stop(p);
    await db.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await healthWebhooksBench();
  process.exit(0);
}
