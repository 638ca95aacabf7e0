/**
 * In-process quality check of the lexical fallback: per-language top-1 and
 * top-3 accuracy, how often "no tool fits" lines get [] or only `low`, how
 * often a labelled top hit is `high` or `medium`, and classification time.
 *
 * Run from the repository root: `node bench/eval-path-a-local.mjs`
 * (add `--verbose` to list every miss). Reads the shared dev set at
 * ../shared/eval/intents.dev.jsonl (skipped when absent) and the held-out
 * style fixtures under ./fixtures.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { warmUp } from '@rota/lexicon';
import { classifyLexical } from './lexical';

export interface LabelledIntent {
  intent: string;
  expected: string | null;
  lang: string;
}

export interface EvalReport {
  total: number;
  byLang: Record<string, { n: number; top1: number; top3: number }>;
  nullOk: number;
  nullCount: number;
  confident: number;
  labelled: number;
  misses: Array<{ intent: string; expected: string | null; got: string[] }>;
}

/** Our own held-out style intents (never the dev set), by the order they were written. */
export const OWN_FIXTURES: ReadonlyArray<readonly [title: string, file: string]> = [
  ['own held-out fixture', 'heldout.jsonl'],
  ['own held-out fixture, harder phrasing', 'heldout-hard.jsonl'],
  ['own held-out fixture, terse/long/typos', 'heldout-fresh.jsonl'],
  ['own held-out fixture, more phrasings', 'heldout-more.jsonl'],
  ['own held-out fixture, written last (cold)', 'heldout-cold.jsonl'],
];

export function readJsonl(path: string): LabelledIntent[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LabelledIntent);
}

export function evaluate(rows: readonly LabelledIntent[]): EvalReport {
  const report: EvalReport = {
    total: rows.length,
    byLang: {},
    nullOk: 0,
    nullCount: 0,
    confident: 0,
    labelled: 0,
    misses: [],
  };
  for (const row of rows) {
    const hits = classifyLexical(row.intent, 3);
    const names = hits.map((h) => `${h.tool_name}:${h.confidence}`);
    if (row.expected === null) {
      report.nullCount++;
      if (hits.every((h) => h.confidence === 'low')) report.nullOk++;
      else report.misses.push({ intent: row.intent, expected: null, got: names });
      continue;
    }
    const lang = (report.byLang[row.lang] ??= { n: 0, top1: 0, top3: 0 });
    lang.n++;
    report.labelled++;
    if (hits[0]?.tool_name === row.expected) lang.top1++;
    else report.misses.push({ intent: row.intent, expected: row.expected, got: names });
    if (hits.some((h) => h.tool_name === row.expected)) lang.top3++;
    if (hits[0] && hits[0].confidence !== 'low') report.confident++;
  }
  return report;
}

function timing(rows: readonly LabelledIntent[]): { p50: number; p95: number } {
  const samples: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const row of rows) {
      const t0 = process.hrtime.bigint();
      classifyLexical(row.intent, 3);
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length * 0.5)]!, p95: samples[Math.floor(samples.length * 0.95)]! };
}

function print(title: string, r: EvalReport, verbose: boolean): void {
  const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)}%`);
  console.log(`\n== ${title}: ${r.total} lines`);
  for (const [lang, s] of Object.entries(r.byLang).sort()) {
    console.log(`  ${lang}: n=${s.n}  top-1 ${pct(s.top1, s.n)}  top-3 ${pct(s.top3, s.n)}`);
  }
  console.log(`  no-match lines answered [] or only low: ${pct(r.nullOk, r.nullCount)} (${r.nullOk}/${r.nullCount})`);
  console.log(`  labelled top hits high or medium: ${pct(r.confident, r.labelled)} (${r.confident}/${r.labelled})`);
  if (verbose)
    for (const m of r.misses) console.log(`  MISS expected=${m.expected} got=[${m.got.join(', ')}]  ${m.intent}`);
  else console.log(`  misses: ${r.misses.length} (run with --verbose to list them)`);
}

export function main(argv: readonly string[] = process.argv.slice(2)): number {
  const verbose = argv.includes('--verbose');
  const repoRoot = resolve(__dirname, '../../../..');
  const devPath = resolve(repoRoot, '../shared/eval/intents.dev.jsonl');
  warmUp();
  const sets: Array<[string, LabelledIntent[]]> = [];
  if (existsSync(devPath)) sets.push(['dev set', readJsonl(devPath)]);
  else console.log(`dev set not found at ${devPath}; skipping it`);
  for (const [title, file] of OWN_FIXTURES) {
    const path = join(__dirname, 'fixtures', file);
    if (existsSync(path)) sets.push([title, readJsonl(path)]);
  }
  if (sets.length === 0) return 0;
  for (const [title, rows] of sets) print(title, evaluate(rows), verbose);
  const all = sets.flatMap(([, rows]) => rows);
  const t = timing(all);
  console.log(
    `\nclassification time over ${all.length * 3} calls: p50 ${t.p50.toFixed(3)} ms, p95 ${t.p95.toFixed(3)} ms`,
  );
  return 0;
}

if (require.main === module) process.exitCode = main();
