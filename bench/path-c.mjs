// Path C benchmark: POST /v1/meta-tools/discover through the gateway and the
// router service, at 1 and 50 concurrent, plus the in-process cost of
// planning and ranking. The seeded dev project (proj_dev, live) is given a
// few providers and connections in DATABASE_URL first, idempotently.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT, fmt, load, table } from './lib/common.mjs';
import { benchStack, createKey } from './lib/stack.mjs';

const require = createRequire(import.meta.url);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/rota';
const CONNECTED = ['asaas', 'pagarme', 'stp', 'wise'];

/** Makes sure the providers exist (the demo catalog may already hold them) and that proj_dev has them connected in live. */
async function seedConnections() {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    for (const id of CONNECTED) {
      await client.query(
        `INSERT INTO providers (id, name, description, category, auth_type, self_serve_auth, base_urls)
         VALUES ($1, $1, 'benchmark provider', 'payments', 'api_key', true, '{}'::jsonb) ON CONFLICT (id, owner) DO NOTHING`,
        [id],
      );
      await client.query(
        `INSERT INTO connections (id, project_id, environment, server_id, status, updated_at)
         VALUES ($1, 'proj_dev', 'live', $2, 'connected', now()) ON CONFLICT (project_id, environment, server_id) DO NOTHING`,
        [`conn_bench_${id}`, id],
      );
    }
  } finally {
    await client.end();
  }
}

const BODIES = [
  { intent: { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 4990, urgency: 'instant' } },
  { intent: { operation: 'payout', currency: 'MXN', country: 'MX', amount_minor: 300000 } },
  { intent: { operation: 'refund', currency: 'BRL', country: 'BR', amount_minor: 1500 } },
];

function inProcess() {
  const { PathCIntent } = require(join(ROOT, 'packages/contracts/dist/index.js'));
  const { planRoutes } = require(join(ROOT, 'apps/router/dist/route/plan.js'));
  const { rankRoutes } = require(join(ROOT, 'apps/router/dist/route/scoring.js'));
  const { buildArgsTemplate } = require(join(ROOT, 'apps/router/dist/route/args-template.js'));
  const { emptyStats } = require(join(ROOT, 'apps/router/dist/telemetry/window.js'));
  const set = {
    org_id: 'o',
    project_id: 'p',
    environment: 'live',
    providers: Object.fromEntries(CONNECTED.map((p) => [p, 'connected'])),
    catalog: CONNECTED,
    refreshed_at: '',
  };
  const intents = BODIES.map((b) => PathCIntent.parse(b.intent));
  const once = (i) => {
    const intent = intents[i % intents.length];
    const plan = planRoutes(intent, set);
    const ranked = rankRoutes(
      intent,
      plan.routes.map((r) => ({ ...r, stats: emptyStats() })),
    );
    return buildArgsTemplate(intent, ranked[0].rail);
  };
  for (let i = 0; i < 2000; i++) once(i);
  const samples = [];
  for (let i = 0; i < 20000; i++) {
    const t0 = process.hrtime.bigint();
    once(i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length * 0.5)], p99: samples[Math.floor(samples.length * 0.99)] };
}

export async function pathC() {
  await seedConnections();
  const key = createKey('servers:read', { ...process.env, DATABASE_URL });
  const cpu = inProcess();
  const stack = await benchStack({ NL_EXTRACTOR: 'local', DATABASE_URL }, ['search', 'router']);
  try {
    const rows = [];
    const url = `${stack.base}/v1/meta-tools/discover`;
    const headers = { authorization: `Bearer ${key}` };
    const check = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(BODIES[0]),
    });
    if (check.status !== 200) throw new Error(`path C answered ${check.status}: ${await check.text()}`);
    for (const connections of [1, 50]) {
      const r = await load({ url, method: 'POST', headers, body: BODIES[0], connections, seconds: SECONDS });
      rows.push({
        route: 'POST /v1/meta-tools/discover {intent}',
        concurrent: connections,
        'req/s': fmt(r.rps, 0),
        'p50 ms': r.p50,
        'p99 ms': r.p99,
      });
    }
    const d = await load({
      url,
      method: 'POST',
      headers,
      body: { description: 'cobrar R$ 49,90 via pix de um cliente no Brasil' },
      connections: 1,
      seconds: SECONDS,
    });
    rows.push({
      route: 'POST /v1/meta-tools/discover {description}, local',
      concurrent: 1,
      'req/s': fmt(d.rps, 0),
      'p50 ms': d.p50,
      'p99 ms': d.p99,
    });
    const t = await load({ url: `${stack.base}/bench/transport`, connections: 1, seconds: SECONDS });
    rows.push({
      route: 'bare transport round trip (reference)',
      concurrent: 1,
      'req/s': fmt(t.rps, 0),
      'p50 ms': t.p50,
      'p99 ms': t.p99,
    });
    console.log(
      '\n## Path C: POST /v1/meta-tools/discover through the gateway (proj_dev with 4 connected providers, 6 routes ranked)',
    );
    table(rows);
    console.log(`planning, ranking and args_template in process: p50 ${fmt(cpu.p50, 3)} ms, p99 ${fmt(cpu.p99, 3)} ms`);
  } finally {
    await stack.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await pathC();
  process.exit(0);
}
