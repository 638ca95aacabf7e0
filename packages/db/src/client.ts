import { PrismaPg } from '@prisma/adapter-pg';
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
