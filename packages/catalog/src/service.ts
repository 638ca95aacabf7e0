import type { PrismaClient } from '@rota/db';
import type { CatalogDocument } from './format';
import { importCatalog, type ImportOptions, type ImportResult } from './import';
import type { CatalogQueue } from './queue';

export interface ImportOutcome {
  result: ImportResult;
  /** True when the import left rows to embed and a sweep was requested. */
  sweepRequested: boolean;
  /** Why a needed sweep could not be queued (the import itself is committed; the scheduled sweep will catch up). */
  sweepError?: string;
}

/**
 * Imports, then asks the worker for a sweep only when the import left
 * something to embed: re-importing an unchanged file queues nothing.
 */
export async function importAndRequestSweep(
  prisma: PrismaClient,
  queue: Pick<CatalogQueue, 'requestSweep'> | null,
  doc: CatalogDocument,
  opts: ImportOptions,
): Promise<ImportOutcome> {
  const result = await importCatalog(prisma, doc, opts);
  if (result.reembed === 0 || queue === null) return { result, sweepRequested: false };
  try {
    await queue.requestSweep();
    return { result, sweepRequested: true };
  } catch (err) {
    // The import is committed: a Redis outage must not turn it into an error.
    return { result, sweepRequested: false, sweepError: err instanceof Error ? err.message : String(err) };
  }
}
