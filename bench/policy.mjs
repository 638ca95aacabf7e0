// Policy benchmark, in two parts.
//   1. In process: what policy evaluation (the pure rule evaluation of a
//      realistic rule set, rules already cached) and rate limiting (one
//      rate-limiter-flexible consume against the local Redis, which is what
//      the gateway does per limit) cost per call, as p50 and p99.
//   2. Through the gateway: execute throughput of a codespar_pay call that
//      reaches dispatch, with no rules and no limits, then with rules and a
//      per-key limit far above the load, at 50 concurrent; the ratio is the
//      cost of governance on the whole pipeline.
// Prints figures only. Needs a build (`pnpm build`), Postgres and Redis.
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, benchPrefix, fmt, freePort, load, startProcess, stop, table } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_POLICY_CONNECTIONS ?? 50);
const ITERATIONS = Number(process.env.BENCH_POLICY_ITERATIONS ?? 20_000);

const RULES = [
  { type: 'deny_tools', tools: ['codespar_crypto_pay'] },
  { type: 'allow_tools', tools: ['codespar_pay', 'codespar_charge', 'codespar_discover', 'codespar_list_tools'] },
  { type: 'allow_providers', providers: ['benchpay', 'zzpay'] },
  { type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 1_000_000 },
  { type: 'approval_above', tool: 'codespar_pay', currency: 'BRL', above_minor: 900_000, ttl_seconds: 600 },
  { type: 'max_amount', tool: 'codespar_charge', currency: 'BRL', max_minor: 500_000 },
];
const PAY = { tool: 'codespar_pay', input: { action: 'pay', method: 'pix', amount: 5000, currency: 'BRL', recipient: 'bench-pix-key' } };

function percentiles(samples) {
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

async function inProcess() {
  const { evaluate } = require(join(ROOT, 'apps/session/dist/policy/evaluate.js'));
  const rules = RULES.map((r, i) => ({ ...r, id: `pr_bench${i}` }));
  const call = { tool: 'codespar_pay', action: 'pay', args: PAY.input, raw: null, userId: 'bench-user' };
  const evalMs = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t = performance.now();
    evaluate(rules, call);
    evalMs.push(performance.now() - t);
  }

  const Redis = require(require.resolve('ioredis', { paths: [join(ROOT, 'apps/gateway')] }));
  const { RateLimiterRedis } = require(require.resolve('rate-limiter-flexible', { paths: [join(ROOT, 'apps/gateway')] }));
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  const limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix: benchPrefix('policy-rl'), points: 1e9, duration: 60 });
  const rateMs = [];
  try {
    for (let i = 0; i < Math.min(ITERATIONS, 5000); i++) {
      const t = performance.now();
      await limiter.consume('bench-key', 1);
      rateMs.push(performance.now() - t);
    }
  } finally {
    redis.disconnect();
  }
  const e = percentiles(evalMs);
  const r = percentiles(rateMs);
  console.log(`\n## Policy evaluation and rate limiting, in process (${RULES.length} rules; one Redis consume per limit)`);
  table([
    { step: 'policy evaluation', 'p50 ms': fmt(e.p50, 4), 'p99 ms': fmt(e.p99, 4) },
    { step: 'rate limit (one limit)', 'p50 ms': fmt(r.p50, 4), 'p99 ms': fmt(r.p99, 4) },
    { step: 'added to an execute (sum)', 'p50 ms': fmt(e.p50 + r.p50, 4), 'p99 ms': fmt(e.p99 + r.p99, 4) },
  ]);
}

async function throughput() {
  const { createTestDatabase, seed, ApiKeyRepository } = require(join(ROOT, 'packages/db/dist/index.js'));
  const db = await createTestDatabase();
  const procs = [];
  try {
    await seed(db.prisma);
    await db.prisma.provider.upsert({
      where: { id_owner: { id: 'benchpay', owner: '' } },
      create: {
        id: 'benchpay',
        name: 'Bench Pay',
        description: 'payments',
        category: 'payments',
        countries: ['BR'],
        authType: 'api_key',
        selfServeAuth: true,
        baseUrls: {},
      },
      update: {},
    });
    const { key } = await new ApiKeyRepository(db.prisma).create({
      projectId: 'proj_dev',
      environment: 'live',
      scopes: ['servers:read', 'sessions:create', 'tools:execute', 'policy:write'],
    });
    const port = await freePort();
    const env = {
      DATABASE_URL: db.url,
      ROTA_REDIS_PREFIX: benchPrefix('policy'),
      PORT: String(port),
      HOST: '127.0.0.1',
      ANTHROPIC_API_KEY: '',
      LOG_LEVEL: 'warn',
      ROTA_DEV_MODE: 'true',
    };
    const base = `http://127.0.0.1:${port}`;
    procs.push(await startProcess(join(ROOT, 'apps/search/dist/main.js'), env, async () => true));
    procs.push(await startProcess(join(ROOT, 'apps/session/dist/main.js'), env, async () => true));
    procs.push(await startProcess(join(ROOT, 'bench/lib/gateway-child.cjs'), env, async () => (await fetch(`${base}/bench/transport`)).ok));
    const headers = { authorization: `Bearer ${key}` };
    const send = (method, path, body) =>
      fetch(`${base}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const opened = await send('POST', '/v1/sessions', { servers: ['benchpay'], user_id: 'bench-user' });
    if (opened.status !== 201) throw new Error(`POST /v1/sessions answered ${opened.status}`);
    const session = (await opened.json()).id;
    const target = { url: `${base}/v1/sessions/${session}/execute`, method: 'POST', headers, body: PAY, connections: CONNECTIONS, seconds: SECONDS };

    const none = await load(target);
    const put = await send('PUT', '/v1/policy', { rules: RULES });
    const limits = await send('PUT', '/v1/rate-limits', {
      limits: [
        { scope: 'key', per_second: 100_000 },
        { scope: 'tool', target: 'codespar_pay', per_minute: 6_000_000 },
      ],
    });
    if (put.status !== 200 || limits.status !== 200) throw new Error(`PUT /v1/policy answered ${put.status}, PUT /v1/rate-limits ${limits.status}`);
    const governed = await load(target);
    console.log(`\n## Execute with governance vs none, ${CONNECTIONS} concurrent, ${SECONDS} s each (codespar_pay reaching dispatch)`);
    table([
      { config: 'no rules, no limits', 'req/s': fmt(none.rps, 0), 'p50 ms': none.p50, 'p99 ms': none.p99 },
      { config: `${RULES.length} rules, 2 limits`, 'req/s': fmt(governed.rps, 0), 'p50 ms': governed.p50, 'p99 ms': governed.p99 },
    ]);
    console.log(`throughput ratio (rules / none): ${fmt(governed.rps / none.rps, 2)}`);
  } finally {
    for (const p of procs.reverse()) await stop(p);
    await db.drop();
  }
}

export async function policyBench() {
  await inProcess();
  await throughput();
}
