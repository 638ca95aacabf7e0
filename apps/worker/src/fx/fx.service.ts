import { FxRatesImport, type FxImportResult, type FxRateInput, type FxRatesList } from '@rota/contracts';
import type { Logger } from 'pino';
import type { FxRepository, FxRow } from './fx.repository';
import type { FxSource } from './fx.source';

/** Rates in, one row per pair: the latest observation of each pair wins (the later one on a tie). */
export function latestPerPair(rates: FxRateInput[], source: string, now: Date): FxRow[] {
  const byPair = new Map<string, FxRow>();
  for (const r of rates) {
    const row = {
      base: r.base,
      quote: r.quote,
      rate: r.rate,
      source,
      fetchedAt: r.fetched_at ? new Date(r.fetched_at) : now,
    };
    const held = byPair.get(`${r.base}/${r.quote}`);
    if (!held || held.fetchedAt <= row.fetchedAt) byPair.set(`${r.base}/${r.quote}`, row);
  }
  return [...byPair.values()];
}

/** Exchange rates: the refresh job, the operator import and the list. */
export class FxService {
  constructor(
    private readonly repo: FxRepository,
    private readonly source: FxSource | undefined,
    private readonly log: Pick<Logger, 'info' | 'warn'>,
  ) {}

  async import(body: FxRatesImport): Promise<FxImportResult> {
    const cmd = FxRatesImport.parse(body);
    const rows = latestPerPair(cmd.rates, cmd.source, new Date());
    const imported = await this.repo.upsert(rows);
    this.log.info({ imported, source: cmd.source }, 'fx rates imported');
    return { imported, kept_newer: rows.length - imported };
  }

  async list(): Promise<FxRatesList> {
    return { rates: await this.repo.list() };
  }

  /** `fx.refresh`: one fetch of the source; a failure throws, so the job retries with backoff. */
  async refresh(): Promise<{ fetched: number; written: number }> {
    if (!this.source) return { fetched: 0, written: 0 };
    const rates = await this.source.fetch();
    const written = await this.repo.upsert(latestPerPair(rates, this.source.name, new Date()));
    this.log.info({ fetched: rates.length, written, source: this.source.name }, 'fx rates refreshed');
    return { fetched: rates.length, written };
  }
}
