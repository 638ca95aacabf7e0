/**
 * Amounts as policy rules compare them: integers in the currency's minor
 * units, as `bigint`. A major-unit amount (150.10 BRL) is converted from its
 * decimal text with integer arithmetic only, so 0.1 + 0.2 never happens: a
 * binary float would round some amounts a cent below or above a limit.
 */

/** Digits after the decimal point per currency: ISO 4217, plus the coins `codespar_crypto_pay` accepts. */
export const CURRENCY_EXPONENTS: Readonly<Record<string, number>> = {
  // Latin America first: the currencies Rota's rails carry.
  BRL: 2,
  MXN: 2,
  COP: 2,
  ARS: 2,
  CLP: 0,
  PEN: 2,
  UYU: 2,
  PYG: 0,
  BOB: 2,
  CRC: 2,
  DOP: 2,
  GTQ: 2,
  HNL: 2,
  NIO: 2,
  PAB: 2,
  VES: 2,
  USD: 2,
  EUR: 2,
  GBP: 2,
  CAD: 2,
  CHF: 2,
  AUD: 2,
  CNY: 2,
  INR: 2,
  ZAR: 2,
  JPY: 0,
  KRW: 0,
  VND: 0,
  ISK: 0,
  XOF: 0,
  XAF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
  USDC: 6,
  USDT: 6,
  BTC: 8,
  ETH: 18,
  MATIC: 18,
};

const DECIMAL = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

/**
 * `value` (a number or its decimal text, in major units) as minor units of a
 * currency with `exponent` digits. Null when it is negative, not a finite
 * decimal, or finer than the currency's minor unit (10.005 BRL).
 */
export function majorToMinor(value: number | string, exponent: number): bigint | null {
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  // A JS number's shortest round-trip text is the decimal the caller wrote.
  const text = (typeof value === 'number' ? String(value) : value).trim();
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const digits = m[1]! + (m[2] ?? '');
  const scale = (m[2] ?? '').length - Number(m[3] ?? '0');
  // digits × 10^-scale major units = digits × 10^(exponent - scale) minor units.
  const shift = exponent - scale;
  if (shift >= 0) return BigInt(digits) * 10n ** BigInt(shift);
  const padded = digits.padStart(-shift, '0');
  const kept = padded.slice(0, padded.length + shift);
  // Digits below the minor unit must all be zero.
  if (/[^0]/.test(padded.slice(padded.length + shift))) return null;
  return BigInt(kept === '' ? '0' : kept);
}

/** Where a meta-tool carries its amount, and in which unit (from its input schema). */
const AMOUNT_UNITS: Readonly<Record<string, 'minor' | 'major'>> = {
  codespar_pay: 'minor',
  codespar_wallet: 'minor',
  codespar_charge: 'major',
  codespar_checkout: 'major',
  codespar_crypto_pay: 'major',
};

export type CallAmount =
  { kind: 'none' } | { kind: 'amount'; minor: bigint; currency: string } | { kind: 'invalid'; reason: string };

/**
 * The amount a call moves, read from its coerced arguments. `none` when the
 * tool carries no amount or this call names none (a status lookup).
 */
export function callAmount(tool: string, args: Record<string, unknown>): CallAmount {
  const unit = AMOUNT_UNITS[tool];
  if (!unit || args.amount === undefined || args.amount === null) return { kind: 'none' };
  const currency = typeof args.currency === 'string' ? args.currency.trim().toUpperCase() : '';
  if (!currency) return { kind: 'invalid', reason: `${tool} names an amount without a currency.` };
  const exponent = CURRENCY_EXPONENTS[currency];
  if (exponent === undefined)
    return { kind: 'invalid', reason: `${currency} is not a currency the policy engine knows.` };
  const raw = args.amount;
  if (typeof raw !== 'number' && typeof raw !== 'string')
    return { kind: 'invalid', reason: 'The amount is not a number.' };
  if (unit === 'minor') {
    const minor = majorToMinor(raw, 0);
    return minor === null
      ? { kind: 'invalid', reason: 'The amount is not a whole number of minor units.' }
      : { kind: 'amount', minor, currency };
  }
  const minor = majorToMinor(raw, exponent);
  return minor === null
    ? { kind: 'invalid', reason: `The amount is not a whole number of ${currency} minor units.` }
    : { kind: 'amount', minor, currency };
}
