import { callAmount, majorToMinor } from './amounts';

describe('majorToMinor', () => {
  it('converts major units exactly, with integer arithmetic', () => {
    expect(majorToMinor(150.1, 2)).toBe(15010n);
    expect(majorToMinor('150.10', 2)).toBe(15010n);
    // 0.1 + 0.2 is 0.30000000000000004 as a float: never reached here.
    expect(majorToMinor(0.3, 2)).toBe(30n);
    expect(majorToMinor(1.005, 3)).toBe(1005n);
    expect(majorToMinor(59.9, 2)).toBe(5990n);
    expect(majorToMinor(100, 0)).toBe(100n);
    expect(majorToMinor('0.05', 18)).toBe(50_000_000_000_000_000n);
    expect(majorToMinor(1e21, 2)).toBe(10n ** 23n);
    expect(majorToMinor(1.5e-7, 8)).toBe(15n);
    expect(majorToMinor('9007199254740993.01', 2)).toBe(900719925474099301n);
  });

  it('refuses what is not a whole number of minor units, negative or not finite', () => {
    expect(majorToMinor(10.005, 2)).toBeNull();
    expect(majorToMinor(1.5, 0)).toBeNull();
    expect(majorToMinor(-1, 2)).toBeNull();
    expect(majorToMinor(Number.NaN, 2)).toBeNull();
    expect(majorToMinor(Number.POSITIVE_INFINITY, 2)).toBeNull();
    expect(majorToMinor('1,50', 2)).toBeNull();
    expect(majorToMinor('', 2)).toBeNull();
  });

  it('accepts trailing zeros below the minor unit', () => {
    expect(majorToMinor('10.500', 2)).toBe(1050n);
  });
});

describe('callAmount', () => {
  it('reads codespar_pay in minor units and codespar_charge in major units', () => {
    expect(callAmount('codespar_pay', { action: 'pay', amount: 5000, currency: 'BRL' })).toEqual({
      kind: 'amount',
      minor: 5000n,
      currency: 'BRL',
    });
    expect(callAmount('codespar_charge', { amount: 150.1, currency: 'brl' })).toEqual({
      kind: 'amount',
      minor: 15010n,
      currency: 'BRL',
    });
    expect(callAmount('codespar_charge', { amount: 1500, currency: 'CLP' })).toEqual({
      kind: 'amount',
      minor: 1500n,
      currency: 'CLP',
    });
    expect(callAmount('codespar_charge', { amount: 1.234, currency: 'KWD' })).toEqual({
      kind: 'amount',
      minor: 1234n,
      currency: 'KWD',
    });
  });

  it('is none for tools and calls without an amount', () => {
    expect(callAmount('codespar_discover', { use_case: 'x', amount: 5 })).toEqual({ kind: 'none' });
    expect(callAmount('codespar_pay', { action: 'status', payment_id: 'p1' })).toEqual({ kind: 'none' });
  });

  it('is invalid without a currency, with an unknown one, or below the minor unit', () => {
    expect(callAmount('codespar_pay', { action: 'pay', amount: 10 }).kind).toBe('invalid');
    expect(callAmount('codespar_charge', { amount: 10, currency: 'XYZ' }).kind).toBe('invalid');
    expect(callAmount('codespar_charge', { amount: 10.001, currency: 'BRL' }).kind).toBe('invalid');
  });
});
