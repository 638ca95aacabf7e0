// `pnpm eval`: path A quality over the labelled dev set, through the gateway.
// Uses ROTA_URL + ROTA_API_KEY when given (a running stack, e.g. from
// scripts/up.sh); otherwise starts a private gateway and search service.
// Reads ../shared/eval/intents.dev.jsonl beside the checkout.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED, fmt, table } from './lib/common.mjs';
import { benchStack, createKey } from './lib/stack.mjs';

const file = process.env.ROTA_EVAL_FILE ?? join(SHARED, 'eval', 'intents.dev.jsonl');
if (!existsSync(file)) {
  console.log(`eval: ${file} is not there; nothing to evaluate.`);
  process.exit(0);
}
const lines = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));

let stack;
let base = process.env.ROTA_URL;
let key = process.env.ROTA_API_KEY;
if (!base) {
  stack = await benchStack();
  base = stack.base;
}
key ??= createKey('servers:read');

const stats = {};
const misses = [];
for (const line of lines) {
  const res = await fetch(`${base}/v1/tools/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ intent: line.intent, limit: 3 }),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status} for ${JSON.stringify(line.intent)}: ${await res.text()}`);
  const body = await res.json();
  const s = (stats[line.lang] ??= { labelled: 0, top1: 0, top3: 0, confident: 0, none: 0, noneOk: 0, source: {} });
  s.source[body.source] = (s.source[body.source] ?? 0) + 1;
  const names = body.hits.map((h) => h.tool_name);
  if (line.expected === null) {
    s.none++;
    if (body.hits.every((h) => h.confidence === 'low')) s.noneOk++;
    else misses.push({ lang: line.lang, intent: line.intent, expected: null, got: names.join(',') });
  } else {
    s.labelled++;
    if (names[0] === line.expected) s.top1++;
    else misses.push({ lang: line.lang, intent: line.intent, expected: line.expected, got: names.join(',') });
    if (names.includes(line.expected)) s.top3++;
    if (body.hits[0] && body.hits[0].confidence !== 'low') s.confident++;
  }
}
await stack?.close();

const pct = (a, b) => (b ? fmt(a / b, 3) : 'n/a');
console.log(`\n## Path A eval: ${lines.length} intents from ${file}`);
const rows = Object.entries(stats)
  .sort()
  .map(([lang, s]) => ({
    lang,
    labelled: s.labelled,
    'top-1': pct(s.top1, s.labelled),
    'top-3': pct(s.top3, s.labelled),
    'no-match lines': s.none,
    'no-match ok': pct(s.noneOk, s.none),
    'top hit high/medium': pct(s.confident, s.labelled),
    source: Object.entries(s.source)
      .map(([k, v]) => `${k}:${v}`)
      .join(' '),
  }));
table(rows);
if (process.argv.includes('--verbose'))
  for (const m of misses) console.log(`miss [${m.lang}] ${m.intent} → expected ${m.expected}, got ${m.got || '[]'}`);
// codespar_discover against BM25 on the demo intents and the MetaTool sample, per language, with channel ablations (bench/eval-discover.mjs).
const modelsArg = process.argv.indexOf('--models');
await (
  await import('./eval-discover.mjs')
).evalDiscover({
  verbose: process.argv.includes('--verbose'),
  models: modelsArg > 0 ? process.argv[modelsArg + 1]?.split(',') : undefined,
});
process.exit(0);
