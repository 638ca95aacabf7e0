import type { PrismaClient } from '@rota/db';

/** How one currency converts into another: the rate, when it was observed, and the currency it was crossed through, if any. */
export interface FxQuote {
  /** Units of the target currency per unit of the source currency (major units). */
  rate: number;
  /** When the oldest rate used was observed. */
  asOf: Date;
  /** The currency both were quoted against, when no rate joins them directly. */
  via?: string;
}

export interface FxRow {
  base: string;
  quote: string;
  rate: number;
  fetchedAt: Date;
}

/**
 * The latest rate of each currency pair the FX job stored, as one lookup.
 * A pair converts directly (`base → quote`), inversely (`quote → base` as
 * 1 / rate) or across a currency both are quoted against, so a source that
 * quotes everything against USD converts BRL into MXN.
 */
export class FxTable {
  private readonly pairs = new Map<string, { rate: number; asOf: Date }>();
  private readonly currencies = new Set<string>();

  constructor(rows: readonly FxRow[]) {
    for (const r of rows) {
      if (!(r.rate > 0) || !Number.isFinite(r.rate)) continue;
      this.pairs.set(`${r.base}|${r.quote}`, { rate: r.rate, asOf: r.fetchedAt });
      this.currencies.add(r.base);
      this.currencies.add(r.quote);
    }
  }

  static readonly EMPTY = new FxTable([]);

  get size(): number {
    return this.pairs.size;
  }

  convert(from: string, to: string): FxQuote | null {
    if (from === to) return { rate: 1, asOf: new Date(0) };
    const one = this.oneStep(from, to);
    if (one) return one;
    let best: FxQuote | null = null;
    for (const via of this.currencies) {
      if (via === from || via === to) continue;
      const a = this.oneStep(from, via);
      const b = a && this.oneStep(via, to);
      if (!a || !b) continue;
      const asOf = a.asOf < b.asOf ? a.asOf : b.asOf;
      // Of several crossings, the freshest.
      if (!best || asOf > best.asOf) best = { rate: a.rate * b.rate, asOf, via };
    }
    return best;
  }

  private oneStep(from: string, to: string): FxQuote | null {
    const direct = this.pairs.get(`${from}|${to}`);
    if (direct) return { rate: direct.rate, asOf: direct.asOf };
    const inverse = this.pairs.get(`${to}|${from}`);
    return inverse ? { rate: 1 / inverse.rate, asOf: inverse.asOf } : null;
  }
}

/**
 * The rates path C prices rails with, read from `fx_rates` (the worker's FX
 * job and `rota fx import` write it) and kept in memory for `ttlMs`: a
 * route answer never waits on more than one read per interval, and readers
 * that arrive while it runs share it. A failed read keeps the last table
 * (rates are illustrative inputs to a ranking, not money).
 */
export class FxRatesService {
  private table: FxTable = FxTable.EMPTY;
  private readAt = -Infinity;
  private inFlight: Promise<FxTable> | null = null;

  constructor(
    private readonly prisma: Pick<PrismaClient, '$queryRaw'>,
    private readonly ttlMs: number,
    private readonly onError: (err: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  current(): Promise<FxTable> {
    if (this.now() - this.readAt < this.ttlMs) return Promise.resolve(this.table);
    this.inFlight ??= this.read().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async read(): Promise<FxTable> {
    try {
      const rows = await this.prisma.$queryRaw<Array<{ base: string; quote: string; rate: string; fetched_at: Date }>>`
        SELECT base, quote, rate::text AS rate, fetched_at FROM fx_rates`;
      this.table = new FxTable(
        rows.map((r) => ({ base: r.base, quote: r.quote, rate: Number(r.rate), fetchedAt: r.fetched_at })),
      );
    } catch (err) {
      this.onError(err);
    }
    this.readAt = this.now();
    return this.table;
  }
}
