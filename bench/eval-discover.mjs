// `codespar_discover` quality against a plain BM25 baseline over the same
// texts, per language, with the channel ablations (lexical only, vector only,
// fused), on two sets:
//
// - the demo catalog (packages/catalog/data/demo-catalog.json) with
//   bench/data/discover-intents.jsonl (en, es, pt);
// - the MetaTool sample (../shared/eval/metatool: 199 tools, 1,990 English
//   queries) loaded as a catalog, one provider per tool with its name and
//   description unchanged, plus bench/data/metatool-intents-pt-es.jsonl
//   (Portuguese and Spanish requests written for the same tools).
//
//   node bench/eval-discover.mjs [--set demo|metatool] [--catalog <file> --intents <file>] [--lexical-only] [--weights 0.2,0.6] [--models hash,neural,hybrid] [--verbose]
//
// With --models (or `pnpm eval -- --models hash,neural,hybrid`), each local
// model runs both sets in turn and the one with the best mean top-1 over the
// sets' English, Spanish and Portuguese requests is named: the default model
// is chosen this way.
//
// Both sets also hold a parallel part (language tags `en=`, `es=`, `pt=`):
// English requests of the set and their Portuguese and Spanish translations,
// written by hand (bench/data/README.md), so the languages are compared on
// the same requests.
//
// A hit at k is any expected tool among the first k of the catalog ranking
// (`recommended` then `related`, whether or not a native meta-tool took the
// recommended slot). Each catalog is imported into a fresh database (cloned
// from the migrated template, dropped at the end) and embedded with the
// configured embedder; the search service's own discover code answers each
// request in process. Needs a build (`pnpm build`) and Postgres.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { ROOT, SHARED, fmt, table } from './lib/common.mjs';

const require = createRequire(import.meta.url);

function arg(name) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const METATOOL = join(SHARED, 'eval', 'metatool');

function readJsonl(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .map((x) => ({ ...x, expected: Array.isArray(x.expected) ? x.expected : [x.expected] }));
}

/** A provider id for a MetaTool tool id: a lowercase slug. */
function slug(id) {
  return (
    id
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 64) || 'tool'
  );
}

/** A catalog tool name for a MetaTool tool id (`PDF&URLTool` → `PDF_URLTool`). */
function toolName(id) {
  return id.replace(/[^A-Za-z0-9_.\-/]+/g, '_');
}

/** The MetaTool sample as a catalog (servers in the shared data set's shape) and its labelled requests. */
export function metatoolSet() {
  if (!existsSync(join(METATOOL, 'tools.json'))) return null;
  const tools = JSON.parse(readFileSync(join(METATOOL, 'tools.json'), 'utf8'));
  const servers = tools.map((t) => ({
    server_id: slug(t.id),
    server_name: t.name,
    country: '*',
    category: 'tools',
    auth_type: 'none',
    status: 'stable',
    description: t.description,
    tools: [{ name: toolName(t.id), description: t.description }],
  }));
  const callable = (id) => `${slug(id)}/${toolName(id)}`;
  const intents = JSON.parse(readFileSync(join(METATOOL, 'queries_sample.json'), 'utf8')).map((q) => ({
    intent: q.query,
    lang: 'en',
    expected: q.expected.map(callable),
  }));
  const extra = join(ROOT, 'bench/data/metatool-intents-pt-es.jsonl');
  if (existsSync(extra))
    for (const it of readJsonl(extra)) intents.push({ ...it, expected: it.expected.map(callable) });
  // The same 100 English queries and their Portuguese and Spanish translations, written by hand (see PARALLEL_NOTE).
  intents.push(
    ...parallelIntents(join(ROOT, 'bench/data/metatool-dev-translations.jsonl'), intents.slice(0, 1990), callable),
  );
  // The baseline reads what the sample's own BM25 figure read: name and description.
  const baselineText = new Map(tools.map((t) => [callable(t.id), `${t.name} ${t.description}`]));
  return { name: 'metatool', servers, intents, baselineText };
}

export function demoSet(catalogPath, intentsPath) {
  const own = !catalogPath && !intentsPath;
  catalogPath ??= join(ROOT, 'packages/catalog/data/demo-catalog.json');
  intentsPath ??= join(ROOT, 'bench/data/discover-intents.jsonl');
  if (!existsSync(catalogPath) || !existsSync(intentsPath)) return null;
  const intents = readJsonl(intentsPath);
  if (own)
    intents.push(...parallelIntents(join(ROOT, 'bench/data/discover-intents-translations.jsonl'), intents, (x) => x));
  return { name: catalogPath.endsWith('demo-catalog.json') ? 'demo' : catalogPath, catalogPath, intents };
}

/**
 * The parallel set of a catalog: English requests of the set (by their index
 * in `english`) and their Portuguese and Spanish translations, each under the
 * language tag `<lang>=`, so the three languages are compared on the same
 * requests. The translations were written by hand for this project (not by
 * any machine translator, and never by the one the catalog import uses);
 * `bench/data/README.md` says where each file comes from.
 */
function parallelIntents(path, english, callable) {
  if (!existsSync(path)) return [];
  const rows = readJsonl(path);
  const out = [];
  for (const i of [...new Set(rows.map((r) => r.source_index))]) {
    const en = english[i];
    if (en) out.push({ ...en, lang: 'en=' });
  }
  for (const r of rows) out.push({ ...r, lang: `${r.lang}=`, expected: r.expected.map(callable) });
  return out;
}

// ---------------------------------------------------------------- BM25 baseline

/** Accent-folded lowercase words, camelCase and snake_case split; no stemming, no stopwords. */
export function baselineTokens(text) {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Okapi BM25 (k1 1.2, b 0.75) over one text per document. */
export class Bm25 {
  constructor(docs, k1 = 1.2, b = 0.75) {
    this.k1 = k1;
    this.b = b;
    this.docs = docs.map(({ key, text, meta }) => {
      const tf = new Map();
      const toks = baselineTokens(text);
      for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      return { key, meta, tf, len: toks.length };
    });
    this.avgdl = this.docs.reduce((n, d) => n + d.len, 0) / Math.max(1, this.docs.length);
    this.df = new Map();
    for (const d of this.docs) for (const t of d.tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  search(query, keep = () => true) {
    const terms = [...new Set(baselineTokens(query))];
    const n = this.docs.length;
    const out = [];
    for (const d of this.docs) {
      if (!keep(d.meta)) continue;
      let s = 0;
      for (const t of terms) {
        const f = d.tf.get(t);
        if (!f) continue;
        const df = this.df.get(t);
        s +=
          Math.log(1 + (n - df + 0.5) / (df + 0.5)) *
          ((f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * d.len) / this.avgdl)));
      }
      if (s > 0) out.push({ key: d.key, s });
    }
    return out.sort((a, b) => b.s - a.s || (a.key < b.key ? -1 : 1)).map((x) => x.key);
  }
}

// ---------------------------------------------------------------- scoring

function tally(stats, lang, expected, ranked) {
  // The parallel part's English requests are already counted under `en`: `all` stays the set's own requests.
  for (const key of lang?.endsWith('=') ? [lang] : [lang ?? 'und', 'all']) {
    const s = (stats[key] ??= { n: 0, r1: 0, r5: 0, rr: 0 });
    s.n++;
    if (expected.includes(ranked[0])) s.r1++;
    const pos = ranked.slice(0, 5).findIndex((t) => expected.includes(t));
    if (pos >= 0) {
      s.r5++;
      s.rr += 1 / (pos + 1);
    }
  }
}

const LANG_ORDER = ['en', 'es', 'pt', 'en=', 'es=', 'pt=', 'all'];

/**
 * Imports a set's catalog, embeds it, and answers every request with each
 * configuration (BM25 baseline, lexical only, vector only, fused). Returns
 * `{ [config]: { [lang]: {n, r1, r5, rr} } }`.
 */
export async function evalSet(
  set,
  { configs = ['bm25', 'lexical', 'vector', 'fused'], verbose = false, log = console.log } = {},
) {
  const catalog = require(join(ROOT, 'packages/catalog/dist/index.js'));
  const dbkit = require(join(ROOT, 'packages/db/dist/index.js'));
  const { DiscoverRepository } = require(join(ROOT, 'apps/search/dist/discover/discover.repository.js'));
  const { DiscoverService } = require(join(ROOT, 'apps/search/dist/discover/discover.service.js'));
  const { requestContext } = require(join(ROOT, 'packages/service-kit/dist/index.js'));
  const { DiscoverConfig } = require(join(ROOT, 'apps/search/dist/discover/config.js'));
  require(join(ROOT, 'packages/lexicon/dist/index.js')).warmUp();

  let doc;
  if (set.servers) doc = catalog.parseCatalogValue(set.servers);
  else {
    let text = readFileSync(set.catalogPath, 'utf8');
    if (catalog.substituteSandboxUrl)
      text = catalog.substituteSandboxUrl(text, catalog.DEFAULT_SANDBOX_URL ?? 'http://127.0.0.1:4010');
    doc = catalog.parseCatalogValue(JSON.parse(text));
  }
  const tools = doc.servers.reduce((n, s) => n + s.tools.length, 0);

  const embedder = catalog.createEmbedder(process.env);
  const db = await dbkit.createTestDatabase();
  const results = {};
  const repos = [];
  try {
    const t0 = performance.now();
    await catalog.importCatalog(db.prisma, doc, { model: embedder.model, projectId: null });
    for await (const batch of catalog.staleBatches(db.prisma, embedder.model, 200)) {
      await catalog.embedBatch(db.prisma, embedder, { ids: batch.map((b) => b.id) });
    }
    const loadS = (performance.now() - t0) / 1000;
    // Each request is embedded once for every configuration: inference is the expensive part.
    const memo = new Map();
    const queryEmbedder = {
      model: embedder.model,
      dimensions: embedder.dimensions,
      englishOnly: embedder.englishOnly,
      embed: (texts) =>
        Promise.all(
          texts.map((t) =>
            memo.has(t)
              ? memo.get(t)
              : memo
                  .set(
                    t,
                    embedder.embed([t]).then(([v]) => v),
                  )
                  .get(t),
          ),
        ),
    };

    const baselineText =
      set.baselineText ??
      new Map(
        doc.servers.flatMap((s) =>
          s.tools.map((t) => [`${s.id}/${t.name}`, `${s.provider?.name ?? s.id} ${t.name} ${t.description}`]),
        ),
      );
    const meta = new Map(doc.servers.flatMap((s) => s.tools.map((t) => [`${s.id}/${t.name}`, s.provider ?? {}])));
    const bm25 = new Bm25([...baselineText].map(([key, text]) => ({ key, text, meta: meta.get(key) })));

    const misses = {};
    for (const cfg of configs) {
      const stats = (results[cfg] = {});
      misses[cfg] = [];
      let answer;
      if (cfg === 'bm25') {
        answer = async (it) =>
          bm25.search(it.intent, (s) => {
            if (it.category && s.category?.toLowerCase() !== it.category.toLowerCase()) return false;
            if (
              it.country &&
              it.country !== '*' &&
              !(s.country === '*' || s.country === it.country || (s.countries ?? []).includes(it.country))
            )
              return false;
            return true;
          });
      } else {
        // `fused:0.3` is the fused ranking with lexical weight 0.3 (a tuning run).
        const [base, weight] = cfg.split(':');
        const channels = base === 'fused' ? 'lexical,vector' : base;
        const config = DiscoverConfig.parse({
          ...process.env,
          ROTA_DISCOVER_CHANNELS: channels,
          ...(weight ? { ROTA_DISCOVER_WEIGHT_LEXICAL: weight } : {}),
        });
        const repo = DiscoverRepository.connect(db.url, config, 2);
        repos.push(repo);
        const service = new DiscoverService(repo, queryEmbedder, config);
        answer = async (it) => {
          // The tenant rides in the request context, as the transport delivers it.
          const res = await requestContext.run(
            { requestId: 'eval', tenant: { org_id: 'org_eval', project_id: 'proj_eval', environment: 'live' } },
            () =>
              service.discover({
                input: {
                  use_case: it.intent,
                  limit: 5,
                  ...(it.country ? { country: it.country } : {}),
                  ...(it.category ? { category: it.category } : {}),
                },
              }),
          );
          return [res.recommended, ...res.related].filter(Boolean).map((m) => m.tool);
        };
      }
      for (const it of set.intents) {
        const ranked = await answer(it);
        tally(stats, it.lang, it.expected, ranked);
        if (!it.expected.includes(ranked[0]))
          misses[cfg].push(
            `miss [${it.lang}] ${it.intent} → expected ${it.expected.join(' | ')}; got ${ranked.slice(0, 3).join(', ') || '[]'}`,
          );
      }
    }

    log(
      `\n## Discover eval: ${set.name} (${doc.servers.length} servers, ${tools} tools, ${set.intents.length} requests; embedder ${embedder.model}; import and embedding ${fmt(loadS, 1)} s)`,
    );
    const rows = [];
    const langs = [...new Set(Object.values(results).flatMap((s) => Object.keys(s)))].sort(
      (a, b) => LANG_ORDER.indexOf(a) - LANG_ORDER.indexOf(b),
    );
    for (const lang of langs) {
      for (const cfg of configs) {
        const s = results[cfg][lang];
        if (!s) continue;
        const base = results.bm25?.[lang];
        rows.push({
          lang,
          ranking:
            cfg === 'bm25'
              ? 'BM25 baseline'
              : cfg === 'fused'
                ? 'discover (fused)'
                : cfg.startsWith('fused:')
                  ? `fused, lexical weight ${cfg.slice(6)}`
                  : `discover, ${cfg} only`,
          requests: s.n,
          'top-1': fmt(s.r1 / s.n, 3),
          'hit@5': fmt(s.r5 / s.n, 3),
          'MRR@5': fmt(s.rr / s.n, 3),
          'Δ top-1 / hit@5 vs BM25':
            base && cfg !== 'bm25'
              ? `${signed((100 * (s.r1 - base.r1)) / s.n)} / ${signed((100 * (s.r5 - base.r5)) / s.n)} pts`
              : '',
        });
      }
    }
    table(rows);
    if (verbose) for (const m of misses[process.env.EVAL_MISSES ?? 'fused'] ?? []) log(m);
    return results;
  } finally {
    for (const r of repos) await r.close();
    await embedder.close?.();
    await db.drop();
  }
}

function signed(x) {
  return `${x >= 0 ? '+' : ''}${fmt(x, 1)}`;
}

/** Both sets, as `pnpm eval` runs them; with `models`, each local model in turn, then which of them ranks best. */
export async function evalDiscover({ verbose = false, log = console.log, only, models } = {}) {
  if (models?.length) return compareModels(models, { verbose, log, only });
  const out = {};
  for (const set of [demoSet(), metatoolSet()]) {
    if (!set || (only && set.name !== only)) continue;
    out[set.name] = await evalSet(set, { verbose, log });
  }
  return out;
}

/** The languages each set's own requests are written in: the cells a model is judged on. */
const JUDGED_LANGS = ['en', 'es', 'pt'];

/**
 * Runs both sets with each local model (`ROTA_LOCAL_EMBEDDER`), fused
 * ranking only, and names the best: the highest mean top-1 over every
 * (set, language) cell of the sets' own requests, each cell counting once so
 * the 1,990 English MetaTool queries do not outweigh the rest; mean hit@5
 * breaks a tie. This is how the default model is chosen.
 */
export async function compareModels(kinds, { verbose = false, log = console.log, only } = {}) {
  const saved = { ROTA_EMBEDDER: process.env.ROTA_EMBEDDER, ROTA_LOCAL_EMBEDDER: process.env.ROTA_LOCAL_EMBEDDER };
  const rows = [];
  try {
    for (const kind of kinds) {
      process.env.ROTA_EMBEDDER = 'local';
      process.env.ROTA_LOCAL_EMBEDDER = kind;
      const cells = [];
      const row = { model: kind };
      for (const set of [demoSet(), metatoolSet()]) {
        if (!set || (only && set.name !== only)) continue;
        const res = await evalSet(set, { verbose, log, configs: ['fused'] });
        for (const lang of [...JUDGED_LANGS, 'en=', 'es=', 'pt=']) {
          const c = res.fused[lang];
          if (!c) continue;
          row[`${set.name} ${lang}`] = `${fmt(c.r1 / c.n, 3)} / ${fmt(c.r5 / c.n, 3)}`;
          if (JUDGED_LANGS.includes(lang)) cells.push(c);
        }
      }
      row.top1 = cells.reduce((a, c) => a + c.r1 / c.n, 0) / cells.length;
      row.hit5 = cells.reduce((a, c) => a + c.r5 / c.n, 0) / cells.length;
      rows.push(row);
    }
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  const best = [...rows].sort((a, b) => b.top1 - a.top1 || b.hit5 - a.hit5)[0];
  log(`\n## Discover eval: local models compared (fused ranking, top-1 / hit@5; mean over each set's en, es and pt)`);
  table(rows.map(({ top1, hit5, ...r }) => ({ ...r, 'mean top-1': fmt(top1, 3), 'mean hit@5': fmt(hit5, 3) })));
  log(`best: ${best.model}`);
  return { rows, best: best.model };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const catalogPath = arg('--catalog');
  const intentsPath = arg('--intents');
  const verbose = process.argv.includes('--verbose');
  const weights = arg('--weights');
  const configs =
    process.argv.includes('--lexical-only') || process.argv.includes('--trigram-only')
      ? ['bm25', 'lexical']
      : weights
        ? ['bm25', 'lexical', 'vector', 'fused', ...weights.split(',').map((w) => `fused:${w}`)]
        : undefined;
  const models = arg('--models');
  if (models) {
    await compareModels(models.split(','), { verbose, only: arg('--set') });
  } else if (catalogPath || intentsPath) {
    const set = demoSet(catalogPath && resolve(catalogPath), intentsPath && resolve(intentsPath));
    if (set) await evalSet(set, { verbose, configs });
  } else {
    const only = arg('--set');
    for (const set of [demoSet(), metatoolSet()]) {
      if (!set || (only && set.name !== only)) continue;
      await evalSet(set, { verbose, configs });
    }
  }
  process.exit(0);
}
