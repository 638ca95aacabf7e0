import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { Umzug, type UmzugStorage } from 'umzug';

/**
 * Applies the SQL migrations under `prisma/migrations` without Prisma's native
 * schema engine (which cannot be downloaded on offline machines).
 *
 * Bookkeeping goes into Prisma's own `_prisma_migrations` table with the same
 * columns and checksums, so `prisma migrate status` and `prisma migrate deploy`
 * agree with this runner on machines that do have the engine.
 */

/**
 * The advisory lock key Prisma's migrate commands take. Using the same one
 * means this runner and `prisma migrate deploy` also exclude each other.
 */
const MIGRATION_LOCK_KEY = 72707369;

/** A migration folder on disk: `<timestamp>_<name>/migration.sql`. */
export interface MigrationFile {
  name: string;
  path: string;
  sql: string;
  checksum: string;
}

export interface MigrateOptions {
  log?: (message: string) => void;
  /** Folder holding the migrations; defaults to {@link migrationsDir}(). */
  dir?: string;
}

/**
 * Where migrations live: `ROTA_MIGRATIONS_DIR`, or `prisma/migrations` at the
 * repository root. The relative path is the same from `src/` and `dist/`.
 */
export function migrationsDir(): string {
  return process.env.ROTA_MIGRATIONS_DIR ?? path.resolve(__dirname, '../../../prisma/migrations');
}

/** sha256 hex of a migration file's bytes, as Prisma computes it. */
export function migrationChecksum(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Migration folders in apply order (their names start with a timestamp). */
export function listMigrations(dir: string = migrationsDir()): MigrationFile[] {
  if (!existsSync(dir)) throw new Error(`Migrations folder not found: ${dir}`);
  return readdirSync(dir)
    .filter(
      (entry) => statSync(path.join(dir, entry)).isDirectory() && existsSync(path.join(dir, entry, 'migration.sql')),
    )
    .sort()
    .map((name) => {
      const file = path.join(dir, name, 'migration.sql');
      const buffer = readFileSync(file);
      return { name, path: file, sql: buffer.toString('utf8'), checksum: migrationChecksum(buffer) };
    });
}

const CREATE_PRISMA_MIGRATIONS = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"            VARCHAR(64) NOT NULL,
    "finished_at"         TIMESTAMPTZ,
    "migration_name"      VARCHAR(255) NOT NULL,
    "logs"                TEXT,
    "rolled_back_at"      TIMESTAMPTZ,
    "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Reads which migrations are applied. Recording happens inside each
 * migration's own transaction (see `up` below), so `logMigration` has nothing
 * left to do: a migration and its row commit or roll back together.
 */
function prismaStorage(client: Client): UmzugStorage<Client> {
  return {
    async executed() {
      const { rows } = await client.query<{ migration_name: string }>(
        `SELECT migration_name FROM "_prisma_migrations"
          WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL
          ORDER BY started_at`,
      );
      return rows.map((r) => r.migration_name);
    },
    async logMigration() {},
    async unlogMigration({ name }) {
      await client.query(
        `UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = $1 AND rolled_back_at IS NULL`,
        [name],
      );
    },
  };
}

async function applyOne(client: Client, migration: MigrationFile): Promise<void> {
  await client.query('BEGIN');
  try {
    const id = randomUUID();
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), 0)`,
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1`,
      [id],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`Migration ${migration.name} failed: ${reason}`, { cause: err });
  }
}

/**
 * Brings the database at `databaseUrl` up to date and returns the names of
 * the migrations it applied (empty when there was nothing to do).
 *
 * Runs under a session advisory lock, so any number of concurrent callers
 * (parallel test workers, several replicas booting) apply each migration once.
 */
export async function migrate(databaseUrl: string, opts: MigrateOptions = {}): Promise<string[]> {
  const log = opts.log ?? (() => undefined);
  const migrations = listMigrations(opts.dir ?? migrationsDir());
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Keep NOTICEs such as "extension already exists" out of the output.
    await client.query(`SET client_min_messages = warning`);
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(CREATE_PRISMA_MIGRATIONS);
      await warnOnDrift(client, migrations, log);

      const umzug = new Umzug<Client>({
        migrations: migrations.map((m) => ({
          name: m.name,
          path: m.path,
          up: async () => {
            log(`applying ${m.name}`);
            await applyOne(client, m);
          },
        })),
        context: client,
        storage: prismaStorage(client),
        logger: undefined,
      });
      const applied = await umzug.up();
      return applied.map((m) => m.name);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}

/** An applied migration whose file has since changed is worth a loud warning. */
async function warnOnDrift(client: Client, migrations: MigrationFile[], log: (m: string) => void): Promise<void> {
  const { rows } = await client.query<{ migration_name: string; checksum: string }>(
    `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  const onDisk = new Map(migrations.map((m) => [m.name, m.checksum]));
  for (const row of rows) {
    const checksum = onDisk.get(row.migration_name);
    if (checksum !== undefined && checksum !== row.checksum) {
      log(`warning: ${row.migration_name} was modified after it was applied`);
    }
  }
}
