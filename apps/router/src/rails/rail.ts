import {
  COIN_DECIMALS,
  currencyExponent,
  type MetaToolName,
  type PathCOperation,
  type RailDefinition,
  type Urgency,
  URGENCIES,
} from '@rota/contracts';

/** Which way a rail moves money for the workspace. */
export type RailDirection = 'in' | 'out' | 'none';

/** The meta-tools path C routes to. */
export type RoutedTool = Extract<
  MetaToolName,
  'codespar_charge' | 'codespar_pay' | 'codespar_invoice' | 'codespar_notify' | 'codespar_ship'
>;

/**
 * One provider's way to carry one meta-tool, as the rail files describe it
 * (the `RailDefinition` contract): routing facts and, for the rails Rota can
 * execute, a binding per action.
 */
export type Rail = RailDefinition;

/** Which meta-tool carries each operation. */
export const TOOL_FOR_OPERATION: Readonly<Record<PathCOperation, RoutedTool>> = {
  charge: 'codespar_charge',
  refund: 'codespar_charge',
  payout: 'codespar_pay',
  issue_invoice: 'codespar_invoice',
  send_notification: 'codespar_notify',
  ship: 'codespar_ship',
};

/** The operations that move money, and which way. A refund goes back out over an `in` rail. */
export const MONEY_OPERATIONS: Readonly<Partial<Record<PathCOperation, 'in' | 'out'>>> = {
  charge: 'in',
  refund: 'out',
  payout: 'out',
};

/**
 * The meta-tool action each operation runs as: the action a rail must bind
 * for path C to offer it (a ship intent is answered with a quote).
 */
export const ACTION_FOR_OPERATION: Readonly<Record<PathCOperation, string>> = {
  charge: 'charge',
  refund: 'refund',
  payout: 'pay',
  issue_invoice: 'issue',
  send_notification: 'send',
  ship: 'quote',
};

/** True when the rail binds at least one action: Rota can run something over it. */
export function executable(rail: Rail): boolean {
  return Object.keys(rail.actions).length > 0;
}

/**
 * True when `rail` can carry `operation` (ignoring currency, country and
 * tenant): it serves the operation's tool and direction and binds the
 * operation's action. A rail without the binding is planning data only;
 * path C never offers it, so what path C recommends is what execute runs.
 */
export function carries(rail: Rail, operation: PathCOperation): boolean {
  if (rail.tool !== TOOL_FOR_OPERATION[operation]) return false;
  if (rail.actions[ACTION_FOR_OPERATION[operation]] === undefined) return false;
  switch (operation) {
    case 'charge':
      return rail.direction === 'in';
    case 'refund':
      return rail.direction === 'in' && rail.refunds;
    case 'payout':
      return rail.direction === 'out';
    case 'issue_invoice':
    case 'send_notification':
    case 'ship':
      return true;
  }
}

export function servesCountry(rail: Rail, country: string): boolean {
  return rail.countries.includes('*') || rail.countries.includes(country);
}

export function servesCurrency(rail: Rail, currency: string): boolean {
  return rail.currencies === '*' || rail.currencies.includes(currency);
}

/** A fixed fee priced in another currency and converted at a stored rate. */
export interface ConvertedFee {
  currency: string;
  minor: number;
  rate: number;
  as_of: Date;
  via?: string;
}

/** Digits after the point of a currency's minor unit: a coin's own decimals, else ISO 4217. */
export function minorExponent(currency: string): number {
  return COIN_DECIMALS[currency] ?? currencyExponent(currency);
}

/** The stored rates, as `railCost` reads them. */
export interface FxLookup {
  convert(from: string, to: string): { rate: number; asOf: Date; via?: string } | null;
}

/**
 * What the rail charges for one operation, in the intent currency's minor
 * units: the fixed part plus the basis points of the amount, rounded up.
 * A fixed fee the rail prices only in other currencies is converted at a
 * stored rate when there is one (the first of the rail's currencies that
 * converts, rounded up; `converted` says from what); `fixed_known` is false
 * when no price in this currency exists or converts.
 */
export function railCost(
  rail: Rail,
  currency: string,
  amountMinor: number | undefined,
  fx?: FxLookup,
): { cost_minor: number; fixed_minor: number; variable_minor: number; fixed_known: boolean; converted?: ConvertedFee } {
  const variable = amountMinor === undefined ? 0 : Math.ceil((amountMinor * rail.cost.bps) / 10_000);
  const own = rail.cost.fixed_minor[currency];
  if (own !== undefined)
    return { cost_minor: own + variable, fixed_minor: own, variable_minor: variable, fixed_known: true };
  if (fx) {
    for (const [from, minor] of Object.entries(rail.cost.fixed_minor)) {
      const q = fx.convert(from, currency);
      if (!q) continue;
      const fixed = Math.ceil(minor * q.rate * 10 ** (minorExponent(currency) - minorExponent(from)) - 1e-9);
      return {
        cost_minor: fixed + variable,
        fixed_minor: fixed,
        variable_minor: variable,
        fixed_known: true,
        converted: { currency: from, minor, rate: q.rate, as_of: q.asOf, ...(q.via ? { via: q.via } : {}) },
      };
    }
  }
  return { cost_minor: variable, fixed_minor: 0, variable_minor: variable, fixed_known: false };
}

/** Position of an urgency, fastest first (instant 0 … no_rush 3). */
export function urgencyRank(u: Urgency): number {
  return URGENCIES.indexOf(u);
}

/** `BRL 49.90`, `CLP 4990`: a minor amount written in major units. */
export function formatMoney(amountMinor: number, currency: string): string {
  const exp = minorExponent(currency);
  return `${currency} ${(amountMinor / 10 ** exp).toFixed(exp)}`;
}
