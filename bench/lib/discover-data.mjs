// A large catalog for the discover benchmark: the shared provider catalog
// (../shared/data/provider_catalog.json) replicated with varied texts until it
// holds the requested number of tools, embedded with the local embedder, in
// its own database through the catalog's import (rows written with their
// vectors, HNSW index built once at the end). The database is kept between
// runs and rebuilt only when the recipe changes (its fingerprint is stored as
// the database comment). bench/catalog.mjs replicates the same data to time
// the import; this copy also rewords the texts so that copies differ for the
// trigram pass as well as for the vectors.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT, SHARED } from './common.mjs';

const require = createRequire(import.meta.url);
const catalog = () => require(join(ROOT, 'packages/catalog/dist/index.js'));
const db = () => require(join(ROOT, 'packages/db/dist/index.js'));

export const SHARED_CATALOG = join(SHARED, 'data', 'provider_catalog.json');
const RECIPE_VERSION = 4;

/** Small deterministic generator, so every machine builds the same rows. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}
const pick = (r, xs) => xs[Math.floor(r() * xs.length)];

// Rewordings that keep a description's meaning, so copies differ in text
// (for trigrams and vectors) without turning into other tools.
const SWAPS = [
  [/\bCreate\b/g, ['Create', 'Make', 'Register', 'Open', 'Set up']],
  [/\bcreate\b/g, ['create', 'make', 'register', 'open']],
  [/\bList\b/g, ['List', 'Show', 'Enumerate', 'Fetch']],
  [/\bGet\b/g, ['Get', 'Retrieve', 'Read', 'Look up']],
  [/\bRetrieve\b/g, ['Retrieve', 'Get', 'Fetch']],
  [/\bUpdate\b/g, ['Update', 'Change', 'Modify', 'Edit']],
  [/\bDelete\b/g, ['Delete', 'Remove']],
  [/\bCancel\b/g, ['Cancel', 'Void', 'Abort']],
  [/\bSend\b/g, ['Send', 'Dispatch', 'Deliver']],
  [/\bcustomer\b/g, ['customer', 'client', 'buyer']],
  [/\baccount\b/g, ['account', 'workspace account']],
];
const TAILS = [
  '',
  ' Paginated.',
  ' Requires an authenticated merchant.',
  ' Available in the v2 API.',
  ' Works in sandbox and production.',
  ' Idempotent when a key is sent.',
  ' Returns JSON.',
  ' Rate limited per account.',
  ' Used by marketplace sellers.',
  ' Intended for back-office automation.',
];
const REGIONS = [
  'North',
  'South',
  'East',
  'West',
  'Central',
  'Coastal',
  'Metro',
  'Prime',
  'Lite',
  'Pro',
  'Plus',
  'Express',
];

function vary(text, r) {
  let out = text;
  for (const [re, options] of SWAPS) if (r() < 0.6) out = out.replace(re, () => pick(r, options));
  return out + pick(r, TAILS);
}

/**
 * The replicated catalog, in the shared data set's own shape (an array of
 * servers with their tools). Copy 0 is the shared catalog as it is; copy k
 * renames every server `<id>-r<k>` and rewords its texts.
 */
export function replicate(servers, targetTools) {
  const out = [];
  let n = 0;
  for (let copy = 0; n < targetTools; copy++) {
    const r = rng(0x5eed + copy * 7919);
    for (const s of servers) {
      if (n >= targetTools) break;
      const tools = s.tools
        .slice(0, targetTools - n)
        .map((t) => ({ name: t.name, description: copy === 0 ? t.description : vary(t.description, r) }));
      n += tools.length;
      out.push({
        ...s,
        server_id: copy === 0 ? s.server_id : `${s.server_id}-r${copy}`,
        server_name: copy === 0 ? s.server_name : `${s.server_name} ${pick(r, REGIONS)} ${copy}`,
        description: copy === 0 ? s.description : vary(s.description, r),
        tools,
      });
    }
  }
  return out;
}

/** The local model the benchmark embeds with: `ROTA_LOCAL_EMBEDDER` as the services read it (the hybrid default when unset). */
export function benchModelKind() {
  return catalog().localModelKind(process.env);
}

function fingerprint(targetTools, vectors) {
  const st = statSync(SHARED_CATALOG);
  const model = vectors ? catalog().LOCAL_MODELS[benchModelKind()] : null;
  return createHash('sha256')
    .update(
      JSON.stringify({ RECIPE_VERSION, targetTools, size: st.size, model, migrations: db().templateDatabaseName() }),
    )
    .digest('hex')
    .slice(0, 16);
}

/** The name and fingerprint of the benchmark database for `targetTools` tools with vectors (or without). */
export function discoverBenchDatabaseName(targetTools = 100_000, vectors = true) {
  const kind = benchModelKind();
  return {
    name: `rota_bench_discover_${vectors ? (kind === 'hash' ? '' : `${kind}_`) : 'text_'}${Math.round(targetTools / 1000)}k`,
    fingerprint: fingerprint(targetTools, vectors),
  };
}

/**
 * Keeps a database that already holds `replicate(servers, targetTools)` with
 * every row embedded by the benchmark's model (the catalog benchmark's worker
 * run builds one) as the discover benchmark's database: analysed, renamed and
 * stamped with the recipe's fingerprint, so the discover benchmark does not
 * build it again.
 */
export async function adoptDiscoverBenchDatabase(url, targetTools) {
  const { withAdminClient, withDatabase, quoteIdent, DEFAULT_DATABASE_URL } = db();
  const base = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const from = new URL(url).pathname.slice(1);
  const { name, fingerprint: fp } = discoverBenchDatabaseName(targetTools, true);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // The workers drop the HNSW index for a bulk sweep and a reindex job
    // builds it once they are done; a run stopped at full coverage may not
    // have it yet.
    const { VECTOR_INDEX, VECTOR_INDEX_DEFINITION } = require(join(ROOT, 'packages/catalog/dist/repository.js'));
    await c.query("SET maintenance_work_mem = '1GB'");
    await c.query(`CREATE INDEX IF NOT EXISTS ${VECTOR_INDEX} ${VECTOR_INDEX_DEFINITION}`);
  } finally {
    await c.end();
  }
  await withAdminClient(base, async (a) => {
    await a.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await a.query(`ALTER DATABASE ${quoteIdent(from)} RENAME TO ${quoteIdent(name)}`);
  });
  await analyseAndStamp(withDatabase(base, name), name, fp);
  return name;
}

/** Analyses a finished benchmark database and stamps it with its recipe's fingerprint (the database comment). */
async function analyseAndStamp(url, name, fp) {
  const { withAdminClient, quoteIdent, DEFAULT_DATABASE_URL } = db();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('VACUUM ANALYZE providers');
    await c.query('VACUUM ANALYZE mcp_tools');
  } finally {
    await c.end();
  }
  await withAdminClient(process.env.DATABASE_URL || DEFAULT_DATABASE_URL, (a) =>
    a.query(`COMMENT ON DATABASE ${quoteIdent(name)} IS '${fp}'`),
  );
}

/**
 * The URL of a database holding the replicated catalog, built if missing or
 * stale. Returns null when the shared catalog is not beside the checkout.
 * Without `vectors`, the same rows are imported unembedded into a database of
 * their own (`rota_bench_discover_text_<n>k`), which is all the lexical
 * channel reads and takes a minute instead of the embedder's time.
 */
export async function discoverBenchDatabase({ targetTools = 100_000, vectors = true, log = console.log } = {}) {
  if (!existsSync(SHARED_CATALOG)) return null;
  const { withAdminClient, withDatabase, quoteIdent, migrate, DEFAULT_DATABASE_URL } = db();
  const base = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  // One database per model (the hashing model's keeps its earlier name), so switching models rebuilds nothing already built.
  const kind = benchModelKind();
  const { name, fingerprint: fp } = discoverBenchDatabaseName(targetTools, vectors);
  const url = withDatabase(base, name);
  const current = await withAdminClient(base, async (a) => {
    const { rows } = await a.query('SELECT shobj_description(oid, $2) AS c FROM pg_database WHERE datname = $1', [
      name,
      'pg_database',
    ]);
    return rows[0] ? (rows[0].c ?? '') : null;
  });
  if (current === fp) return url;

  log(`building ${name}: ${targetTools} tools from the shared catalog (once; kept for later runs)`);
  const t0 = Date.now();
  await withAdminClient(base, async (a) => {
    await a.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await a.query(`CREATE DATABASE ${quoteIdent(name)}`);
  });
  await migrate(url);
  // The catalog's own import: rows written with their vectors, the HNSW index
  // dropped first and built once at the end.
  const servers = JSON.parse(readFileSync(SHARED_CATALOG, 'utf8'));
  const doc = catalog().parseCatalogValue(replicate(servers, targetTools));
  const { LocalEmbedderPool, LOCAL_MODELS, importCatalog } = catalog();
  const prisma = db().createPrisma(url, { poolMax: 4 });
  const pool = vectors ? new LocalEmbedderPool({ kind }) : null;
  try {
    const imported = await importCatalog(prisma, doc, {
      model: LOCAL_MODELS[kind],
      embedder: pool ?? undefined,
      rebuildVectorIndex: vectors,
    });
    log(
      `  import with ${LOCAL_MODELS[kind]}: ${(imported.timings.total / 1000).toFixed(1)} s (${JSON.stringify(imported.timings)})`,
    );
  } finally {
    await pool?.close();
    await prisma.$disconnect();
  }
  await analyseAndStamp(url, name, fp);
  log(`  built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return url;
}
