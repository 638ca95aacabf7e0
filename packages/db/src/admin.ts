import { Client } from 'pg';

/** Local development database, used when DATABASE_URL is unset. */
export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/rota';

/** Quotes an SQL identifier (database names cannot be bound as parameters). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The database name in a connection URL. */
export function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error(`No database name in ${redactUrl(url)}`);
  return name;
}

/** The same server, another database. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(name)}`;
  return u.toString();
}

/** A URL safe to print: the password, if any, is masked. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<invalid url>';
  }
}

/** Runs `fn` with a client connected to the server's `postgres` database. */
export async function withAdminClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates the database named in `url` when it does not exist. Returns true if it did. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  return withAdminClient(url, async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
    } catch (err) {
      // Someone else created it between the check and here.
      if ((err as { code?: string }).code === '42P04') return false;
      throw err;
    }
    return true;
  });
}
