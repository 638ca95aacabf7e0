import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { coverageBlock, coverageOf, normaliseBlock, withCoverage, type CatalogProviderFacts } from './coverage';
import { DEFAULT_RAILS_DIR, loadRails } from './rails';

/** `pnpm rails:table`: rewrites the generated coverage table of docs/rails.md from the rail files and the demo catalog. */
const root = join(__dirname, '..', '..', '..', '..');
const docPath = join(root, 'docs', 'rails.md');
const catalog = JSON.parse(readFileSync(join(root, 'packages', 'catalog', 'data', 'demo-catalog.json'), 'utf8')) as {
  servers: CatalogProviderFacts[];
};
const doc = readFileSync(docPath, 'utf8');
const block = coverageBlock(loadRails(DEFAULT_RAILS_DIR), catalog.servers);
const current = normaliseBlock(coverageOf(doc)) === normaliseBlock(block);
// Written as generated; the script's prettier run lays the table out.
if (!current) writeFileSync(docPath, withCoverage(doc, block));
process.stdout.write(current ? 'docs/rails.md is up to date\n' : 'docs/rails.md coverage table rewritten\n');
