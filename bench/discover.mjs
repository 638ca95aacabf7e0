// `codespar_discover` over a 100,000-tool catalog (the shared provider catalog
// replicated with varied texts, see lib/discover-data.mjs):
//   1. recall@10 of the HNSW pass against an exact scan, counted by distance
//      (a returned row counts when its distance is within the exact 10th-best
//      distance), and the pass's own latency, for several hnsw.ef_search values;
//   2. p50 and p95 of one codespar_discover through the gateway
//      (POST /v1/sessions/{id}/execute), one request at a time; when the
//      gateway or the session service cannot start, the search.discover
//      pattern over the transport instead, and the output says so;
//   3. the trigram-only fallback (no query vector) in process, for reference;
//   4. `lexical` (not run unless asked for): the lexical channel alone in
//      process, the current statement against the previous one (BM25's corpus
//      figures recounted on every call) as the baseline, alternating, with a
//      check that both give every intent the same BM25 scores.
//   5. `load` (the default part): the default model against the hashing-only
//      model at concurrency 8 and 32 in the same run, over the demo catalog in
//      process (lib/discover-load.mjs): queries a second, p95, the share of
//      answers that used both channels. It needs no large database, so it is
//      the only part run unless others are named.
// Needs a build (`pnpm build`), Postgres with pgvector, and Redis. The parts
// read a copy of the database in a Postgres cluster of the benchmark's own,
// configured like docker-compose.yml's (shared_buffers 1 GB, see
// lib/private-postgres.mjs); BENCH_DISCOVER_POSTGRES=shared reads the
// machine's shared instance (128 MB of shared buffers) instead.
// BENCH_DISCOVER_TOOLS changes the catalog size; BENCH_DISCOVER_ROUNDS the passes over the intents;
// BENCH_DISCOVER_PARTS picks the parts (default load; the 100,000-tool parts
// are recall,latency,fallback, whose database takes the encoder most of an hour to build). With
// `lexical` alone, the catalog is imported without vectors into a database of
// its own, which takes a minute or two rather than the embedder's time.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT, benchPrefix, fmt, freePort, startProcess, stop, table } from './lib/common.mjs';
import { benchModelKind, discoverBenchDatabase } from './lib/discover-data.mjs';
import { discoverLoad } from './lib/discover-load.mjs';
import { privatePostgres, privatePostgresAvailable } from './lib/private-postgres.mjs';

const require = createRequire(import.meta.url);
const TOOLS = Number(process.env.BENCH_DISCOVER_TOOLS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_DISCOVER_ROUNDS ?? 2);
const PARTS = new Set((process.env.BENCH_DISCOVER_PARTS ?? 'load').split(','));
const EF_VALUES = (process.env.BENCH_DISCOVER_EF ?? '80,120,160,200,240').split(',').map(Number);

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
};

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system, ms) a process has used so far; 0 when it is gone or /proc is absent. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return 0;
  }
}

/** Postgres backends connected to the benchmark database. */
async function backendPids(url) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.map((r) => r.pid);
  } finally {
    await c.end();
  }
}

/**
 * CPU spent per call by the Rota processes and by their Postgres backends. Wall-clock
 * latency on a shared machine moves with everything else running; CPU time
 * does not, so it says what one call costs when the machine is quiet.
 */
async function cpuPerCall(url, procs, fn) {
  const before = new Map();
  for (const p of procs) before.set(`p${p.pid}`, cpuMs(p.pid));
  for (const pid of await backendPids(url)) before.set(`b${pid}`, cpuMs(pid));
  const result = await fn();
  let own = 0;
  let postgres = 0;
  for (const p of procs) own += cpuMs(p.pid) - (before.get(`p${p.pid}`) ?? 0);
  for (const pid of await backendPids(url)) postgres += cpuMs(pid) - (before.get(`b${pid}`) ?? 0);
  return { ...result, cpuOwn: own / result.calls, cpuPostgres: postgres / result.calls };
}

function intents() {
  return labelledIntents().map((x) => x.intent);
}

/** The intents with the tools they expect (`server/tool`). */
function labelledIntents() {
  const lines = readFileSync(join(ROOT, 'bench/data/discover-intents.jsonl'), 'utf8').split('\n').filter(Boolean);
  return lines.map((l) => JSON.parse(l));
}

/**
 * Whether an answer's first match, and any of its first five, is a tool the
 * intent expects; a reworded copy (`<server>-r<k>`) counts as its original.
 */
function hits(result, expected) {
  const shown = [result.recommended, ...result.related]
    .filter(Boolean)
    .map((m) => `${m.server_id.replace(/-r\d+$/, '')}/${m.tool_name}`);
  return { top1: expected.includes(shown[0]), hit5: shown.slice(0, 5).some((t) => expected.includes(t)) };
}

/** Recall@10 of the HNSW pass, the same query shape the repository runs, against an exact scan. */
async function hnswRecall(url, queries, model, embedder, toVectorLiteral) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const sql = `SELECT t.id, t.embedding <=> $1::vector AS d FROM mcp_tools t
               WHERE t.embedding IS NOT NULL AND t.embedding_model = $2 AND coalesce(t.project_id, $3) = $3
               ORDER BY t.embedding <=> $1::vector LIMIT 10`;
  const vectors = (await embedder.embed(queries)).map((v) => toVectorLiteral(v));
  const exact = [];
  for (const v of vectors) {
    await c.query('BEGIN');
    await c.query("SELECT set_config('enable_indexscan', 'off', true), set_config('enable_bitmapscan', 'off', true)");
    const { rows } = await c.query(sql, [v, model, 'proj_bench']);
    await c.query('COMMIT');
    exact.push(rows.map((r) => Number(r.d)));
  }
  const out = [];
  for (const ef of EF_VALUES) {
    let hits = 0;
    let total = 0;
    const times = [];
    for (let rep = 0; rep < 2; rep++) {
      for (let i = 0; i < vectors.length; i++) {
        const t0 = performance.now();
        await c.query('BEGIN');
        // The settings discover itself uses (see apps/search/src/discover/discover.repository.ts).
        await c.query(
          "SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('enable_seqscan', 'off', true)",
          [String(ef)],
        );
        const { rows } = await c.query(sql, [vectors[i], model, 'proj_bench']);
        await c.query('COMMIT');
        times.push(performance.now() - t0);
        if (rep === 1) {
          const bound = exact[i][exact[i].length - 1] + 1e-6;
          hits += rows.filter((r) => Number(r.d) <= bound).length;
          total += exact[i].length;
        }
      }
    }
    out.push({
      'hnsw.ef_search': ef,
      'recall@10': fmt(hits / total, 3),
      'pass p50 ms': fmt(pct(times, 0.5), 2),
      'pass p95 ms': fmt(pct(times, 0.95), 2),
    });
  }
  const { rows } = await c.query(
    "SELECT pg_size_pretty(pg_relation_size('mcp_tools_embedding_hnsw_idx')) AS s, (SELECT count(*) FROM mcp_tools) AS n",
  );
  await c.end();
  return { table: out, indexSize: rows[0].s, rows: Number(rows[0].n) };
}

async function viaGateway(url, queries, firstServer) {
  const port = await freePort();
  const env = {
    DATABASE_URL: url,
    ROTA_REDIS_PREFIX: benchPrefix('discover'),
    PORT: String(port),
    HOST: '127.0.0.1',
    ANTHROPIC_API_KEY: '',
    LOG_LEVEL: 'warn',
    ROTA_EMBEDDER: 'local',
    ROTA_LOCAL_EMBEDDER: benchModelKind(),
    // Every call embeds its query: the intents repeat across rounds, and the service's cache would answer the later ones.
    ROTA_DISCOVER_EMBED_CACHE_SIZE: '0',
    // A throwaway database: the built-in credentials key is acceptable.
    ROTA_DEV_MODE: 'true',
  };
  const base = `http://127.0.0.1:${port}`;
  const procs = [];
  try {
    procs.push(await startProcess(join(ROOT, 'apps/search/dist/main.js'), env, async () => true));
    procs.push(await startProcess(join(ROOT, 'apps/session/dist/main.js'), env, async () => true));
    procs.push(
      await startProcess(
        join(ROOT, 'apps/gateway/dist/main.js'),
        env,
        async () => (await fetch(`${base}/health/live`)).status < 500,
      ),
    );
    const fullEnv = { ...process.env, ...env };
    execFileSync(process.execPath, [join(ROOT, 'packages/db/dist/seed-cli.js')], { env: fullEnv, stdio: 'ignore' });
    const key = execFileSync(
      process.execPath,
      [
        join(ROOT, 'packages/cli/dist/main.js'),
        'keys',
        'create',
        '--scopes',
        'sessions:create,tools:execute',
        '--name',
        'bench-discover',
      ],
      {
        env: fullEnv,
        encoding: 'utf8',
      },
    ).trim();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/v1/sessions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ servers: [firstServer] }),
    });
    if (created.status !== 201)
      throw new Error(`POST /v1/sessions answered ${created.status}: ${await created.text()}`);
    const { id } = await created.json();
    const call = async (q) => {
      const t0 = performance.now();
      const res = await fetch(`${base}/v1/sessions/${id}/execute`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ tool: 'codespar_discover', input: { use_case: q, limit: 5 } }),
      });
      const body = await res.json();
      const ms = performance.now() - t0;
      if (res.status !== 200 || body.success !== true)
        throw new Error(`execute answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      return ms;
    };
    return await cpuPerCall(url, procs, async () => ({
      mode: 'gateway: POST /v1/sessions/{id}/execute',
      ...(await measure(queries, call)),
    }));
  } finally {
    for (const p of procs.reverse()) await stop(p);
  }
}

async function viaTransport(url, queries) {
  const prefix = benchPrefix('discover');
  const env = {
    DATABASE_URL: url,
    ROTA_REDIS_PREFIX: prefix,
    ANTHROPIC_API_KEY: '',
    LOG_LEVEL: 'warn',
    ROTA_EMBEDDER: 'local',
    ROTA_LOCAL_EMBEDDER: benchModelKind(),
    ROTA_DISCOVER_EMBED_CACHE_SIZE: '0',
  };
  const search = await startProcess(join(ROOT, 'apps/search/dist/main.js'), env, async () => true);
  const { RpcClient, requestContext } = require(join(ROOT, 'packages/service-kit/dist/index.js'));
  const tenant = { org_id: 'org_dev', project_id: 'proj_dev', environment: 'live' };
  const rpc = new RpcClient({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix, timeoutMs: 10_000 });
  await rpc.connect();
  try {
    const call = async (q) => {
      const t0 = performance.now();
      await requestContext.run({ requestId: 'bench', tenant }, () =>
        rpc.send('search.discover', { input: { use_case: q, limit: 5 } }),
      );
      return performance.now() - t0;
    };
    return await cpuPerCall(url, [search], async () => ({
      mode: 'transport: search.discover pattern (no gateway)',
      ...(await measure(queries, call)),
    }));
  } finally {
    await rpc.close();
    await stop(search);
  }
}

/** Warms up, then times every query ROUNDS times, one request at a time. */
async function measure(queries, call) {
  const warm = ['warm up the caches', 'listar pedidos', 'create a refund', 'consultar saldo', 'enviar mensaje'];
  for (let i = 0; i < 30; i++) await call(warm[i % warm.length]);
  const times = [];
  for (let r = 0; r < ROUNDS; r++) for (const q of queries) times.push(await call(q));
  return { times, calls: times.length + 30 };
}

async function trigramFallback(url, queries) {
  const { DiscoverRepository } = require(join(ROOT, 'apps/search/dist/discover/discover.repository.js'));
  const { DiscoverService } = require(join(ROOT, 'apps/search/dist/discover/discover.service.js'));
  const { DiscoverConfig } = require(join(ROOT, 'apps/search/dist/discover/config.js'));
  const { requestContext } = require(join(ROOT, 'packages/service-kit/dist/index.js'));
  const config = DiscoverConfig.parse(process.env);
  const repo = DiscoverRepository.connect(url, config, 2);
  const tenant = { org_id: 'org_dev', project_id: 'proj_dev', environment: 'live' };
  try {
    const svc = new DiscoverService(repo, null, config);
    const times = [];
    for (const q of queries.slice(0, 40)) {
      const t0 = performance.now();
      await requestContext.run({ requestId: 'bench', tenant }, () => svc.discover({ input: { use_case: q } }));
      times.push(performance.now() - t0);
    }
    return times;
  } finally {
    await repo.close();
  }
}

/**
 * The lexical channel alone (no embedder), one call at a time through the
 * service, with the current statement and the previous one (corpus figures
 * recounted per call, one-step search) as the baseline. Each round runs every
 * intent with both, alternating which goes first, so both see the same
 * machine; Postgres CPU is counted per statement. The BM25 scores of the rows
 * each returns are compared: the same multiset of scores for every intent (to
 * rounding), the rows themselves allowed to differ only among rows tied at the cut.
 */
async function lexicalChannel(url, queries, labels) {
  const { DiscoverRepository } = require(join(ROOT, 'apps/search/dist/discover/discover.repository.js'));
  const { DiscoverService } = require(join(ROOT, 'apps/search/dist/discover/discover.service.js'));
  const { DiscoverConfig } = require(join(ROOT, 'apps/search/dist/discover/config.js'));
  const { requestContext } = require(join(ROOT, 'packages/service-kit/dist/index.js'));
  const config = DiscoverConfig.parse({ ...process.env, ROTA_DISCOVER_CHANNELS: 'lexical' });
  const tenant = { org_id: 'org_dev', project_id: 'proj_dev', environment: 'live' };
  const modes = ['current', 'previous'].map((variant) => {
    const repo = DiscoverRepository.connect(url, config, 1, variant);
    const mode = { variant, repo, times: [], cpu: 0, calls: 0, scores: [], top1: 0, hit5: 0 };
    // Keeps the BM25 scores of each call's rows for the comparison.
    const candidates = repo.candidates.bind(repo);
    repo.candidates = async (q) => {
      const rows = await candidates(q);
      mode.last = rows.map((r) => r.lexicalScore).sort((a, b) => a - b);
      return rows;
    };
    mode.svc = new DiscoverService(repo, null, config);
    return mode;
  });
  const call = (mode, q) =>
    requestContext.run({ requestId: 'bench', tenant }, () => mode.svc.discover({ input: { use_case: q, limit: 5 } }));
  try {
    for (const m of modes) for (const q of queries.slice(0, 10)) await call(m, q);
    let differ = 0;
    for (let r = 0; r < ROUNDS; r++) {
      for (const m of r % 2 === 0 ? modes : [...modes].reverse()) {
        const pids = await backendPids(url);
        const before = pids.map(cpuMs);
        m.scores = [];
        for (const [i, q] of queries.entries()) {
          const t0 = performance.now();
          const result = await call(m, q);
          m.times.push(performance.now() - t0);
          m.scores.push(m.last);
          if (r === 0) {
            const h = hits(result, labels[i]);
            m.top1 += h.top1 ? 1 : 0;
            m.hit5 += h.hit5 ? 1 : 0;
          }
        }
        m.cpu += pids.map(cpuMs).reduce((a, b, i) => a + b - before[i], 0);
        m.calls += queries.length;
      }
      // To rounding: the order in which a row's terms are added follows the plan.
      const same = (a, b) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= 1e-12 * Math.abs(x));
      differ += modes[0].scores.filter((s, i) => !same(s, modes[1].scores[i])).length;
    }
    return { modes, differ };
  } finally {
    for (const m of modes) await m.repo.close();
  }
}

export async function discoverBench() {
  if (PARTS.has('load')) await discoverLoad();
  if (![...PARTS].some((p) => p !== 'load')) return;
  const vectors = PARTS.has('recall') || PARTS.has('latency') || PARTS.has('fallback');
  const sharedUrl = await discoverBenchDatabase({ targetTools: TOOLS, vectors });
  if (!sharedUrl) {
    console.log('\n## Discover: ../shared/data/provider_catalog.json is not there; skipped.');
    return;
  }
  // By default the benchmark reads a copy in a Postgres of its own, configured
  // like docker-compose.yml's (shared_buffers 1 GB): the machine's shared
  // instance keeps 128 MB, which the HNSW index of 100,000 tools does not fit
  // in. BENCH_DISCOVER_POSTGRES=shared measures the shared instance instead.
  const where = process.env.BENCH_DISCOVER_POSTGRES ?? (privatePostgresAvailable() ? 'private' : 'shared');
  const own = where === 'private' ? await privatePostgres(sharedUrl, new URL(sharedUrl).pathname.slice(1)) : null;
  try {
    await discoverParts(
      own?.url ?? sharedUrl,
      own
        ? `a Postgres of its own (shared_buffers ${own.sharedBuffers}, as docker-compose.yml)`
        : 'the shared Postgres instance',
    );
  } finally {
    own?.stop();
  }
}

async function discoverParts(url, postgres) {
  console.log(`\n(discover benchmark database: ${postgres})`);
  const { LocalEmbedderPool, toVectorLiteral } = require(join(ROOT, 'packages/catalog/dist/index.js'));
  const DISCOVER_DEFAULTS = require(join(ROOT, 'apps/search/dist/discover/config.js')).DiscoverConfig.parse({});
  const queries = intents();
  const firstServer = JSON.parse(readFileSync(join(ROOT, '..', 'shared', 'data', 'provider_catalog.json'), 'utf8'))[0]
    .server_id;

  if (PARTS.has('lexical')) {
    const labelled = labelledIntents();
    const { modes, differ } = await lexicalChannel(
      url,
      labelled.map((x) => x.intent),
      labelled.map((x) => x.expected),
    );
    const cap =
      process.env.ROTA_DISCOVER_LEXICAL_SCAN_CAP ?? `${DISCOVER_DEFAULTS.ROTA_DISCOVER_LEXICAL_SCAN_CAP} (default)`;
    console.log(
      `\n## Discover: the lexical channel alone, in process, one call at a time over ${TOOLS} tools, ${modes[0].times.length} calls each (${queries.length} intents x ${ROUNDS}), scan cap ${cap}`,
    );
    table(
      modes.map((m) => ({
        statement:
          m.variant === 'current'
            ? 'current: figures kept at write time, two-step search, score cap'
            : 'previous: figures recounted per call, every row found scored',
        'p50 ms': fmt(pct(m.times, 0.5), 1),
        'p95 ms': fmt(pct(m.times, 0.95), 1),
        'p99 ms': fmt(pct(m.times, 0.99), 1),
        'CPU ms/call, Postgres': fmt(m.cpu / m.calls, 1),
        'top-1': fmt(m.top1 / queries.length, 3),
        'hit@5': fmt(m.hit5 / queries.length, 3),
      })),
    );
    const scoreCap =
      process.env.ROTA_DISCOVER_LEXICAL_SCORE_CAP ?? `${DISCOVER_DEFAULTS.ROTA_DISCOVER_LEXICAL_SCORE_CAP} (default)`;
    console.log(
      `score cap ${scoreCap}; top-1 and hit@5 over the ${queries.length} labelled intents, a reworded copy counting as its original; calls whose BM25 scores differ between the two (the score cap leaves some rows unscored where the request's words are common): ${differ} of ${modes[0].times.length}; target p95 <= 40 ms; load average: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} on ${cpus().length} cores`,
    );
  }

  if (PARTS.has('recall')) {
    // Queries embedded by the model the database was built with (see benchModelKind).
    const embedder = new LocalEmbedderPool({ kind: benchModelKind() });
    let recall;
    try {
      recall = await hnswRecall(url, queries, embedder.model, embedder, toVectorLiteral);
    } finally {
      await embedder.close();
    }
    console.log(
      `\n## Discover: HNSW pass over ${recall.rows} tools (index ${recall.indexSize}), recall@10 against an exact scan, all ${queries.length} intents`,
    );
    table(recall.table);
  }
  if (!PARTS.has('latency')) return;

  // Through the gateway (what a client sees), then the bare pattern over the
  // transport, so the share of the gateway and the session service shows.
  const runs = [];
  try {
    runs.push(await viaGateway(url, queries, firstServer));
  } catch (err) {
    console.log(`(the gateway route could not be measured: ${err.message.split('\n')[0]})`);
  }
  runs.push(await viaTransport(url, queries));
  const ef = process.env.ROTA_DISCOVER_EF_SEARCH ?? `${DISCOVER_DEFAULTS.ROTA_DISCOVER_EF_SEARCH} (default)`;
  console.log(
    `\n## Discover: one codespar_discover at a time over ${TOOLS} tools, ${runs[0].times.length} calls each (${queries.length} intents x ${ROUNDS}), hnsw.ef_search ${ef}`,
  );
  table(
    runs.map((run) => ({
      via: run.mode,
      'p50 ms': fmt(pct(run.times, 0.5), 1),
      'p95 ms': fmt(pct(run.times, 0.95), 1),
      'p99 ms': fmt(pct(run.times, 0.99), 1),
      'CPU ms/call, Rota processes': fmt(run.cpuOwn, 1),
      'CPU ms/call, Postgres': fmt(run.cpuPostgres, 1),
    })),
  );
  console.log(
    `model ${benchModelKind()}; targets through the gateway, query embedding included: p50 <= 35 ms, p95 <= 80 ms; load average during the run: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on ${cpus().length} cores`,
  );

  if (!PARTS.has('fallback')) return;
  const fb = await trigramFallback(url, queries);
  console.log(
    `trigram-only fallback (no query vector), in process, 40 calls: p50 ${fmt(pct(fb, 0.5), 1)} ms, p95 ${fmt(pct(fb, 0.95), 1)} ms`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await discoverBench();
  process.exit(0);
}
