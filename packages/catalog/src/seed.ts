import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PrismaClient } from '@rota/db';
import { currentEmbeddingModel } from './config';
import { parseCatalogText, SANDBOX_URL_PLACEHOLDER } from './format';
import { importCatalog, type ImportResult } from './import';

/**
 * The demo catalog shipped with this package (Rota catalog format v2): in the
 * repository it sits in `data/`; the build also copies it into `dist/data/`,
 * which is all a production image keeps.
 */
export const DEMO_CATALOG_PATH =
  [join(__dirname, '..', 'data', 'demo-catalog.json'), join(__dirname, 'data', 'demo-catalog.json')].find((p) =>
    existsSync(p),
  ) ?? join(__dirname, '..', 'data', 'demo-catalog.json');

/** Where the sandbox provider server listens unless `ROTA_SANDBOX_URL` says otherwise (the quick start's address). */
export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';

/** The sandbox address to write into the demo catalog: `ROTA_SANDBOX_URL`, else the default. */
export function sandboxUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.ROTA_SANDBOX_URL?.trim() || DEFAULT_SANDBOX_URL;
}

/**
 * Writes the sandbox's address where a catalog's text says
 * `${ROTA_SANDBOX_URL}`. The address must be a plain http(s) URL (a path
 * prefix is fine), since provider paths are appended to it; a trailing slash
 * is dropped so `${ROTA_SANDBOX_URL}/asaas` never doubles it.
 */
export function substituteSandboxUrl(text: string, sandboxUrl: string): string {
  let url: URL;
  try {
    url = new URL(sandboxUrl);
  } catch {
    throw new Error(`ROTA_SANDBOX_URL is not a URL: ${JSON.stringify(sandboxUrl)}`);
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search ||
    url.hash ||
    url.username ||
    url.password
  ) {
    throw new Error(
      `ROTA_SANDBOX_URL must be a plain http(s) URL without credentials, query or fragment, not ${JSON.stringify(sandboxUrl)}`,
    );
  }
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  // Escaped for a JSON string: the placeholder only ever sits inside one.
  return text.split(SANDBOX_URL_PLACEHOLDER).join(JSON.stringify(base).slice(1, -1));
}

/**
 * Imports the demo catalog into the global catalog. Safe to repeat: a second
 * run changes nothing. Returns null when the file is absent. New rows have no
 * vector yet; the worker's sweep embeds them. The providers the sandbox
 * provider server imitates get it as their `test` base URL (see
 * {@link substituteSandboxUrl}); the import refuses a base URL that still
 * holds the placeholder, so it never reaches the database.
 *
 * This is the catalog half of the development seed: `@rota/db` knows nothing
 * of the catalog (the dependency runs catalog → db), so the callers that seed
 * (`rota catalog seed`, the quick start, the test stack) run `seed()` from
 * `@rota/db` and then this.
 */
export async function seedDemoCatalog(
  prisma: PrismaClient,
  opts: { path?: string; model?: string; sandboxUrl?: string } = {},
): Promise<ImportResult | null> {
  const path = opts.path ?? DEMO_CATALOG_PATH;
  if (!existsSync(path)) return null;
  const doc = parseCatalogText(
    substituteSandboxUrl(readFileSync(path, 'utf8'), opts.sandboxUrl ?? sandboxUrlFromEnv()),
  );
  return importCatalog(prisma, doc, { model: opts.model ?? currentEmbeddingModel(), projectId: null });
}
