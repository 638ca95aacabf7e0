import type { FxRate } from '@rota/contracts';
import { Prisma, type PrismaClient } from '@rota/db';

export interface FxRow {
  base: string;
  quote: string;
  rate: string;
  source: string;
  fetchedAt: Date;
}

/** The `fx_rates` table: the latest rate of each currency pair. */
export class FxRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * Upserts rates (one row per pair in `rows`). A stored rate observed later
   * than the incoming one stays: the compare-and-set on `fetched_at` keeps a
   * slow or replayed import from overwriting newer data. Returns the pairs
   * written.
   */
  async upsert(rows: FxRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const result = await this.prisma.$queryRaw<Array<{ n: bigint }>>(Prisma.sql`
      WITH written AS (
        INSERT INTO fx_rates (base, quote, rate, source, fetched_at)
        SELECT * FROM unnest(
          ${rows.map((r) => r.base)}::text[],
          ${rows.map((r) => r.quote)}::text[],
          ${rows.map((r) => r.rate)}::text[]::numeric[],
          ${rows.map((r) => r.source)}::text[],
          ${rows.map((r) => r.fetchedAt.toISOString())}::text[]::timestamptz[])
        ON CONFLICT (base, quote) DO UPDATE
          SET rate = EXCLUDED.rate, source = EXCLUDED.source, fetched_at = EXCLUDED.fetched_at, updated_at = now()
          WHERE fx_rates.fetched_at <= EXCLUDED.fetched_at
        RETURNING 1)
      SELECT count(*) AS n FROM written`);
    return Number(result[0]?.n ?? 0);
  }

  async list(): Promise<FxRate[]> {
    const rows = await this.prisma.$queryRaw<
      Array<{ base: string; quote: string; rate: string; source: string; fetched_at: Date }>
    >(Prisma.sql`
      SELECT base, quote, trim_scale(rate)::text AS rate, source, fetched_at FROM fx_rates ORDER BY base, quote`);
    return rows.map((r) => ({
      base: r.base,
      quote: r.quote,
      rate: r.rate,
      source: r.source,
      fetched_at: r.fetched_at.toISOString(),
    }));
  }
}
