import { createHash, randomBytes } from 'node:crypto';
import { quoteIdent, withAdminClient, withDatabase } from './admin';
import { createPrisma, createSqlPool, type PrismaClient, type SqlPool } from './client';
import { listMigrations, migrate, migrationsDir } from './migrate';

/**
 * Per-test databases for integration tests.
 *
 * A template database, named after a hash of every migration, is migrated
 * once per machine and then cloned with `CREATE DATABASE ... TEMPLATE`, which
 * takes well under a second. Editing a migration changes the hash, so a stale
 * template is never reused.
 */

export interface TestDatabase {
  url: string;
  prisma: PrismaClient;
  /** A plain `pg` pool on the same database, for repositories that run named statements. */
  sql: SqlPool;
  /** Disconnects the client and drops the database, even if others are still connected. */
  drop(): Promise<void>;
}

const BASE_URL_DEFAULT = 'postgresql://postgres@127.0.0.1:5432/postgres';
const TEMPLATE_LOCK = 'rota:test-template';

function baseUrl(): string {
  return process.env.DATABASE_URL || BASE_URL_DEFAULT;
}

/** `rota_tpl_<first 12 hex of sha256 over every migration's name and checksum>`. */
export function templateDatabaseName(dir: string = migrationsDir()): string {
  const hash = createHash('sha256');
  for (const m of listMigrations(dir)) hash.update(`${m.name}\0${m.checksum}\n`);
  return `rota_tpl_${hash.digest('hex').slice(0, 12)}`;
}

/**
 * Makes sure the migrated template exists. Parallel Jest workers serialise on
 * an advisory lock; the template is built under a temporary name and renamed
 * only when complete, so a crash mid-build never leaves a half-migrated
 * template behind.
 */
export async function ensureTemplateDatabase(url: string = baseUrl()): Promise<string> {
  const template = templateDatabaseName();
  await withAdminClient(url, async (admin) => {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [TEMPLATE_LOCK]);
    try {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (rowCount) return;
      const building = `${template}_building`;
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(building)} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${quoteIdent(building)}`);
      await migrate(withDatabase(url, building));
      await admin.query(`ALTER DATABASE ${quoteIdent(building)} RENAME TO ${quoteIdent(template)}`);
      // Nobody may connect to it: a connected session would make cloning fail.
      await admin.query(`ALTER DATABASE ${quoteIdent(template)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    } finally {
      await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [TEMPLATE_LOCK]);
    }
  });
  return template;
}

/** A fresh, fully migrated, empty database with its own Prisma client. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const base = baseUrl();
  const template = await ensureTemplateDatabase(base);
  const name = `rota_test_${randomBytes(6).toString('hex')}`;
  await withAdminClient(base, (admin) =>
    admin.query(`CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(template)}`),
  );
  const url = withDatabase(base, name);
  const prisma = createPrisma(url, { poolMax: 4 });
  const sql = createSqlPool(url, { poolMax: 4 });
  let dropped = false;
  return {
    url,
    prisma,
    sql,
    async drop() {
      if (dropped) return;
      dropped = true;
      await prisma.$disconnect();
      await sql.end();
      await withAdminClient(base, (admin) => admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
    },
  };
}
