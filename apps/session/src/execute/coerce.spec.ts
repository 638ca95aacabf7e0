import { META_TOOLS } from '@rota/contracts';
import { alwaysGated, requiredScope } from './resolve';
import { coerceArgs } from './validate';

const schemaOf = (name: string) => META_TOOLS.find((t) => t.name === name)!.inputSchema;

describe('coerceArgs', () => {
  const schema = {
    type: 'object',
    properties: {
      n: { type: 'number' },
      i: { type: 'integer', minimum: 1, maximum: 20 },
      b: { type: 'boolean' },
      s: { type: 'string', enum: ['a', 'b'] },
      free: { type: 'string' },
      maybe: { type: ['integer', 'null'] },
      nested: { type: 'object', properties: { qty: { type: 'integer' } } },
      list: { type: 'array', items: { type: 'object', properties: { price: { type: 'number' } } } },
    },
    required: ['i'],
  };

  it('turns numeric and boolean strings into numbers and booleans', () => {
    expect(coerceArgs({ n: '-1.5e2', i: ' 7 ', b: 'False', s: 'a' }, schema)).toEqual({
      ok: true,
      value: { n: -150, i: 7, b: false, s: 'a' },
    });
  });

  it('converts numbers and booleans given for a string field', () => {
    expect(coerceArgs({ free: 12 }, schema)).toEqual({ ok: true, value: { free: '12' } });
    expect(coerceArgs({ free: true }, schema)).toEqual({ ok: true, value: { free: 'true' } });
  });

  it('walks nested objects and arrays', () => {
    const r = coerceArgs({ nested: { qty: '3' }, list: [{ price: '9.90' }, { price: 1 }] }, schema);
    expect(r).toEqual({ ok: true, value: { nested: { qty: 3 }, list: [{ price: 9.9 }, { price: 1 }] } });
    expect(coerceArgs({ list: [{ price: 'cheap' }] }, schema)).toEqual({
      ok: false,
      issues: [{ path: ['list', 0, 'price'], message: 'expected number, received string "cheap"' }],
    });
  });

  it('drops null for an optional field that does not allow it, keeps it where the schema allows null', () => {
    expect(coerceArgs({ n: null, maybe: null }, schema)).toEqual({ ok: true, value: { maybe: null } });
    expect(coerceArgs({ maybe: '4' }, schema)).toEqual({ ok: true, value: { maybe: 4 } });
    expect(coerceArgs({ i: null }, schema)).toMatchObject({ ok: false, issues: [{ path: ['i'] }] });
  });

  it.each([
    [{ n: 'abc' }, ['n']],
    [{ n: '' }, ['n']],
    [{ n: '0x10' }, ['n']],
    [{ n: 'Infinity' }, ['n']],
    [{ i: '2.5' }, ['i']],
    [{ b: 'yes' }, ['b']],
    [{ b: 1 }, ['b']],
    [{ nested: 'x' }, ['nested']],
    [{ list: {} }, ['list']],
  ])('reports what cannot be coerced: %j', (input, path) => {
    const r = coerceArgs(input, schema);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((x) => x.path)).toEqual([path]);
  });

  it('reports every bad field at once', () => {
    const r = coerceArgs({ n: 'x', b: 'y' }, schema);
    expect(r.ok ? [] : r.issues.map((x) => x.path[0])).toEqual(['n', 'b']);
  });

  it('leaves unknown fields and schemaless tools alone and does not enforce required fields', () => {
    expect(coerceArgs({ other: '5' }, schema)).toEqual({ ok: true, value: { other: '5' } });
    expect(coerceArgs({ anything: { x: 1 } }, null)).toEqual({ ok: true, value: { anything: { x: 1 } } });
    expect(coerceArgs({}, schema)).toEqual({ ok: true, value: {} });
  });

  it('leaves every keyword but the types to the validator', () => {
    expect(coerceArgs({ i: '0', s: 'c' }, schema)).toEqual({ ok: true, value: { i: 0, s: 'c' } });
    expect(coerceArgs({ i: 21 }, schema)).toEqual({ ok: true, value: { i: 21 } });
    expect(coerceArgs({ country: 'Brazil' }, schemaOf('codespar_discover'))).toEqual({
      ok: true,
      value: { country: 'Brazil' },
    });
  });

  it('works on the published meta-tool schemas', () => {
    expect(coerceArgs({ use_case: 'pix', limit: '3' }, schemaOf('codespar_discover'))).toEqual({
      ok: true,
      value: { use_case: 'pix', limit: 3 },
    });
    expect(coerceArgs({ limit: 'thirty' }, schemaOf('codespar_discover')).ok).toBe(false);
    expect(coerceArgs({ amount: '59.90', method: 'pix' }, schemaOf('codespar_charge'))).toMatchObject({
      ok: true,
      value: { amount: 59.9 },
    });
    expect(coerceArgs({ dynamic: 'maybe' }, schemaOf('codespar_wallet')).ok).toBe(false);
  });
});

describe('requiredScope', () => {
  it('maps connection reads to servers:read, connection writes to connections:write, the rest to tools:execute', () => {
    expect(requiredScope('codespar_discover', { use_case: 'x' })).toBe('tools:execute');
    expect(requiredScope('codespar_manage_connections', {})).toBe('servers:read');
    expect(requiredScope('codespar_manage_connections', { action: 'status' })).toBe('servers:read');
    expect(requiredScope('codespar_manage_connections', { action: 'connect_finish' })).toBe('connections:write');
    expect(requiredScope('codespar_pay', { action: 'pay' })).toBe('tools:execute');
    expect(requiredScope('zzpay/create_payment', {})).toBe('tools:execute');
    // Reading connections needs servers:read whatever the deployment's flag says; writing goes by the flag.
    expect(
      alwaysGated('codespar_manage_connections', requiredScope('codespar_manage_connections', { action: 'list' })),
    ).toBe(true);
    expect(
      alwaysGated(
        'codespar_manage_connections',
        requiredScope('codespar_manage_connections', { action: 'connect_start' }),
      ),
    ).toBe(false);
    expect(alwaysGated('codespar_pay', 'tools:execute')).toBe(false);
  });
});
