import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  coverageBlock,
  coverageOf,
  COVERAGE_END,
  COVERAGE_START,
  normaliseBlock,
  withCoverage,
  type CatalogProviderFacts,
} from './coverage';
import { DEFAULT_RAILS_DIR, loadRails } from './rails';

const root = join(__dirname, '../../../..');
const RAILS = loadRails(DEFAULT_RAILS_DIR);
const CATALOG = (
  JSON.parse(readFileSync(join(root, 'packages/catalog/data/demo-catalog.json'), 'utf8')) as {
    servers: CatalogProviderFacts[];
  }
).servers;

describe('the rail coverage table of docs/rails.md', () => {
  it('is what the registry generates (run `pnpm rails:table` after changing a rail file)', () => {
    const doc = readFileSync(join(root, 'docs/rails.md'), 'utf8');
    expect(normaliseBlock(coverageOf(doc))).toBe(normaliseBlock(coverageBlock(RAILS, CATALOG)));
  });

  it('has one row per executable rail and action, and names the unbound rails only as planning data', () => {
    const block = coverageBlock(RAILS, CATALOG);
    const rows = block.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows).toHaveLength(RAILS.reduce((n, r) => n + Object.keys(r.actions).length, 0));
    expect(block.startsWith(COVERAGE_START) && block.endsWith(COVERAGE_END)).toBe(true);
    const openpay = rows.find((r) => r.includes('`openpay.spei.in`'))!;
    expect(openpay).toContain('by reference: `list_charges`');
    expect(openpay).toContain('`order_id` = key');
    expect(rows.find((r) => r.includes('`asaas.pix.in`') && r.includes('| charge |'))).toContain('`buyer.document`');
  });

  it('refuses a document without its markers', () => {
    expect(() => withCoverage('# no table', coverageBlock(RAILS, CATALOG))).toThrow(/markers/);
  });
});
