import { PrismaPg } from '@prisma/adapter-pg';
import { createHash } from 'node:crypto';
import { Pool } from 'pg';
import { Prisma, PrismaClient } from './generated/prisma/client';

export { Prisma, PrismaClient };
export type { Environment } from './generated/prisma/enums';

export interface CreatePrismaOptions {
  /** Pool size; defaults to DATABASE_POOL_MAX, then 10. */
  poolMax?: number;
  log?: Prisma.LogLevel[];
}

function poolMaxFromEnv(): number {
  const raw = process.env.DATABASE_POOL_MAX;
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : 10;
}

/**
 * A Prisma client on the `pg` driver adapter (Prisma 7 has no built-in
 * engine connection). Each client owns its own pool; call `$disconnect()`
 * to release it.
 */
export function createPrisma(databaseUrl: string, opts: CreatePrismaOptions = {}): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: opts.poolMax ?? poolMaxFromEnv(),
    // Fail fast instead of hanging forever when the pool is exhausted or the server is down.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  return new PrismaClient({ adapter, log: opts.log });
}

export type SqlPool = Pool;

export interface CreateSqlPoolOptions {
  /** Pool size; defaults to half of DATABASE_POOL_MAX (at least 2), then 5. Prepared statements are short, so few connections go far. */
  poolMax?: number;
  /**
   * Server settings applied to every connection at start-up (`-c name=value`).
   * Meant for a pool that serves one kind of query only, so the settings
   * cost no round trip per query and never leak into other work.
   */
  settings?: Record<string, string | number>;
  /** Told when an idle connection breaks (server restart, admin kill); the pool drops it and opens another on demand. */
  onIdleError?: (err: Error) => void;
}

const SETTING_NAME = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;
const SETTING_VALUE = /^[A-Za-z0-9_.-]+$/;

/**
 * A plain `pg` pool, for the few hot reads where a single prepared statement
 * in one round trip matters more than Prisma's query builder.
 */
export function createSqlPool(databaseUrl: string, opts: CreateSqlPoolOptions = {}): SqlPool {
  const options = Object.entries(opts.settings ?? {})
    .map(([name, value]) => {
      const v = String(value);
      if (!SETTING_NAME.test(name) || !SETTING_VALUE.test(v)) throw new Error(`invalid server setting ${name}=${v}`);
      return `-c ${name}=${v}`;
    })
    .join(' ');
  const pool = new Pool({
    connectionString: databaseUrl,
    max: opts.poolMax ?? Math.max(2, Math.ceil(poolMaxFromEnv() / 2)),
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    ...(options ? { options } : {}),
  });
  // Without a listener, an idle connection dying would crash the process.
  pool.on('error', opts.onIdleError ?? (() => undefined));
  return pool;
}

/** A statement prepared once per connection and afterwards only bound and run: no parse or plan per call. */
export interface NamedStatement {
  name: string;
  text: string;
}

/** Names the statement after its text, so one name never stands for two texts on a connection. */
export function namedStatement(text: string): NamedStatement {
  return { name: `rota_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`, text };
}
