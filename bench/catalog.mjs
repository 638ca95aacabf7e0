// Catalog benchmark:
//  (a) the shared catalog (2,359 tools) embedded by the real worker through a
//      fake OpenAI server: API calls (batching ratio) and wall time; then a
//      second sweep with nothing changed, which must make no call;
//  (b) the local embedder's texts per second on one core;
//  (c) 100,000 tools (the shared catalog replicated with suffixed ids, each
//      copy's provider named after another provider and its country, so no two
//      texts are alike) imported and embedded end to end with the local
//      embedder, HNSW index included, with the time split printed;
//  (d) the default local embedder (no OpenAI key) run by real worker
//      processes: the shared catalog with one replica, then a larger copy
//      (BENCH_CATALOG_LOCAL_TOOLS, 10,000) with one and with two replicas,
//      each replica's share from the jobs it ran.
// Uses its own database (created and dropped here) and Redis prefix. Needs
// `pnpm build`. Reads ../shared/data/provider_catalog.json; skips without it.
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, SHARED, benchPrefix, fmt, sleep, startProcess, stop, table } from './lib/common.mjs';
import { adoptDiscoverBenchDatabase, replicate as replicateVaried } from './lib/discover-data.mjs';

const require = createRequire(import.meta.url);
const catalogLib = require(join(ROOT, 'packages/catalog/dist/index.js'));
const catalogRepo = require(join(ROOT, 'packages/catalog/dist/repository.js'));
const db = require(join(ROOT, 'packages/db/dist/index.js'));
const { startFakeOpenAI } = require(join(ROOT, 'packages/testing/dist/fake-openai.js'));

const DATA = join(SHARED, 'data/provider_catalog.json');
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const BASE_URL = process.env.DATABASE_URL || db.DEFAULT_DATABASE_URL;
const TARGET_TOOLS = Number(process.env.BENCH_CATALOG_TOOLS ?? 100_000);

async function freshDatabase() {
  const name = `rota_bench_catalog_${randomBytes(4).toString('hex')}`;
  await db.withAdminClient(BASE_URL, (c) => c.query(`CREATE DATABASE ${db.quoteIdent(name)}`));
  const url = db.withDatabase(BASE_URL, name);
  await db.migrate(url);
  return {
    url,
    drop: () =>
      db.withAdminClient(BASE_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${db.quoteIdent(name)} WITH (FORCE)`)),
  };
}

const now = () => performance.now();

async function sharedCatalog() {
  return JSON.parse(readFileSync(DATA, 'utf8'));
}

// ---------------------------------------------------------------- (a)
async function throughFakeOpenAI(servers) {
  const database = await freshDatabase();
  const prisma = db.createPrisma(database.url, { poolMax: 4 });
  const fake = await startFakeOpenAI();
  const prefix = benchPrefix('catalog');
  const queue = catalogLib.CatalogQueue.connect(REDIS_URL, prefix);
  let worker;
  try {
    const doc = catalogLib.parseCatalogValue(servers);
    const tools = doc.servers.reduce((n, s) => n + s.tools.length, 0);
    const model = catalogLib.OPENAI_EMBEDDING_MODEL;
    const t0 = now();
    await catalogLib.importCatalog(prisma, doc, { model });
    const importMs = now() - t0;
    const repo = new catalogRepo.CatalogRepository(prisma);
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL,
      ROTA_REDIS_PREFIX: prefix,
      OPENAI_API_KEY: 'sk-bench',
      OPENAI_BASE_URL: fake.baseURL,
      LOG_LEVEL: 'warn',
    };
    const t1 = now();
    // The worker sweeps at boot: nothing else is needed to start the embedding.
    worker = await startProcess(join(ROOT, 'apps/worker/dist/main.js'), env, async () => true);
    let firstCallMs;
    for (;;) {
      if (firstCallMs === undefined && fake.calls.length > 0) firstCallMs = now() - t1;
      const c = await repo.counts(model);
      if (c.embedded === c.tools) break;
      await sleep(50);
    }
    const embedMs = now() - t1;
    // A load this large (every row stale) makes the worker rebuild the HNSW index after the batches.
    while (!(await repo.vectorIndexExists())) await sleep(50);
    const indexMs = now() - t1;
    const calls = fake.calls.length;
    const inputs = fake.calls.reduce((n, c) => n + c.inputs.length, 0);

    // Nothing changed: a sweep must find nothing and call nothing.
    await queue.requestSweep();
    for (;;) {
      const job = await queue.queue.getJob(catalogLib.SWEEP_JOB_ID);
      const counts = await queue.counts();
      if (!job && counts.waiting + counts.active + counts.delayed === 0) break;
      await sleep(50);
    }
    const secondCalls = fake.calls.length - calls;

    console.log(
      `\n## Catalog (a): the shared catalog (${tools} tools) embedded by the worker through a fake OpenAI server`,
    );
    table([
      { step: 'import (one transaction)', tools, 'wall ms': fmt(importMs, 0), 'API calls': '-', 'inputs/call': '-' },
      {
        step: 'worker start to its first embeddings call',
        tools: '-',
        'wall ms': fmt(firstCallMs ?? 0, 0),
        'API calls': '-',
        'inputs/call': '-',
      },
      {
        step: 'worker start to coverage 1.0',
        tools: inputs,
        'wall ms': fmt(embedMs, 0),
        'API calls': calls,
        'inputs/call': fmt(inputs / calls, 1),
      },
      {
        step: 'worker start to HNSW index rebuilt',
        tools: '-',
        'wall ms': fmt(indexMs, 0),
        'API calls': '-',
        'inputs/call': '-',
      },
      { step: 'second sweep, nothing changed', tools: 0, 'wall ms': '-', 'API calls': secondCalls, 'inputs/call': '-' },
    ]);
    if (secondCalls !== 0) throw new Error(`the second sweep made ${secondCalls} calls`);
    if (inputs !== tools) throw new Error(`${inputs} inputs sent for ${tools} tools`);
  } finally {
    await stop(worker);
    await queue.queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await fake.close();
    await prisma.$disconnect();
    await database.drop();
  }
}

// ---------------------------------------------------------------- (b)
function localEmbedderSpeed(servers) {
  const e = new catalogLib.LocalEmbedder();
  const short = [
    'quero cobrar um cliente via pix',
    'send a whatsapp message to the buyer',
    'emitir nota fiscal de serviço',
    'necesito generar una guía de envío',
    'consultar saldo da conta',
    'create a boleto due next friday',
    'rastrear minha encomenda',
    'validar CPF do cliente',
  ];
  const toolTexts = servers.flatMap((s) =>
    s.tools.map((t) =>
      catalogLib.toolEmbeddingText({ providerName: s.server_name, toolName: t.name, description: t.description }),
    ),
  );
  const rate = (texts, n) => {
    for (let i = 0; i < 500; i++) e.embedOne(texts[i % texts.length]);
    const t0 = now();
    for (let i = 0; i < n; i++) e.embedOne(`${texts[i % texts.length]} ${i}`);
    return (n / (now() - t0)) * 1000;
  };
  const shortRate = rate(short, 50_000);
  const toolRate = rate(toolTexts, 10_000);
  const avg = (xs) => xs.reduce((n, t) => n + t.length, 0) / xs.length;
  console.log(`\n## Catalog (b): local embedder (${e.model}), one core`);
  table([
    { texts: 'short requests', 'avg chars': fmt(avg(short), 0), 'texts/s': fmt(shortRate, 0) },
    { texts: 'catalog tool texts', 'avg chars': fmt(avg(toolTexts), 0), 'texts/s': fmt(toolRate, 0) },
  ]);
}

// ---------------------------------------------------------------- (c)
/** The shared catalog replicated to `target` tools; copy k names each provider after another one and its country. */
function replicate(servers, target) {
  const out = [];
  let n = 0;
  for (let k = 0; n < target; k++) {
    for (let i = 0; i < servers.length && n < target; i++) {
      const s = servers[i];
      const other = servers[(i + 1 + k * 7) % servers.length];
      const tools = s.tools.slice(0, target - n);
      n += tools.length;
      out.push({
        ...s,
        server_id: `${s.server_id}-r${k}`,
        // The copy's own id keeps "A with B" and "B with A" apart.
        server_name:
          k === 0
            ? s.server_name
            : `${s.server_name} ${s.server_id}-r${k} with ${other.server_name} (${other.country === '*' ? 'global' : other.country})`,
        tools,
      });
    }
  }
  return out;
}

async function atScale(servers) {
  const database = await freshDatabase();
  const prisma = db.createPrisma(database.url, { poolMax: 4 });
  const pool = new catalogLib.LocalEmbedderPool();
  try {
    const t0 = now();
    const doc = catalogLib.parseCatalogValue(replicate(servers, TARGET_TOOLS));
    const parseMs = now() - t0;
    const tools = doc.servers.reduce((n, s) => n + s.tools.length, 0);
    const model = catalogLib.LOCAL_EMBEDDING_MODEL;
    // One transaction: the rows are written with their vectors (no UPDATE
    // pass), and the HNSW index is dropped first and built once at the end.
    const res = await catalogLib.importCatalog(prisma, doc, { model, embedder: pool, rebuildVectorIndex: true });
    const totalMs = now() - t0;
    const counts = await new catalogRepo.CatalogRepository(prisma).counts(model);
    const [{ distinct }] = await prisma.$queryRawUnsafe(
      'SELECT count(DISTINCT embedding::text)::int AS distinct FROM mcp_tools',
    );
    const [{ hnsw }] = await prisma.$queryRawUnsafe(
      "SELECT count(*)::int AS hnsw FROM pg_indexes WHERE indexname = 'mcp_tools_embedding_hnsw_idx'",
    );
    const t = res.timings;
    console.log(
      `\n## Catalog (c): ${tools} tools (${res.providers.created} providers) imported and embedded with the local embedder (${pool.threads} threads), HNSW index built after the load`,
    );
    table([
      { step: 'parse and validate the document', s: fmt(parseMs / 1000, 1) },
      { step: 'read existing rows, compare, hash', s: fmt((t.total - t.embedding - t.writing - t.index) / 1000, 1) },
      { step: 'embedding (local embedder)', s: fmt(t.embedding / 1000, 1) },
      { step: 'writing providers and tools with vectors (trigram indexes live)', s: fmt(t.writing / 1000, 1) },
      {
        step: `HNSW index build (${catalogRepo.VECTOR_INDEX_DEFINITION.replace(/^.*USING /, '')})`,
        s: fmt(t.index / 1000, 1),
      },
      { step: 'total, end to end', s: fmt(totalMs / 1000, 1) },
    ]);
    console.log(
      `embedded ${counts.embedded}/${counts.tools}; distinct vectors ${distinct}/${tools}; HNSW index present: ${hnsw === 1}`,
    );
  } finally {
    await pool.close();
    await prisma.$disconnect();
    await database.drop();
  }
}

// ---------------------------------------------------------------- (d)
/**
 * The default local embedder (no OpenAI key) run by real worker processes:
 * the catalog imported without vectors, N workers started, the time from
 * their start to coverage 1.0. Completed embedding jobs name the replica
 * that ran them (`processedBy`), which gives each replica's share and shows
 * no row was embedded twice.
 */
async function localByWorkers(servers, replicas, opts = {}) {
  const database = await freshDatabase();
  let kept = false;
  const prisma = db.createPrisma(database.url, { poolMax: 4 });
  const prefix = benchPrefix('catalog-local');
  const queue = catalogLib.CatalogQueue.connect(REDIS_URL, prefix);
  const workers = [];
  try {
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL,
      ROTA_REDIS_PREFIX: prefix,
      OPENAI_API_KEY: '',
      LOG_LEVEL: 'warn',
    };
    const model = catalogLib.currentEmbeddingModel(env);
    const doc = catalogLib.parseCatalogValue(servers);
    const tools = doc.servers.reduce((n, s) => n + s.tools.length, 0);
    await catalogLib.importCatalog(prisma, doc, { model });
    const repo = new catalogRepo.CatalogRepository(prisma);
    const t0 = now();
    for (let i = 0; i < replicas; i++)
      workers.push(await startProcess(join(ROOT, 'apps/worker/dist/main.js'), env, async () => true));
    let last = 0;
    let done = tools;
    for (;;) {
      const c = await repo.counts(model);
      if (c.embedded === c.tools) break;
      if (opts.seconds && now() - t0 >= opts.seconds * 1000) {
        // Time is up: the workers finish the batches they hold and stop; the
        // rows embedded by then are the run's.
        for (const w of workers.splice(0)) await stop(w);
        done = (await repo.counts(model)).embedded;
        break;
      }
      if (now() - last > 30_000) {
        last = now();
        console.log(`  … ${c.embedded}/${c.tools} embedded after ${fmt((now() - t0) / 1000, 0)} s`);
      }
      await sleep(200);
    }
    const wallMs = now() - t0;
    if (done < tools) {
      console.log(
        `(stopped after BENCH_CATALOG_LOCAL_SECONDS: ${done} of ${tools} rows embedded; the time for all of them below is projected at that rate)`,
      );
    }
    const jobs = await queue.queue.getJobs(['completed'], 0, -1);
    const byReplica = new Map();
    let embedded = 0;
    for (const j of jobs) {
      if (j.name !== 'catalog.embed') continue;
      const n = j.returnvalue?.embedded ?? 0;
      embedded += n;
      const r = byReplica.get(j.processedBy ?? '?') ?? { rows: 0, ms: 0 };
      r.rows += n;
      r.ms += (j.finishedOn ?? 0) - (j.processedOn ?? 0);
      byReplica.set(j.processedBy ?? '?', r);
    }
    console.log(
      `\n## Catalog (d): ${tools} tools embedded by ${replicas} worker replica(s) with the default local embedder (${model})`,
    );
    table([
      { replica: 'all', rows: done, 'wall s': fmt(wallMs / 1000, 1), 'rows/s': fmt(done / (wallMs / 1000), 1) },
      ...[...byReplica].map(([, r], i) => ({
        replica: `#${i + 1}`,
        rows: r.rows,
        'wall s': '-',
        'rows/s': fmt(r.rows / (wallMs / 1000), 1),
      })),
    ]);
    console.log(
      `rows written by embedding jobs: ${embedded} for ${done} rows embedded (${embedded === done ? 'none twice' : 'MISMATCH'}); ${tools} tools at this rate: ${fmt(tools / (done / (wallMs / 1000)), 0)} s; 100,000 tools: ${fmt(100_000 / (done / (wallMs / 1000)), 0)} s`,
    );
    if (opts.warm) {
      // A running deployment has loaded its encoder long before a catalog
      // arrives: the same rows again, their vectors dropped, swept at once by
      // the warm workers.
      await prisma.$executeRawUnsafe(`UPDATE mcp_tools SET embedding = NULL`);
      const t1 = now();
      await queue.requestSweep();
      for (;;) {
        const c = await repo.counts(model);
        if (c.embedded === c.tools) break;
        await sleep(200);
      }
      const warmMs = now() - t1;
      console.log(
        `the same ${tools} tools again with the workers' encoder already loaded: ${fmt(warmMs / 1000, 1)} s (${fmt(tools / (warmMs / 1000), 1)} rows/s); encoder load and first batches: ${fmt((wallMs - warmMs) / 1000, 1)} s`,
      );
    }
    if (opts.keepFor) {
      for (const w of workers.splice(0)) await stop(w);
      await prisma.$disconnect();
      console.log(
        `kept as the discover benchmark's database: ${await adoptDiscoverBenchDatabase(database.url, opts.keepFor)}`,
      );
      kept = true;
    }
    return { tools, wallMs, replicas: byReplica.size, embedded };
  } finally {
    for (const w of workers) await stop(w);
    await queue.queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    if (!kept) {
      await prisma.$disconnect();
      await database.drop();
    }
  }
}

export async function catalog() {
  if (!existsSync(DATA)) {
    console.log(`\n## Catalog: skipped (${DATA} is absent)`);
    return;
  }
  const servers = await sharedCatalog();
  const only = process.env.BENCH_CATALOG_PARTS ?? 'abcd';
  if (only.includes('a')) await throughFakeOpenAI(servers);
  if (only.includes('b')) localEmbedderSpeed(servers);
  if (only.includes('c')) await atScale(servers);
  if (only.includes('d')) {
    // The shared catalog as it is (BENCH_CATALOG_SHARED=0 skips it), then a larger copy with one and with two replicas.
    if (process.env.BENCH_CATALOG_SHARED !== '0') await localByWorkers(servers, 1, { warm: true });
    // BENCH_CATALOG_LOCAL_TOOLS=0 stops after the shared catalog;
    // BENCH_CATALOG_LOCAL_REPLICAS lists the replica counts to run (in order).
    // The larger copy is the discover benchmark's (texts reworded per copy).
    // BENCH_CATALOG_KEEP_DISCOVER=1 keeps the first run's database as the
    // discover benchmark's, which saves building it again at 100,000 tools.
    const size = Number(process.env.BENCH_CATALOG_LOCAL_TOOLS ?? 10_000);
    const counts = (process.env.BENCH_CATALOG_LOCAL_REPLICAS ?? '1,2').split(',').map(Number);
    if (size > 0) {
      for (const [i, n] of counts.entries()) {
        const keepFor = i === 0 && process.env.BENCH_CATALOG_KEEP_DISCOVER === '1' ? size : 0;
        // BENCH_CATALOG_LOCAL_SECONDS stops a run (other than a kept one) after that long and projects the rest.
        const seconds = keepFor ? 0 : Number(process.env.BENCH_CATALOG_LOCAL_SECONDS ?? 0);
        await localByWorkers(replicateVaried(servers, size), n, { keepFor, seconds });
      }
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await catalog();
  process.exit(0);
}
