import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsonata from 'jsonata';
import { RailFile } from '@rota/contracts';
import type { Rail } from './rail';

/**
 * The rail catalog: every `*.json` file of the rails directory, one file per
 * provider by convention, validated against the `RailFile` contract with
 * every mapping expression compiled. A bad file stops the router at boot
 * with the file, rail and field named.
 *
 * The cost and latency figures in the shipped files are ILLUSTRATIVE
 * defaults chosen to give the ranking realistic shapes (Pix cheap and
 * instant, boleto slow, cross-border dearer). None is a quote from the
 * provider; a deployment replaces them with its contracted prices.
 * Telemetry replaces the latency figures as soon as real calls are recorded.
 */

/** The shipped rails directory (apps/router/rails), from src or dist alike. */
export const DEFAULT_RAILS_DIR = join(__dirname, '..', '..', 'rails');

export class RailCatalogError extends Error {}

/** Reads and checks one directory of rail files. */
export function loadRails(dir: string): Rail[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const rails: Rail[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch (err) {
      throw new RailCatalogError(`rails/${file}: not valid JSON (${(err as Error).message})`);
    }
    const parsed = RailFile.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new RailCatalogError(`rails/${file}: ${issue.path.join('.')}: ${issue.message}`);
    }
    for (const rail of parsed.data.rails) {
      const other = seen.get(rail.id);
      if (other) throw new RailCatalogError(`rails/${file}: rail ${rail.id} is also defined in ${other}`);
      seen.set(rail.id, file);
      for (const [action, binding] of Object.entries(rail.actions)) {
        const expressions: Array<[string, string]> = [
          ['request', binding.request],
          ['result', binding.result],
          ...binding.before.map((st, i): [string, string] => [`before.${i}.request`, st.request]),
          ...binding.after.map((st, i): [string, string] => [`after.${i}.request`, st.request]),
        ];
        for (const [field, expression] of expressions) {
          try {
            jsonata(expression);
          } catch (err) {
            throw new RailCatalogError(
              `rails/${file}: ${rail.id} actions.${action}.${field}: ${(err as Error).message}`,
            );
          }
        }
      }
      rails.push(rail);
    }
  }
  return rails;
}

/** The rails this process routes with: `ROTA_RAILS_DIR` when set, else the shipped files. */
export const RAILS: readonly Rail[] = loadRails(process.env.ROTA_RAILS_DIR || DEFAULT_RAILS_DIR);

/** Every provider that carries at least one rail, sorted. */
export const RAIL_PROVIDER_IDS: readonly string[] = [...new Set(RAILS.map((r) => r.provider_id))].sort();

const BY_ID = new Map(RAILS.map((r) => [r.id, r]));

export function railById(id: string): Rail | undefined {
  return BY_ID.get(id);
}
