import { bodyProblem, MAX_BODY_DEPTH, urlContainsNul } from './body-guard';

const nest = (leaf: unknown, levels: number): unknown => {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = i % 2 ? { a: v } : [v];
  return v;
};

describe('request body guard', () => {
  it('finds a NUL in nested strings and keys', () => {
    expect(bodyProblem({ a: [{ b: 'x\u0000' }] })).toBe('nul');
    expect(bodyProblem({ ['k\u0000']: 1 })).toBe('nul');
    expect(bodyProblem({ a: [1, true, null, { b: 'fine' }] })).toBeNull();
    expect(bodyProblem(undefined)).toBeNull();
  });

  it.each([
    ['a lone high surrogate in a value', { a: 'x\uD800y' }, 'lone_surrogate'],
    ['a lone high surrogate at the end', { a: ['fine', 'x\uDBFF'] }, 'lone_surrogate'],
    ['a lone low surrogate', { a: { b: '\uDC00' } }, 'lone_surrogate'],
    ['two surrogates in the wrong order', { a: '\uDC00\uD800' }, 'lone_surrogate'],
    ['a lone surrogate in a key', { ['k\uDFFF']: 1 }, 'lone_surrogate'],
    ['a lone surrogate parsed from a JSON escape', JSON.parse('{"q":"\\ud83d"}'), 'lone_surrogate'],
    ['a paired surrogate (an emoji)', { a: 'pay \uD83D\uDCB8', ['\uD83D\uDE00']: 'ok' }, null],
    ['text outside the BMP next to plain text', { a: 'a\u{1F600}b\u00e9' }, null],
  ])('judges %s', (_name, body, expected) => {
    expect(bodyProblem(body)).toBe(expected);
  });

  it('works from its own source text, as the off-thread parser runs it', () => {
    const copy = new Function(`return ${bodyProblem.toString()}`)() as typeof bodyProblem;
    expect(copy({ a: ['x\uD800'] }, MAX_BODY_DEPTH)).toBe('lone_surrogate');
    expect(copy({ a: 'x\u0000' }, MAX_BODY_DEPTH)).toBe('nul');
    expect(copy({ a: 'pay \uD83D\uDCB8' }, MAX_BODY_DEPTH)).toBeNull();
  });

  it('accepts nesting up to the limit and refuses one level more', () => {
    expect(bodyProblem(nest('fine', MAX_BODY_DEPTH))).toBeNull();
    expect(bodyProblem(nest('fine', MAX_BODY_DEPTH + 1))).toBe('too_deep');
    // A scalar leaf adds no level; an empty object or array does.
    expect(bodyProblem(nest(1, MAX_BODY_DEPTH))).toBeNull();
    expect(bodyProblem(nest({}, MAX_BODY_DEPTH))).toBe('too_deep');
    expect(bodyProblem(nest([], MAX_BODY_DEPTH))).toBe('too_deep');
  });

  it('walks a body as deep as its size allows without recursing', () => {
    expect(bodyProblem(nest('x', 200_000))).toBe('too_deep');
    expect(bodyProblem(nest('x\u0000y', 50), 1_000_000)).toBe('nul');
  });

  it('finds raw and percent-encoded NULs in URLs', () => {
    expect(urlContainsNul('/v1/servers/%00/tools')).toBe(true);
    expect(urlContainsNul('/v1/servers/a%2500/tools')).toBe(false);
    expect(urlContainsNul('/v1/providers?q=%00')).toBe(true);
    expect(urlContainsNul('/v1/providers?q=pix')).toBe(false);
  });
});
