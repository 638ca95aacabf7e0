// `codespar_discover` under concurrent load, the default model against the
// hashing-only model in the same run (the machine is shared, so only ratios
// taken side by side mean anything).
//
// The demo catalog is imported and embedded once per model into a throwaway
// database; then, for each concurrency (BENCH_DISCOVER_CONCURRENCY, default
// 8,32), each model serves a closed loop of that many clients for
// BENCH_DISCOVER_LOAD_SECONDS (default 12) seconds, the models taking turns
// in ABBA order over BENCH_DISCOVER_LOAD_ROUNDS (default 2) rounds so that a
// change in the machine's load hits both alike. Discover runs in process,
// through the search service's own code and the embedder the service would
// build (worker threads, micro-batching), with the query-vector cache off,
// since the intents repeat. Printed per model and concurrency: queries a
// second, p50 / p95 / p99, the share of answers that used both channels, why
// the others skipped the vector channel, top-1 / hit@5 against the intents'
// labels, and the encoder's mean batch.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, fmt, table } from './common.mjs';

const require = createRequire(import.meta.url);

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
};

function labelled() {
  return readFileSync(join(ROOT, 'bench/data/discover-intents.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** One model's database and in-process discover. */
async function setUp(kind, doc) {
  const catalog = require(join(ROOT, 'packages/catalog/dist/index.js'));
  const dbkit = require(join(ROOT, 'packages/db/dist/index.js'));
  const { DiscoverRepository } = require(join(ROOT, 'apps/search/dist/discover/discover.repository.js'));
  const { DiscoverService } = require(join(ROOT, 'apps/search/dist/discover/discover.service.js'));
  const { DiscoverConfig } = require(join(ROOT, 'apps/search/dist/discover/config.js'));
  const env = { ...process.env, ROTA_EMBEDDER: 'local', ROTA_LOCAL_EMBEDDER: kind, OPENAI_API_KEY: '' };
  const embedder = catalog.createEmbedder(env);
  const db = await dbkit.createTestDatabase();
  const t0 = performance.now();
  await catalog.importCatalog(db.prisma, doc, { model: embedder.model, projectId: null });
  for await (const batch of catalog.staleBatches(db.prisma, embedder.model, 200)) {
    await catalog.embedBatch(db.prisma, embedder, { ids: batch.map((b) => b.id) });
  }
  const loadS = (performance.now() - t0) / 1000;
  const config = DiscoverConfig.parse({ ...env, ROTA_DISCOVER_EMBED_CACHE_SIZE: '0' });
  const repo = DiscoverRepository.connect(db.url, config);
  const skipped = new Map();
  const service = new DiscoverService(repo, embedder, config, { warn: () => undefined });
  return {
    kind,
    model: embedder.model,
    embedder,
    service,
    skipped,
    loadS,
    async close() {
      await repo.close();
      await embedder.close?.();
      await db.drop();
    },
  };
}

/** A closed loop of `concurrency` clients for `seconds`, each sending the next intent as soon as its previous answer came. */
async function closedLoop(m, intents, concurrency, seconds) {
  const { requestContext } = require(join(ROOT, 'packages/service-kit/dist/index.js'));
  const times = [];
  let both = 0;
  let top1 = 0;
  let hit5 = 0;
  const reasons = {};
  let next = 0;
  const before = m.embedder.stats?.();
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  const client = async () => {
    while (performance.now() < end) {
      const it = intents[next++ % intents.length];
      const s = performance.now();
      const res = await requestContext.run(
        { requestId: 'bench', tenant: { org_id: 'org_bench', project_id: 'proj_bench', environment: 'live' } },
        () => m.service.discover({ input: { use_case: it.intent, limit: 5 } }),
      );
      times.push(performance.now() - s);
      if (res.channels?.includes('vector') && res.channels.includes('lexical')) both++;
      for (const sk of res.channels_skipped ?? []) reasons[sk.reason] = (reasons[sk.reason] ?? 0) + 1;
      const shown = [res.recommended, ...res.related].filter(Boolean).map((x) => x.tool);
      if (it.expected.includes(shown[0])) top1++;
      if (shown.slice(0, 5).some((t) => it.expected.includes(t))) hit5++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const wall = (performance.now() - t0) / 1000;
  const after = m.embedder.stats?.();
  return {
    times,
    both,
    top1,
    hit5,
    reasons,
    qps: times.length / wall,
    batches: after ? after.batches - before.batches : 0,
    batched: after ? after.batchedTexts - before.batchedTexts : 0,
  };
}

function merge(a, b) {
  if (!a) return { ...b, walls: [b.times.length / b.qps] };
  const reasons = { ...a.reasons };
  for (const [k, v] of Object.entries(b.reasons)) reasons[k] = (reasons[k] ?? 0) + v;
  return {
    times: [...a.times, ...b.times],
    both: a.both + b.both,
    top1: a.top1 + b.top1,
    hit5: a.hit5 + b.hit5,
    reasons,
    walls: [...a.walls, b.times.length / b.qps],
    batches: a.batches + b.batches,
    batched: a.batched + b.batched,
  };
}

export async function discoverLoad() {
  const catalog = require(join(ROOT, 'packages/catalog/dist/index.js'));
  require(join(ROOT, 'packages/lexicon/dist/index.js')).warmUp();
  const { localModelKind } = catalog;
  const concurrencies = (process.env.BENCH_DISCOVER_CONCURRENCY ?? '8,32').split(',').map(Number);
  const seconds = Number(process.env.BENCH_DISCOVER_LOAD_SECONDS ?? 12);
  const rounds = Number(process.env.BENCH_DISCOVER_LOAD_ROUNDS ?? 2);
  const defaultKind = localModelKind({});
  const kinds = ['hash', defaultKind];
  let text = readFileSync(join(ROOT, 'packages/catalog/data/demo-catalog.json'), 'utf8');
  if (catalog.substituteSandboxUrl)
    text = catalog.substituteSandboxUrl(text, catalog.DEFAULT_SANDBOX_URL ?? 'http://127.0.0.1:4010');
  const doc = catalog.parseCatalogValue(JSON.parse(text));
  const intents = labelled();
  const models = [];
  try {
    for (const k of kinds) models.push(await setUp(k, doc));
    // One pass over the intents first: the encoder's threads load their weights and warm up.
    for (const m of models) await closedLoop(m, intents.slice(0, 16), 4, 0.001);
    const results = new Map();
    for (const c of concurrencies) {
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? models : [...models].reverse();
        for (const m of order) {
          const key = `${m.kind}@${c}`;
          results.set(key, merge(results.get(key), await closedLoop(m, intents, c, seconds)));
        }
      }
    }
    console.log(
      `\n## Discover under load: the demo catalog (${doc.servers.reduce((n, s) => n + s.tools.length, 0)} tools), in process, ${rounds} rounds of ${seconds} s per model and concurrency, models by turns (ABBA), query cache off`,
    );
    const rows = [];
    for (const c of concurrencies) {
      const hash = results.get(`hash@${c}`);
      const hashQps = hash.times.length / hash.walls.reduce((a, b) => a + b, 0);
      const hashP95 = pct(hash.times, 0.95);
      for (const m of models) {
        const r = results.get(`${m.kind}@${c}`);
        const qps = r.times.length / r.walls.reduce((a, b) => a + b, 0);
        const p95 = pct(r.times, 0.95);
        const n = r.times.length;
        rows.push({
          model: m.model,
          concurrency: c,
          answers: n,
          'queries/s': fmt(qps, 1),
          'x hash q/s': fmt(qps / hashQps, 2),
          'p50 ms': fmt(pct(r.times, 0.5), 1),
          'p95 ms': fmt(p95, 1),
          'x hash p95': fmt(p95 / hashP95, 2),
          'p99 ms': fmt(pct(r.times, 0.99), 1),
          'both channels': `${fmt((100 * r.both) / n, 1)} %`,
          'vector skipped': Object.entries(r.reasons)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
          'top-1 / hit@5': `${fmt(r.top1 / n, 3)} / ${fmt(r.hit5 / n, 3)}`,
          'mean batch': r.batches ? fmt(r.batched / r.batches, 1) : '',
        });
      }
    }
    table(rows);
    const enc = models.find((m) => m.embedder.threads);
    console.log(
      `setup (import and embedding): ${models.map((m) => `${m.kind} ${fmt(m.loadS, 1)} s`).join(', ')}; encoder threads ${enc?.embedder.threads ?? '-'}, batch window ${enc?.embedder.batchWindowMs ?? '-'} ms, batch max ${enc?.embedder.batchMax ?? '-'}; targets with the default model: both channels >= 99 %, q/s at 8 >= 0.8x hash, p95 <= 1.5x hash; load average at the end: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} on ${cpus().length} cores`,
    );
  } finally {
    for (const m of models) await m.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await discoverLoad();
  process.exit(0);
}
