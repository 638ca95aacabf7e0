/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4),
 * for tests: it throws on anything a Prometheus server would refuse, and
 * returns the families so a test can look for the series it expects.
 *
 * Checked: line grammar (names, label sets with their escapes, values,
 * optional timestamps); one HELP and one TYPE per family, TYPE before the
 * family's first sample; each family's samples contiguous; no series twice;
 * the suffixes a type allows (`_bucket`/`_sum`/`_count` for histograms,
 * `_sum`/`_count` and `quantile` for summaries); histogram buckets carrying
 * `le`, cumulative, ending at `+Inf` equal to `_count`.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help?: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export class ExpositionError extends Error {
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

/** Values as Prometheus reads them (Go's ParseFloat): decimals, and NaN and infinities in any letter case. */
function parseValue(text: string, line: number): number {
  if (/^nan$/i.test(text)) return NaN;
  const inf = /^([+-]?)inf(inity)?$/i.exec(text);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text))
    throw new ExpositionError(line, `"${text}" is not a sample value`);
  return Number(text);
}

/** Reads `{a="x",b="y"}` starting at `i` (the brace); returns the labels and the index after the closing brace. */
function parseLabels(text: string, i: number, line: number): [Record<string, string>, number] {
  const labels: Record<string, string> = {};
  i++;
  for (;;) {
    while (text[i] === ' ') i++;
    if (text[i] === '}') return [labels, i + 1];
    const nameStart = i;
    while (i < text.length && /[a-zA-Z0-9_]/.test(text[i]!)) i++;
    const name = text.slice(nameStart, i);
    if (!LABEL_NAME.test(name)) throw new ExpositionError(line, `bad label name "${name}"`);
    if (name in labels) throw new ExpositionError(line, `label "${name}" appears twice`);
    if (text[i] !== '=' || text[i + 1] !== '"') throw new ExpositionError(line, `label "${name}" lacks ="value"`);
    i += 2;
    let value = '';
    for (;;) {
      const ch = text[i];
      if (ch === undefined) throw new ExpositionError(line, 'unterminated label value');
      if (ch === '"') break;
      if (ch === '\\') {
        const next = text[i + 1];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else throw new ExpositionError(line, `bad escape "\\${next ?? ''}" in a label value`);
        i += 2;
        continue;
      }
      value += ch;
      i++;
    }
    labels[name] = value;
    i++;
    while (text[i] === ' ') i++;
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] === '}') return [labels, i + 1];
    throw new ExpositionError(line, 'expected "," or "}" in a label set');
  }
}

function familyOf(sample: string, families: Map<string, MetricFamily>): MetricFamily | undefined {
  if (families.has(sample)) return families.get(sample);
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sample.endsWith(suffix)) continue;
    const f = families.get(sample.slice(0, -suffix.length));
    if (f && (f.type === 'histogram' || (f.type === 'summary' && suffix !== '_bucket'))) return f;
  }
  return undefined;
}

/** Parses and validates exposition text; throws `ExpositionError` naming the first line at fault. */
export function parsePrometheusText(text: string): MetricFamily[] {
  const families = new Map<string, MetricFamily>();
  const seenSeries = new Set<string>();
  const closed = new Set<string>();
  const typed = new Set<string>();
  let current: string | undefined;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((raw, idx) => {
    const line = idx + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(raw);
      if (!m) return; // a plain comment
      const [, kind, name, rest = ''] = m;
      if (!METRIC_NAME.test(name!)) throw new ExpositionError(line, `bad metric name "${name}"`);
      let f = families.get(name!);
      if (f && f.samples.length > 0 && kind === 'TYPE')
        throw new ExpositionError(line, `TYPE of ${name} comes after its samples`);
      if (!f) {
        f = { name: name!, type: 'untyped', samples: [] };
        families.set(name!, f);
      }
      if (kind === 'TYPE') {
        if (!TYPES.has(rest.trim())) throw new ExpositionError(line, `unknown type "${rest}"`);
        if (typed.has(f.name)) throw new ExpositionError(line, `second TYPE line for ${name}`);
        f.type = rest.trim() as MetricFamily['type'];
        typed.add(f.name);
      } else {
        if (f.help !== undefined) throw new ExpositionError(line, `second HELP line for ${name}`);
        f.help = rest;
      }
      return;
    }
    let i = 0;
    while (i < raw.length && /[a-zA-Z0-9_:]/.test(raw[i]!)) i++;
    const name = raw.slice(0, i);
    if (!METRIC_NAME.test(name)) throw new ExpositionError(line, `bad metric name "${name}"`);
    let labels: Record<string, string> = {};
    if (raw[i] === '{') [labels, i] = parseLabels(raw, i, line);
    const rest = raw.slice(i);
    if (!/^ +\S/.test(rest)) throw new ExpositionError(line, 'expected a space and a value after the series');
    const parts = rest.trim().split(/ +/);
    if (parts.length > 2) throw new ExpositionError(line, 'trailing text after the value and timestamp');
    const value = parseValue(parts[0]!, line);
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1]))
      throw new ExpositionError(line, `bad timestamp "${parts[1]}"`);
    let family = familyOf(name, families);
    if (!family) {
      family = { name, type: 'untyped', samples: [] };
      families.set(name, family);
    }
    if (family.type === 'histogram' && name === family.name)
      throw new ExpositionError(line, `histogram ${family.name} has a sample without a suffix`);
    if (family.type === 'histogram' && name.endsWith('_bucket') && labels.le === undefined)
      throw new ExpositionError(line, 'a histogram bucket lacks "le"');
    if (family.name !== current) {
      if (closed.has(family.name)) throw new ExpositionError(line, `samples of ${family.name} are not contiguous`);
      if (current) closed.add(current);
      current = family.name;
    }
    const key = `${name}${JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)))}`;
    if (seenSeries.has(key)) throw new ExpositionError(line, `series ${name}${JSON.stringify(labels)} appears twice`);
    seenSeries.add(key);
    family.samples.push({ name, labels, value });
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return [...families.values()];
}

/** Buckets of each label set are cumulative and end at +Inf, equal to `_count`. */
function checkHistogram(f: MetricFamily) {
  const groups = new Map<string, { buckets: [number, number][]; count?: number }>();
  const keyOf = (labels: Record<string, string>) =>
    JSON.stringify(
      Object.entries(labels)
        .filter(([k]) => k !== 'le')
        .sort(([a], [b]) => a.localeCompare(b)),
    );
  for (const s of f.samples) {
    const g = groups.get(keyOf(s.labels)) ?? { buckets: [] };
    groups.set(keyOf(s.labels), g);
    if (s.name.endsWith('_bucket')) g.buckets.push([parseValue(s.labels.le!, 0), s.value]);
    else if (s.name.endsWith('_count')) g.count = s.value;
  }
  for (const [key, g] of groups) {
    const sorted = [...g.buckets].sort(([a], [b]) => a - b);
    for (let k = 1; k < sorted.length; k++) {
      if (sorted[k]![1] < sorted[k - 1]![1]) throw new Error(`histogram ${f.name}${key}: buckets are not cumulative`);
    }
    const last = sorted[sorted.length - 1];
    if (!last || last[0] !== Infinity) throw new Error(`histogram ${f.name}${key}: no +Inf bucket`);
    if (g.count !== undefined && g.count !== last[1])
      throw new Error(`histogram ${f.name}${key}: +Inf bucket differs from _count`);
  }
}
