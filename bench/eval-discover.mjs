// `codespar_discover` quality: recall@1 and recall@5 of the catalog ranking
// over a labelled set of intents (Portuguese, Spanish, English).
//
//   node bench/eval-discover.mjs [--catalog <file>] [--intents <file>] [--trigram-only] [--verbose]
//
// Defaults: the demo catalog (packages/catalog/data/demo-catalog.json) and
// bench/data/discover-intents.jsonl. The catalog may be a Rota catalog
// document or an array of servers shaped like ../shared/data/provider_catalog.json.
// Each intent line is {intent, lang, expected: "server/tool" | ["server/tool", ...],
// country?, category?}; a hit is any expected tool.
//
// The catalog is imported into a fresh database (cloned from the migrated
// template, dropped at the end) and embedded with the configured embedder
// (the local one unless ROTA_EMBEDDER / OPENAI_API_KEY say otherwise). The
// search service's own discover code then answers each intent in process, so
// the figures are those of the service without the transport around it.
// Needs a build (`pnpm build`) and Postgres.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { ROOT, fmt, table } from './lib/common.mjs';

const require = createRequire(import.meta.url);

function arg(name) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

export async function evalDiscover({ catalogPath, intentsPath, verbose = false, trigramOnly = false, log = console.log } = {}) {
  catalogPath ??= process.env.ROTA_DISCOVER_EVAL_CATALOG ?? join(ROOT, 'packages/catalog/data/demo-catalog.json');
  intentsPath ??= process.env.ROTA_DISCOVER_EVAL_INTENTS ?? join(ROOT, 'bench/data/discover-intents.jsonl');
  if (!existsSync(catalogPath) || !existsSync(intentsPath)) {
    log(`\n## Discover eval: ${existsSync(catalogPath) ? intentsPath : catalogPath} is not there; skipped.`);
    return null;
  }
  const catalog = require(join(ROOT, 'packages/catalog/dist/index.js'));
  const dbkit = require(join(ROOT, 'packages/db/dist/index.js'));
  const { DiscoverRepository } = require(join(ROOT, 'apps/search/dist/discover/discover.repository.js'));
  const { DiscoverService } = require(join(ROOT, 'apps/search/dist/discover/discover.service.js'));
  const { requestContext } = require(join(ROOT, 'packages/service-kit/dist/index.js'));
  const { DiscoverConfig } = require(join(ROOT, 'apps/search/dist/discover/config.js'));
  require(join(ROOT, 'packages/lexicon/dist/index.js')).warmUp();

  const raw = JSON.parse(readFileSync(catalogPath, 'utf8'));
  // A Rota catalog document, or an array of servers in the shared data set's shape.
  const doc = catalog.parseCatalogValue(raw);
  const intents = readFileSync(intentsPath, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .map((x) => ({ ...x, expected: Array.isArray(x.expected) ? x.expected : [x.expected] }));

  const embedder = catalog.createEmbedder(process.env);
  const db = await dbkit.createTestDatabase();
  let repo;
  try {
    await catalog.importCatalog(db.prisma, doc, { model: embedder.model, projectId: null });
    for await (const batch of catalog.staleBatches(db.prisma, embedder.model, 200)) {
      await catalog.embedBatch(db.prisma, embedder, { ids: batch.map((b) => b.id) });
    }
    const config = DiscoverConfig.parse(process.env);
    // --trigram-only: no query vector, as when the embedder is down.
    repo = DiscoverRepository.connect(db.url, config, 2);
    const service = new DiscoverService(repo, trigramOnly ? null : embedder, config);

    const stats = {};
    const misses = [];
    const times = [];
    let native = 0;
    const strategies = {};
    for (const it of intents) {
      const t0 = performance.now();
      // The tenant rides in the request context, as the transport delivers it.
      const res = await requestContext.run({ requestId: 'eval', tenant: { org_id: 'org_eval', project_id: 'proj_eval', environment: 'live' } }, () =>
        service.discover({
          input: { use_case: it.intent, limit: 5, ...(it.country ? { country: it.country } : {}), ...(it.category ? { category: it.category } : {}) },
        }),
      );
      times.push(performance.now() - t0);
      // The catalog's own order, whether or not a native meta-tool took the recommended slot.
      const ranked = [res.recommended, ...res.related].filter(Boolean).map((m) => m.tool);
      if (res.meta_tools.length) native++;
      strategies[res.search_strategy] = (strategies[res.search_strategy] ?? 0) + 1;
      for (const key of [it.lang ?? 'und', 'all']) {
        const s = (stats[key] ??= { n: 0, r1: 0, r5: 0, rr: 0 });
        s.n++;
        if (it.expected.includes(ranked[0])) s.r1++;
        const pos = ranked.slice(0, 5).findIndex((t) => it.expected.includes(t));
        if (pos >= 0) {
          s.r5++;
          s.rr += 1 / (pos + 1);
        }
      }
      if (!it.expected.includes(ranked[0]))
        misses.push({ lang: it.lang, intent: it.intent, expected: it.expected.join(' | '), got: ranked.slice(0, 3).join(', ') });
    }
    times.sort((a, b) => a - b);
    log(`\n## Discover eval: ${intents.length} intents from ${intentsPath}`);
    log(
      `catalog ${catalogPath} (${doc.servers.length} servers, ${doc.servers.reduce((n, s) => n + s.tools.length, 0)} tools), ${trigramOnly ? 'trigram passes only (no query vector)' : `embedder ${embedder.model}`}`,
    );
    const order = ['en', 'es', 'pt'];
    table(
      Object.entries(stats)
        .sort(([a], [b]) => (a === 'all' ? 1 : b === 'all' ? -1 : order.indexOf(a) - order.indexOf(b)))
        .map(([lang, s]) => ({ lang, intents: s.n, 'recall@1': fmt(s.r1 / s.n, 3), 'recall@5': fmt(s.r5 / s.n, 3), 'MRR@5': fmt(s.rr / s.n, 3) })),
    );
    log(
      `native meta-tool hinted for ${native} of ${intents.length}; search_strategy ${Object.entries(strategies)
        .map(([k, v]) => `${k}:${v}`)
        .join(' ')}; in-process latency p50 ${fmt(times[Math.floor(times.length / 2)], 1)} ms`,
    );
    if (verbose) for (const m of misses) log(`miss [${m.lang}] ${m.intent} → expected ${m.expected}; got ${m.got || '[]'}`);
    return stats.all;
  } finally {
    await repo?.close();
    await db.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const catalogPath = arg('--catalog');
  const intentsPath = arg('--intents');
  await evalDiscover({
    catalogPath: catalogPath && resolve(catalogPath),
    intentsPath: intentsPath && resolve(intentsPath),
    verbose: process.argv.includes('--verbose'),
    trigramOnly: process.argv.includes('--trigram-only'),
  });
  process.exit(0);
}
