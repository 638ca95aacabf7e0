/**
 * Amounts written the way people write them in Portuguese, Spanish and
 * English: "R$ 49,90", "$1.200,50", "49.90 USD", "1,200.50", "2 mil reais",
 * "S/ 150", "€20". Pure.
 */

/** A money amount found in text. */
export interface MoneyMention {
  /** In major units. */
  amount: number;
  /** Null when the text only says `$` or "pesos": the country decides which currency. */
  currency: string | null;
  /** Why `currency` is null. */
  ambiguous?: 'dollar_sign' | 'pesos';
}

const NUMBER = String.raw`\d{1,3}(?:[.,]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d+)?`;
const SCALE = String.raw`(?:\s?(mil|k)\b)?`;

/** Symbols and codes written before the number. */
const PREFIXES: ReadonlyArray<[string, string | null]> = [
  ['r$', 'BRL'],
  ['us$', 'USD'],
  ['u$s', 'USD'],
  ['mx$', 'MXN'],
  ['col$', 'COP'],
  ['clp$', 'CLP'],
  ['s/.', 'PEN'],
  ['s/', 'PEN'],
  ['€', 'EUR'],
  ['$', null],
];

/** Words and codes written after the number, longest first so "pesos chilenos" wins over "pesos". */
const SUFFIXES: ReadonlyArray<[string, string | null]> = [
  ['pesos mexicanos', 'MXN'],
  ['pesos colombianos', 'COP'],
  ['pesos chilenos', 'CLP'],
  ['pesos argentinos', 'ARS'],
  ['pesos uruguayos', 'UYU'],
  ['dólares', 'USD'],
  ['dolares', 'USD'],
  ['dollars', 'USD'],
  ['dollar', 'USD'],
  ['bucks', 'USD'],
  ['reais', 'BRL'],
  ['real', 'BRL'],
  ['euros', 'EUR'],
  ['euro', 'EUR'],
  ['soles', 'PEN'],
  ['sol', 'PEN'],
  ['pesos', null],
  ['peso', null],
  ['€', 'EUR'],
];

const CODE = String.raw`[a-z]{3}`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const PREFIX_RE = new RegExp(
  String.raw`(^|[^a-z0-9])(${PREFIXES.map(([p]) => escape(p)).join('|')}|${CODE})\s?(${NUMBER})${SCALE}`,
  'g',
);
const SUFFIX_RE = new RegExp(
  String.raw`(?:^|[^\d.,])(${NUMBER})${SCALE}\s?(${SUFFIXES.map(([s]) => escape(s)).join('|')}|${CODE})(?![a-z])`,
  'g',
);

/**
 * Reads "1.200,50", "1,200.50", "49,90", "49.90", "1.200" (a thousand and two
 * hundred) and "1,5" (one and a half). With both separators the last one is
 * the decimal point; with one, a group of exactly three digits after it is a
 * thousands group.
 */
export function parseNumber(text: string): number | null {
  const lastDot = text.lastIndexOf('.');
  const lastComma = text.lastIndexOf(',');
  let normal: string;
  if (lastDot >= 0 && lastComma >= 0) {
    const dec = lastDot > lastComma ? '.' : ',';
    const group = dec === '.' ? ',' : '.';
    normal = text.split(group).join('').replace(dec, '.');
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ',';
    const parts = text.split(sep);
    const grouped = parts.length > 2 || parts[parts.length - 1]!.length === 3;
    normal = grouped ? parts.join('') : parts.join('.');
  } else {
    normal = text;
  }
  const n = Number(normal);
  return Number.isFinite(n) ? n : null;
}

function scaled(n: number, scale: string | undefined): number {
  return scale === 'mil' || scale === 'k' ? n * 1000 : n;
}

/** `isCode(code)` decides whether three letters are a currency code (upper-cased). */
export function findMoney(text: string, isCode: (code: string) => boolean): MoneyMention | null {
  const lower = text.toLowerCase();
  PREFIX_RE.lastIndex = 0;
  for (let m = PREFIX_RE.exec(lower); m; m = PREFIX_RE.exec(lower)) {
    const marker = m[2]!;
    const known = PREFIXES.find(([p]) => p === marker);
    if (!known && !isCode(marker.toUpperCase())) continue;
    const n = parseNumber(m[3]!);
    if (n === null) continue;
    const currency = known ? known[1] : marker.toUpperCase();
    return currency
      ? { amount: scaled(n, m[4]), currency }
      : { amount: scaled(n, m[4]), currency: null, ambiguous: 'dollar_sign' };
  }
  SUFFIX_RE.lastIndex = 0;
  for (let m = SUFFIX_RE.exec(lower); m; m = SUFFIX_RE.exec(lower)) {
    const marker = m[3]!;
    const known = SUFFIXES.find(([s]) => s === marker);
    if (!known && !isCode(marker.toUpperCase())) continue;
    const n = parseNumber(m[1]!);
    if (n === null) continue;
    const currency = known ? known[1] : marker.toUpperCase();
    // "50 pesos" is money in a currency the country decides.
    return currency
      ? { amount: scaled(n, m[2]), currency }
      : { amount: scaled(n, m[2]), currency: null, ambiguous: 'pesos' };
  }
  return null;
}
