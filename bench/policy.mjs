// Policy benchmark, in two parts.
//   1. In process: what policy evaluation (the pure rule evaluation of a
//      realistic rule set, rules already cached) and rate limiting (the
//      gateway's CallRateLimiter deciding a call under two limits, limits
//      already cached: a peek at both, then a take on both, two Redis round
//      trips against the local Redis) cost per call, as p50 and p99.
//   2. Through the gateway: execute throughput of a codespar_pay call that
//      reaches dispatch (the router picks its rails, none is connected, and
//      the answer says so: HTTP 200, code connection_required), for a
//      project with no rules and no limits and for a project with rules and
//      two limits far above the load, at 50 concurrent. After one call on
//      each side (both must answer 200) and a discarded warm-up round, the
//      two run in alternating rounds on the same stack (ABBA order, so drift
//      of a busy machine falls on both), and the figure is the median of the
//      per-round ratios: the cost of governance on the whole pipeline.
// Prints figures only. Needs a build (`pnpm build`), Postgres and Redis.
// BENCH_ROUNDS (default 5) sets the rounds, BENCH_SECONDS (default 5) the
// length of each run.
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ROOT, appEnv, benchPrefix, fmt, freePort, startProcess, stop, table } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const CONNECTIONS = Number(process.env.BENCH_POLICY_CONNECTIONS ?? 50);
const ITERATIONS = Number(process.env.BENCH_POLICY_ITERATIONS ?? 20_000);

const RULES = [
  { type: 'deny_tools', tools: ['codespar_crypto_pay'] },
  { type: 'allow_tools', tools: ['codespar_pay', 'codespar_charge', 'codespar_discover', 'codespar_list_tools'] },
  // Every provider with a codespar_pay rail: the router weighs the same rails on both sides, so the ratio is the cost of governance alone.
  {
    type: 'allow_providers',
    providers: ['asaas', 'bitso', 'ebanx', 'efi', 'inter', 'openpay', 'pagarme', 'stp', 'wise', 'benchpay'],
  },
  { type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 1_000_000 },
  { type: 'approval_above', tool: 'codespar_pay', currency: 'BRL', above_minor: 900_000, ttl_seconds: 600 },
  { type: 'max_amount', tool: 'codespar_charge', currency: 'BRL', max_minor: 500_000 },
];
const LIMITS = [
  { scope: 'key', per_second: 100_000 },
  { scope: 'tool', target: 'codespar_pay', per_minute: 6_000_000 },
];
const PAY = {
  tool: 'codespar_pay',
  input: { action: 'pay', method: 'pix', amount: 5000, currency: 'BRL', recipient: 'bench-pix-key' },
};

/**
 * One load run, like `load` in lib/common.mjs, but counting answers by
 * status: on a busy machine a handful of 503s (the pipeline's own deadline)
 * can happen, and one of them should not throw away a whole run. Throughput
 * counts 2xx answers only; any other answer is printed, and more than 1%
 * of them fails the run.
 */
async function measure({ url, method, body, headers, connections, seconds }) {
  const opts = {
    url,
    method,
    connections,
    duration: seconds,
    pipelining: 1,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
  await autocannon({ ...opts, duration: 1 });
  const r = await autocannon(opts);
  const other = Object.entries(r.statusCodeStats ?? {})
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, s]) => `${s.count}×${code}`);
  const answered = r['1xx'] + r['2xx'] + r['3xx'] + r['4xx'] + r['5xx'];
  if (r['2xx'] === 0)
    throw new Error(
      `${url}: no 2xx answer in ${seconds} s (${other.join(', ') || 'no answer at all'}; ${r.timeouts} timeouts)`,
    );
  if (r.errors > 0 || r.non2xx > answered / 100)
    throw new Error(`${url}: ${r.non2xx} non-2xx answers (${other.join(', ')}) and ${r.errors} errors`);
  return { rps: r['2xx'] / (r.duration || seconds), p50: r.latency.p50, p99: r.latency.p99, other };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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
  const { CallRateLimiter } = require(join(ROOT, 'apps/gateway/dist/governance/rate-limits.js'));
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  const prefix = benchPrefix('policy-rl');
  // The limiter as the gateway builds it, its limits (those of the throughput run) cached for the whole loop.
  const config = { ROTA_REDIS_PREFIX: prefix, ROTA_RATE_LIMIT_CACHE_MS: 60_000, ROTA_RATE_LIMIT_WINDOW_SCALE: 1 };
  const rpc = { send: async () => ({ limits: LIMITS }) };
  // The limiter lets calls through when Redis fails; here that would time nothing, so it stops the run.
  const log = {
    warn: ({ err }) => {
      throw err;
    },
  };
  const limiter = new CallRateLimiter(config, redis, log, rpc);
  const principal = {
    kind: 'project',
    keyId: 'key_bench',
    orgId: 'org_bench',
    projectId: 'proj_bench',
    environment: 'live',
    scopes: [],
  };
  const rateMs = [];
  try {
    for (let i = 0; i < Math.min(ITERATIONS, 5000); i++) {
      const t = performance.now();
      const v = await limiter.consume(principal, { tool: PAY.tool, provider: null });
      rateMs.push(performance.now() - t);
      if (v.limited || v.headers === null)
        throw new Error(`the limiter did not count the call under ${LIMITS.length} limits: ${JSON.stringify(v)}`);
    }
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
  const e = percentiles(evalMs);
  const r = percentiles(rateMs);
  console.log(
    `\n## Policy evaluation and rate limiting, in process (${RULES.length} rules; ${LIMITS.length} limits far from spent: the take alone, the peek skipped)`,
  );
  table([
    { step: 'policy evaluation', 'p50 ms': fmt(e.p50, 4), 'p99 ms': fmt(e.p99, 4) },
    { step: `rate limits (${LIMITS.length}, redis-gcra)`, 'p50 ms': fmt(r.p50, 4), 'p99 ms': fmt(r.p99, 4) },
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
    // Two projects of the same org on one stack: one governed, one not.
    await db.prisma.project.create({ data: { id: 'proj_bench_governed', orgId: 'org_dev', name: 'bench governed' } });
    const keys = new ApiKeyRepository(db.prisma);
    const scopes = ['servers:read', 'sessions:create', 'tools:execute', 'policy:write'];
    const plain = (await keys.create({ projectId: 'proj_dev', environment: 'live', scopes })).key;
    const governedKey = (await keys.create({ projectId: 'proj_bench_governed', environment: 'live', scopes })).key;
    const port = await freePort();
    const env = appEnv('policy', db.url, port, {
      // At 50 concurrent on a shared 2-core machine a queued execute can wait
      // past the default 5 s deadline and answer 503; this measures
      // throughput, not the deadline, so both sides get a longer one.
      ROTA_RPC_TIMEOUT_MS: process.env.ROTA_RPC_TIMEOUT_MS ?? '20000',
    });
    const base = `http://127.0.0.1:${port}`;
    procs.push(await startProcess(join(ROOT, 'apps/search/dist/main.js'), env, async () => true));
    procs.push(await startProcess(join(ROOT, 'apps/session/dist/main.js'), env, async () => true));
    // codespar_pay is an acting meta-tool: dispatch asks the router for a rail.
    procs.push(await startProcess(join(ROOT, 'apps/router/dist/main.js'), env, async () => true));
    // Ready once a request crosses the transport to search; on a busy machine
    // search can take longer to boot than one 30 s wait, so try three times.
    for (let attempt = 1; ; attempt++) {
      try {
        procs.push(
          await startProcess(
            join(ROOT, 'bench/lib/gateway-child.cjs'),
            env,
            async () => (await fetch(`${base}/bench/transport`)).ok,
          ),
        );
        break;
      } catch (err) {
        if (attempt === 3) throw err;
      }
    }
    const send = (key, method, path, body) =>
      fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const target = async (key) => {
      const opened = await send(key, 'POST', '/v1/sessions', { servers: ['benchpay'], user_id: 'bench-user' });
      if (opened.status !== 201) throw new Error(`POST /v1/sessions answered ${opened.status}`);
      const session = (await opened.json()).id;
      return {
        url: `${base}/v1/sessions/${session}/execute`,
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: PAY,
        connections: CONNECTIONS,
        seconds: SECONDS,
      };
    };
    const put = await send(governedKey, 'PUT', '/v1/policy', { rules: RULES });
    const limits = await send(governedKey, 'PUT', '/v1/rate-limits', { limits: LIMITS });
    if (put.status !== 200 || limits.status !== 200)
      throw new Error(`PUT /v1/policy answered ${put.status}, PUT /v1/rate-limits ${limits.status}`);
    const targets = { none: await target(plain), governed: await target(governedKey) };

    // One call on each side first: both must reach dispatch and answer 200, or the figures would measure a refusal.
    for (const which of ['none', 'governed']) {
      const t = targets[which];
      const t0 = performance.now();
      const r = await fetch(t.url, {
        method: 'POST',
        headers: { ...t.headers, 'content-type': 'application/json' },
        body: JSON.stringify(PAY),
      });
      const body = await r.json().catch(() => null);
      if (r.status !== 200) throw new Error(`execute (${which}) answered ${r.status} ${JSON.stringify(body)}`);
      console.log(
        `one ${which} call: HTTP ${r.status}, success ${body.success}, code ${body.data?.code ?? '-'}, ${fmt(performance.now() - t0, 0)} ms`,
      );
    }

    // A discarded round first: the first seconds of a fresh stack (JIT, pools, caches) would weigh on whichever side ran first.
    for (const which of ['none', 'governed']) await measure({ ...targets[which], seconds: Math.min(SECONDS, 3) });

    const runs = { none: [], governed: [] };
    const ratios = [];
    for (let round = 0; round < ROUNDS; round++) {
      // ABBA: a slow spell of the machine weighs on both sides alike.
      const order = round % 2 === 0 ? ['none', 'governed'] : ['governed', 'none'];
      const got = {};
      for (const which of order) got[which] = await measure(targets[which]);
      runs.none.push(got.none);
      runs.governed.push(got.governed);
      ratios.push(got.governed.rps / got.none.rps);
    }
    const summary = (xs) => ({
      rps: median(xs.map((x) => x.rps)),
      p50: median(xs.map((x) => x.p50)),
      p99: median(xs.map((x) => x.p99)),
    });
    const none = summary(runs.none);
    const governed = summary(runs.governed);
    console.log(
      `\n## Execute with governance vs none, ${CONNECTIONS} concurrent, median of ${ROUNDS} alternating rounds of ${SECONDS} s (codespar_pay reaching dispatch)`,
    );
    table([
      { config: 'no rules, no limits', 'req/s': fmt(none.rps, 0), 'p50 ms': none.p50, 'p99 ms': none.p99 },
      {
        config: `${RULES.length} rules, ${LIMITS.length} limits`,
        'req/s': fmt(governed.rps, 0),
        'p50 ms': governed.p50,
        'p99 ms': governed.p99,
      },
    ]);
    console.log(`per-round ratios: ${ratios.map((r) => fmt(r, 2)).join(', ')}`);
    const stray = [...runs.none, ...runs.governed].flatMap((r) => r.other);
    if (stray.length > 0) console.log(`answers other than 2xx (not counted in req/s): ${stray.join(', ')}`);
    console.log(`throughput ratio (rules / none, median of ${ROUNDS} rounds): ${fmt(median(ratios), 2)}`);
  } finally {
    for (const p of procs.reverse()) await stop(p);
    await db.drop();
  }
}

export async function policyBench() {
  await inProcess();
  await throughput();
}
