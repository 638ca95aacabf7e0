import { META_TOOLS, type MetaToolName } from '@rota/contracts';
import { CatalogSchemas, checkMetaArgs } from './validate';

const meta = (name: MetaToolName, input: Record<string, unknown>) =>
  checkMetaArgs(
    input,
    META_TOOLS.find((t) => t.name === name)!,
  );
const paths = (r: ReturnType<typeof meta>) => (r.ok ? [] : r.issues.map((i) => i.path));

describe('checkMetaArgs', () => {
  it('coerces first, then validates with the zod input, and passes the coerced arguments on without defaults', () => {
    expect(meta('codespar_discover', { use_case: 'pix', limit: '3' })).toEqual({
      ok: true,
      value: { use_case: 'pix', limit: 3 },
    });
    expect(meta('codespar_discover', { use_case: 'pix', extra: true })).toEqual({
      ok: true,
      value: { use_case: 'pix', extra: true },
    });
    expect(meta('codespar_discover', { use_case: 'pix', limit: 'abc' })).toMatchObject({
      ok: false,
      issues: [{ path: ['limit'], message: expect.stringContaining('expected integer') }],
    });
  });

  it('refuses what breaks a keyword of the published schema', () => {
    expect(paths(meta('codespar_discover', { use_case: 'pix', limit: '30' }))).toEqual([['limit']]);
    expect(paths(meta('codespar_discover', { use_case: 'pix', country: 'Brazil' }))).toEqual([['country']]);
    expect(meta('codespar_discover', { use_case: 'pix', country: '*' }).ok).toBe(true);
    expect(paths(meta('codespar_manage_connections', { action: 'unlink' }))).toEqual([['action']]);
    expect(paths(meta('codespar_checkout', { items: [] }))).toEqual([['items']]);
    expect(paths(meta('codespar_wallet', { action: 'statement', limit: '0' }))).toEqual([['limit']]);
  });

  it('names missing required fields', () => {
    const r = meta('codespar_charge', { amount: '59.90', currency: 'BRL', method: 'pix' });
    expect(r).toEqual({
      ok: false,
      issues: [
        { path: ['description'], message: 'is required' },
        { path: ['buyer'], message: 'is required' },
      ],
    });
  });

  it('accepts query for a missing use_case and explains an empty discover call', () => {
    expect(meta('codespar_discover', { query: 'send a pix' })).toEqual({ ok: true, value: { query: 'send a pix' } });
    const r = meta('codespar_discover', { use_case: ' ' });
    expect(r).toEqual({
      ok: false,
      issues: [{ path: ['use_case'], message: 'use_case (or its alias query) must describe what you want to do' }],
    });
  });
});

describe('CatalogSchemas', () => {
  // The schema of the coercion tests: the keywords coercion no longer checks are refused here.
  const schema = {
    type: 'object',
    properties: {
      i: { type: 'integer', minimum: 1, maximum: 20 },
      s: { type: 'string', enum: ['a', 'b'] },
      list: {
        type: 'array',
        items: { type: 'object', properties: { qty: { type: 'integer', minimum: 1 } }, required: ['qty'] },
      },
    },
    required: ['i'],
  };

  it.each([
    [{ i: '0' }, [['i']], 'must be >= 1'],
    [{ i: 21 }, [['i']], 'must be <= 20'],
    [{ i: 1, s: 'c' }, [['s']], 'must be one of "a", "b"'],
    [{ s: 'a' }, [['i']], 'is required'],
    [{ i: 1, list: [{ qty: 1 }, { qty: '0' }] }, [['list', 1, 'qty']], 'must be >= 1'],
    [{ i: 1, list: [{}] }, [['list', 0, 'qty']], 'is required'],
  ])('refuses %j', (input, expected, message) => {
    const r = new CatalogSchemas().check(input, schema);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues.map((x) => x.path)).toEqual(expected);
      expect(r.issues[0]!.message).toBe(message);
    }
  });

  it('passes the coerced arguments on, unknown fields included', () => {
    expect(new CatalogSchemas().check({ i: ' 7 ', s: 'b', other: 'x' }, schema)).toEqual({
      ok: true,
      value: { i: 7, s: 'b', other: 'x' },
    });
  });

  it('reports a field that cannot be coerced once, without a second issue from the validator', () => {
    expect(new CatalogSchemas().check({ i: 'seven' }, schema)).toEqual({
      ok: false,
      issues: [{ path: ['i'], message: 'expected integer, received string "seven"' }],
    });
  });

  it('never turns null into a number', () => {
    const anyOf = {
      type: 'object',
      properties: { n: { anyOf: [{ type: 'integer' }, { type: 'string', minLength: 1 }] } },
      required: ['n'],
    };
    const r = new CatalogSchemas().check({ n: null }, anyOf);
    expect(r.ok).toBe(false);
    expect(paths(r)).toContainEqual(['n']);
  });

  it('covers the keywords a hand-written subset did not: minLength, minItems, formats, additionalProperties, oneOf', () => {
    const rich = {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2 },
        tags: { type: 'array', minItems: 1, uniqueItems: true },
        email: { type: 'string', format: 'email' },
        when: { type: 'string', format: 'date' },
        pay: { oneOf: [{ type: 'string' }, { type: 'object', required: ['bank'] }] },
      },
      additionalProperties: false,
    };
    const v = new CatalogSchemas();
    expect(paths(v.check({ name: 'a' }, rich))).toEqual([['name']]);
    expect(paths(v.check({ tags: [] }, rich))).toEqual([['tags']]);
    expect(paths(v.check({ tags: ['x', 'x'] }, rich))).toEqual([['tags']]);
    expect(paths(v.check({ email: 'not-an-address' }, rich))).toEqual([['email']]);
    expect(paths(v.check({ when: '2025-02-30' }, rich))).toEqual([['when']]);
    expect(v.check({ pay: { agency: 1 } }, rich).ok).toBe(false);
    expect(v.check({ extra: 1 }, rich)).toEqual({
      ok: false,
      issues: [{ path: ['extra'], message: 'is not allowed' }],
    });
    expect(v.check({ name: 'ab', tags: ['x'], email: 'a@b.co', when: '2025-02-28', pay: 'key' }, rich).ok).toBe(true);
  });

  it('reads the draft from $schema: 2020-12 when named, draft-07 otherwise', () => {
    const tuple = {
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'integer' }] } },
    };
    const v = new CatalogSchemas();
    expect(v.check({ pair: [1, 'x'] }, { $schema: 'https://json-schema.org/draft/2020-12/schema', ...tuple }).ok).toBe(
      false,
    );
    // draft-07 has no prefixItems: an unknown keyword there, ignored rather than fatal.
    expect(v.check({ pair: [1, 'x'] }, tuple)).toEqual({ ok: true, value: { pair: [1, 'x'] } });
    const draft07Tuple = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'integer' }, { type: 'integer' }] } },
    };
    expect(v.check({ pair: [1, 'x'] }, draft07Tuple).ok).toBe(false);
  });

  it('tolerates unknown keywords and formats of third-party catalogs, and tools that reuse one $id', () => {
    const v = new CatalogSchemas();
    const a = {
      $id: 'https://example.com/tool',
      type: 'object',
      'x-provider': { ui: 'wide' },
      properties: { ref: { type: 'string', format: 'provider-ref' } },
      required: ['ref'],
    };
    const b = {
      $id: 'https://example.com/tool',
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
    };
    expect(v.check({ ref: 'anything' }, a).ok).toBe(true);
    expect(paths(v.check({}, b))).toEqual([['n']]);
    expect(paths(v.check({}, a))).toEqual([['ref']]);
  });

  it('leaves a schema it cannot compile unchecked, says why, and does not retry it on every call', () => {
    const v = new CatalogSchemas();
    const broken = { type: 'object', properties: { x: { type: 'string', pattern: '(?<' } } };
    const r = v.check({ x: 'a' }, broken);
    expect(r).toEqual({ ok: true, value: { x: 'a' }, unchecked: expect.stringContaining('regular expression') });
    expect(v.check({ x: 'a' }, { type: 'object', properties: { x: { type: 'strng' } } })).toMatchObject({
      ok: true,
      unchecked: expect.any(String),
    });
    expect(v.size).toBe(2);
    v.check({ x: 'b' }, structuredClone(broken));
    expect(v.size).toBe(2);
    // A pattern JavaScript can read is applied.
    expect(
      paths(v.check({ x: 'a' }, { type: 'object', properties: { x: { type: 'string', pattern: '^b' } } })),
    ).toEqual([['x']]);
  });

  it('accepts anything when a tool has no schema', () => {
    expect(new CatalogSchemas().check({ anything: { x: 1 } }, null)).toEqual({
      ok: true,
      value: { anything: { x: 1 } },
    });
  });

  it('compiles a schema once per content and holds a bounded number', () => {
    const v = new CatalogSchemas(2);
    const withMin = (n: number) => ({ type: 'object', properties: { q: { type: 'integer', minimum: n } } });
    expect(v.check({ q: 1 }, withMin(1)).ok).toBe(true);
    expect(v.check({ q: 1 }, withMin(1)).ok).toBe(true);
    expect(v.size).toBe(1);
    expect(v.check({ q: 1 }, withMin(2)).ok).toBe(false);
    expect(v.check({ q: 1 }, withMin(3)).ok).toBe(false);
    expect(v.size).toBe(2);
    // The evicted schema compiles again and still validates.
    expect(v.check({ q: 0 }, withMin(1)).ok).toBe(false);
    expect(v.size).toBe(2);
  });
});
