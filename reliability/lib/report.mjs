// One table for the whole run: every figure with its target and whether it
// was met. A missed target that a known finding explains names it, so the
// table says what is broken rather than only that something is.
export class Report {
  rows = [];

  /** `ok` true/false judges the row; null marks a figure without a target. */
  add(part, figure, value, { target = '', ok = null, finding = '' } = {}) {
    this.rows.push({
      part,
      figure,
      value: String(value),
      target,
      result: ok === null ? '' : ok ? 'ok' : 'FAIL',
      note: ok === false ? finding : '',
    });
  }

  get failed() {
    return this.rows.filter((r) => r.result === 'FAIL');
  }

  print() {
    if (this.rows.length === 0) return;
    const cols = Object.keys(this.rows[0]);
    const widths = cols.map((c) => Math.max(c.length, ...this.rows.map((r) => r[c].length)));
    const line = (vals) => `| ${vals.map((v, i) => String(v).padEnd(widths[i])).join(' | ')} |`;
    console.log(line(cols));
    console.log(line(widths.map((w) => '-'.repeat(w))));
    for (const r of this.rows) console.log(line(cols.map((c) => r[c])));
  }
}

/** Counts by key, printed as `k=n k=n` in key order. */
export function tally(values) {
  const m = {};
  for (const v of values) m[v] = (m[v] ?? 0) + 1;
  return m;
}
export const fmtTally = (m) =>
  Object.entries(m)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ') || '-';

/** Runs `fn` over `items` with at most `n` at a time. */
export async function pool(items, n, fn) {
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (i < items.length) {
        const k = i++;
        await fn(items[k], k);
      }
    }),
  );
}
