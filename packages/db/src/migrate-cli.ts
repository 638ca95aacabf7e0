/**
 * `pnpm db:migrate`: creates the database named by DATABASE_URL when missing
 * and applies pending migrations.
 */
import { DEFAULT_DATABASE_URL, databaseName, ensureDatabase, redactUrl } from './admin';
import { migrate } from './migrate';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  if (await ensureDatabase(url)) console.log(`created database ${databaseName(url)}`);
  const applied = await migrate(url, { log: (m) => console.log(m) });
  console.log(
    applied.length ? `applied ${applied.length} migration(s) to ${redactUrl(url)}` : `${redactUrl(url)} is up to date`,
  );
}

main().catch((err: unknown) => {
  console.error(`migrate failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
