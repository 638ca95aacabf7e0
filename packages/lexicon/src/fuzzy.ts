/**
 * Typo tolerance: optimal string alignment distance (one insertion, deletion,
 * substitution or swap of neighbours counts as one edit) and a deletion index
 * in the style of SymSpell, so finding every vocabulary word within one edit
 * of a token costs a handful of map lookups instead of a scan.
 */

/** Optimal string alignment distance, stopping early once it exceeds `max`. */
export function editDistance(a: string, b: string, max = 2): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = a.length;
  const m = b.length;
  let prev2: number[] = new Array(m + 1).fill(0);
  let prev: number[] = Array.from({ length: m + 1 }, (_, j) => j);
  let cur: number[] = new Array(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[m]!;
}

function deletes(word: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < word.length; i++) out.push(word.slice(0, i) + word.slice(i + 1));
  return out;
}

/** Finds vocabulary words within one edit of a query. */
export class DeletionIndex {
  private readonly byVariant = new Map<string, string[]>();
  private readonly words = new Set<string>();

  add(word: string): void {
    if (this.words.has(word)) return;
    this.words.add(word);
    for (const v of [word, ...deletes(word)]) {
      const list = this.byVariant.get(v);
      if (list) list.push(word);
      else this.byVariant.set(v, [word]);
    }
  }

  /** Words at distance exactly one from `query` (the query itself excluded). */
  near(query: string): string[] {
    const found = new Set<string>();
    for (const v of [query, ...deletes(query)]) {
      const list = this.byVariant.get(v);
      if (!list) continue;
      for (const w of list) if (w !== query && !found.has(w) && editDistance(query, w, 1) === 1) found.add(w);
    }
    return [...found];
  }
}
