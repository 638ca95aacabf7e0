import { containsNul, urlContainsNul } from './nul';

describe('NUL detection', () => {
  it('finds a NUL in nested strings and keys', () => {
    expect(containsNul({ a: [{ b: 'x\u0000' }] })).toBe(true);
    expect(containsNul({ ['k\u0000']: 1 })).toBe(true);
    expect(containsNul({ a: [1, true, null, { b: 'fine' }] })).toBe(false);
    expect(containsNul(undefined)).toBe(false);
  });
  it('finds raw and percent-encoded NULs in URLs', () => {
    expect(urlContainsNul('/v1/servers/%00/tools')).toBe(true);
    expect(urlContainsNul('/v1/servers/a%2500/tools')).toBe(false);
    expect(urlContainsNul('/v1/providers?q=%00')).toBe(true);
    expect(urlContainsNul('/v1/providers?q=pix')).toBe(false);
  });
});
