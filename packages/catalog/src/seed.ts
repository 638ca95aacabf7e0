import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PrismaClient } from '@rota/db';
import { currentEmbeddingModel } from './config';
import { parseCatalogText } from './format';
import { importCatalog, type ImportResult } from './import';

/**
 * The demo catalog shipped with this package (Rota catalog format v1): in the
 * repository it sits in `data/`; the build also copies it into `dist/data/`,
 * which is all a production image keeps.
 */
export const DEMO_CATALOG_PATH = [join(__dirname, '..', 'data', 'demo-catalog.json'), join(__dirname, 'data', 'demo-catalog.json')].find((p) => existsSync(p)) ?? join(__dirname, '..', 'data', 'demo-catalog.json');

/**
 * Imports the demo catalog into the global catalog. Safe to repeat: a second
 * run changes nothing. Returns null when the file is absent. New rows have no
 * vector yet; the worker's sweep embeds them.
 *
 * This is the catalog half of the development seed: `@rota/db` knows nothing
 * of the catalog (the dependency runs catalog → db), so the callers that seed
 * (`rota catalog seed`, the quick start, the test stack) run `seed()` from
 * `@rota/db` and then this.
 */
export async function seedDemoCatalog(prisma: PrismaClient, opts: { path?: string; model?: string } = {}): Promise<ImportResult | null> {
  const path = opts.path ?? DEMO_CATALOG_PATH;
  if (!existsSync(path)) return null;
  const doc = parseCatalogText(readFileSync(path, 'utf8'));
  return importCatalog(prisma, doc, { model: opts.model ?? currentEmbeddingModel(), projectId: null });
}
