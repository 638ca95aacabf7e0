import { counter, gauge, histogram, renderMetrics } from './metrics';
import { parsePrometheusText } from './testing/prometheus-text';

describe('metrics registry', () => {
  it('hands back the same series on a second registration and renders valid exposition text', async () => {
    const a = counter({ name: 'rota_spec_things_total', help: 'Things.', labelNames: ['kind'] });
    const b = counter({ name: 'rota_spec_things_total', help: 'Things.', labelNames: ['kind'] });
    expect(b).toBe(a);
    a.inc({ kind: 'with "quotes" and \\ and\nnewline' });
    b.inc({ kind: 'plain' }, 2);
    histogram({ name: 'rota_spec_seconds', help: 'Time.', labelNames: ['route'] }).observe({ route: '/v1/x' }, 0.003);
    gauge({
      name: 'rota_spec_depth',
      help: 'Depth.',
      labelNames: ['queue'],
      collect() {
        this.set({ queue: 'q' }, 7);
      },
    });
    const { contentType, body } = await renderMetrics();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusText(body);
    const things = families.find((f) => f.name === 'rota_spec_things_total')!;
    expect(things.type).toBe('counter');
    expect(things.samples.map((s) => [s.labels.kind, s.value])).toEqual(
      expect.arrayContaining([
        ['with "quotes" and \\ and\nnewline', 1],
        ['plain', 2],
      ]),
    );
    const seconds = families.find((f) => f.name === 'rota_spec_seconds')!;
    expect(seconds.type).toBe('histogram');
    expect(seconds.samples.find((s) => s.name === 'rota_spec_seconds_count')?.value).toBe(1);
    expect(families.find((f) => f.name === 'rota_spec_depth')?.samples).toEqual([
      { name: 'rota_spec_depth', labels: { queue: 'q' }, value: 7 },
    ]);
    // The default process series come along.
    expect(families.some((f) => f.name === 'rota_process_cpu_user_seconds_total')).toBe(true);
  });
});

describe('parsePrometheusText', () => {
  const ok = '# HELP x_total X.\n# TYPE x_total counter\nx_total{a="1"} 3\nx_total{a="2"} 4 1700000000000\n';

  it('accepts well-formed text', () => {
    expect(parsePrometheusText(ok)).toEqual([
      {
        name: 'x_total',
        type: 'counter',
        help: 'X.',
        samples: [
          { name: 'x_total', labels: { a: '1' }, value: 3 },
          { name: 'x_total', labels: { a: '2' }, value: 4 },
        ],
      },
    ]);
  });

  it.each([
    ['a bad metric name', '1x 3\n'],
    ['a value that is not a number', 'x 3a\n'],
    ['an unterminated label value', 'x{a="1} 3\n'],
    ['a bad escape', 'x{a="\\q"} 3\n'],
    ['a label twice', 'x{a="1",a="2"} 3\n'],
    ['a series twice', 'x{a="1"} 3\nx{a="1"} 4\n'],
    ['TYPE after samples', 'x 1\n# TYPE x counter\n'],
    ['an unknown type', '# TYPE x widget\n'],
    ['samples split apart', 'x 1\ny 2\nx{a="1"} 3\n'],
    ['a bucket without le', '# TYPE h histogram\nh_bucket 1\nh_count 1\nh_sum 1\n'],
    ['buckets that shrink', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\nh_sum 1\n'],
    ['a +Inf bucket that differs from the count', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_count 1\nh_sum 1\n'],
    ['no value', 'x{a="1"}\n'],
  ])('refuses %s', (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
