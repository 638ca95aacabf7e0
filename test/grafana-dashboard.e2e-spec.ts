import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePrometheusText } from '@rota/service-kit/testing/prometheus-text';
import { http, startStack, type Stack } from './helpers/stack';

/** The slice of lezer's syntax tree this test walks. */
interface SyntaxNode {
  name: string;
  from: number;
  to: number;
  type: { isError: boolean };
  node: { parent: { name: string } | null };
}
// The package ships ES modules with a CommonJS build; this CommonJS file loads the latter.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parser } = require('@prometheus-io/lezer-promql') as {
  parser: { parse(text: string): { iterate(spec: { enter(node: SyntaxNode): void }): void } };
};

const DIR = join(__dirname, '..', 'deploy', 'grafana', 'dashboards');

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string; refId: string }[];
  panels?: Panel[];
}

/** Grafana's interval variables are not PromQL; Prometheus sees a duration in their place. */
const asPromQL = (expr: string) => expr.replace(/\$__(rate_)?interval|\$__range/g, '5m');

/** The metric names an expression selects, and whether it parsed without an error node. */
function selectedSeries(expr: string): { names: string[]; error: string | null } {
  const text = asPromQL(expr);
  const tree = parser.parse(text);
  const names: string[] = [];
  let error: string | null = null;
  tree.iterate({
    enter: (node) => {
      if (node.type.isError)
        error ??= `cannot parse at ${node.from}: …${text.slice(Math.max(0, node.from - 20), node.to + 20)}…`;
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector')
        names.push(text.slice(node.from, node.to));
    },
  });
  return { names, error };
}

const dashboards = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((file) => ({ file, text: readFileSync(join(DIR, file), 'utf8') }));

const panelsOf = (panels: Panel[]): Panel[] => panels.flatMap((p) => [p, ...panelsOf(p.panels ?? [])]);

describe('the Grafana dashboards in deploy/grafana', () => {
  let stack: Stack;
  /** Every series name the stack's processes export (histograms as their _bucket, _sum and _count). */
  let exported: Set<string>;

  beforeAll(async () => {
    stack = await startStack();
    const operator = (await stack.operatorKey(['admin'])).key;
    // A little traffic, so the process has answered at least once.
    await http(`${stack.url}/v1/health`, { headers: { authorization: `Bearer ${operator}` } });
    const scraped = await http(`${stack.url}/metrics`, { headers: { authorization: `Bearer ${operator}` } });
    expect(scraped.status).toBe(200);
    exported = new Set();
    for (const family of parsePrometheusText(scraped.text)) {
      exported.add(family.name);
      for (const suffix of ['_bucket', '_sum', '_count']) exported.add(`${family.name}${suffix}`);
    }
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('ships at least one dashboard, each valid JSON with a uid, a title and panels that query Prometheus', () => {
    expect(dashboards.length).toBeGreaterThan(0);
    for (const { file, text } of dashboards) {
      const dash = JSON.parse(text) as { uid?: string; title?: string; panels?: Panel[] };
      expect({ file, uid: typeof dash.uid, title: typeof dash.title }).toEqual({
        file,
        uid: 'string',
        title: 'string',
      });
      const queried = panelsOf(dash.panels ?? []).filter((p) => p.type !== 'row');
      expect(queried.length).toBeGreaterThan(0);
      for (const p of queried)
        expect({ file, panel: p.title, targets: (p.targets ?? []).length > 0 }).toEqual({
          file,
          panel: p.title,
          targets: true,
        });
    }
  });

  it('every PromQL expression parses and names only series the stack exports', () => {
    // Sanity of the check itself: a broken expression and an unknown series are caught.
    expect(selectedSeries('sum(rate(rota_http_requests_total[5m])').error).not.toBeNull();
    expect(selectedSeries('rate(rota_no_such_series_total[$__rate_interval])').names).toEqual([
      'rota_no_such_series_total',
    ]);

    const problems: string[] = [];
    let expressions = 0;
    for (const { file, text } of dashboards) {
      const dash = JSON.parse(text) as { panels?: Panel[] };
      for (const panel of panelsOf(dash.panels ?? [])) {
        for (const target of panel.targets ?? []) {
          expressions++;
          const { names, error } = selectedSeries(target.expr);
          if (error) problems.push(`${file} · ${panel.title}: ${error}`);
          if (names.length === 0) problems.push(`${file} · ${panel.title}: selects no series`);
          for (const name of names)
            if (!exported.has(name)) problems.push(`${file} · ${panel.title}: ${name} is not exported`);
        }
      }
    }
    expect(expressions).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });
});
