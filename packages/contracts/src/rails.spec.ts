import {
  actionOf,
  fromMinorAmount,
  isAmountProblem,
  minorToMajorString,
  parseMajorAmount,
  RailDefinition,
  type ExactAmount,
} from './rails';

const ok = (x: ReturnType<typeof parseMajorAmount>): ExactAmount => {
  if (isAmountProblem(x)) throw new Error(`expected an amount, got: ${x.message}`);
  return x;
};
const problem = (x: ReturnType<typeof parseMajorAmount>): string => {
  if (!isAmountProblem(x)) throw new Error(`expected a refusal, got ${JSON.stringify(x)}`);
  return x.message;
};

describe('exact money', () => {
  it.each([
    [49.9, 'BRL', '4990', '49.90'],
    [0.1, 'BRL', '10', '0.10'],
    [1.005, 'KWD', '1005', '1.005'],
    [1500, 'CLP', '1500', '1500'],
    [0.29, 'USD', '29', '0.29'],
    [1e21, 'USDC', '1000000000000000000000000000', '1000000000000000000000.000000'],
    [1e-6, 'USDC', '1', '0.000001'],
    [0.1, 'BTC', '10000000', '0.10000000'],
  ])('reads %p %s as %s minor units exactly (%s)', (value, currency, minor, major) => {
    expect(ok(parseMajorAmount(value, currency))).toMatchObject({ minor, major, currency });
  });

  it('never goes through a float product: 0.29 and 1.13 stay exact where x100 would not', () => {
    expect(0.29 * 100).not.toBe(29);
    expect(ok(parseMajorAmount(0.29, 'BRL')).minor).toBe('29');
    expect(1.13 * 100).not.toBe(113);
    expect(ok(parseMajorAmount(1.13, 'BRL')).minor).toBe('113');
  });

  it.each([
    [49.999, 'BRL', /at most 2 decimal places/],
    [10.5, 'CLP', /whole numbers/],
    [-1, 'BRL', /negative/],
    [0, 'BRL', /above zero/],
    [Number.NaN, 'BRL', /finite/],
    [Number.POSITIVE_INFINITY, 'BRL', /finite/],
    [1e-7, 'BRL', /decimal places/],
    [1e300, 'BRL', /out of range/],
    ['49.90', 'BRL', /finite number/],
    [10, 'XYZ', /not a currency/],
  ])('refuses %p %s', (value, currency, why) => {
    expect(problem(parseMajorAmount(value, currency))).toMatch(why);
  });

  it('accepts zero only when asked to', () => {
    expect(ok(parseMajorAmount(0, 'BRL', { allowZero: true })).minor).toBe('0');
    expect(ok(fromMinorAmount(0, 'BRL', { allowZero: true })).major).toBe('0.00');
  });

  it('checks minor-unit integers the same way', () => {
    expect(ok(fromMinorAmount(4990, 'BRL'))).toMatchObject({ major: '49.90', value: 49.9 });
    expect(problem(fromMinorAmount(49.9, 'BRL'))).toMatch(/whole number/);
    expect(problem(fromMinorAmount(-5, 'BRL'))).toMatch(/negative/);
    expect(problem(fromMinorAmount(2 ** 53, 'BRL'))).toMatch(/whole number/);
  });

  it('writes minor units back in major units with the exponent', () => {
    expect(minorToMajorString(5n, 2)).toBe('0.05');
    expect(minorToMajorString(-1234n, 2)).toBe('-12.34');
    expect(minorToMajorString(7n, 0)).toBe('7');
  });
});

describe('rails as data', () => {
  const base = {
    id: 'acme.pix.in',
    provider_id: 'acme',
    tool: 'codespar_charge',
    method: 'pix',
    direction: 'in',
    currencies: ['BRL'],
    countries: ['BR'],
    fastest: 'instant',
    cost: { fixed_minor: {}, bps: 99 },
    nominal_latency_ms: 300,
  };
  const binding = { catalog_tool: 'create_payment', request: '{}', result: '{}' };

  it('accepts a rail whose actions its meta-tool has', () => {
    expect(RailDefinition.safeParse({ ...base, actions: { charge: binding, refund: binding } }).success).toBe(true);
  });

  it.each([
    ['an action the tool does not have', { actions: { pay: binding } }],
    ['an id that does not start with the provider', { id: 'other.pix.in' }],
    ['an id whose direction disagrees', { id: 'acme.pix.out' }],
    ['a routed tool with an unknown method', { method: 'teleport' }],
    ['an unknown field', { surprise: true }],
  ])('refuses %s', (_what, change) => {
    expect(RailDefinition.safeParse({ ...base, ...change }).success).toBe(false);
  });

  it('keys each call by its action, or the one operation of tools without one', () => {
    expect(actionOf('codespar_charge', {})).toBe('charge');
    expect(actionOf('codespar_charge', { action: 'refund' })).toBe('refund');
    expect(actionOf('codespar_checkout', { action: 'ignored' })).toBe('create');
    expect(actionOf('codespar_kyc', { check_type: 'sanctions' })).toBe('sanctions');
    expect(actionOf('codespar_crypto_pay', { direction: 'receive' })).toBe('receive');
  });
});
