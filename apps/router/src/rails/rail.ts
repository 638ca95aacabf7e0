import { currencyExponent, type MetaToolName, type PathCOperation, type RailMethod, type RecipientKind, type Urgency, URGENCIES } from '@rota/contracts';

/** Which way a rail moves money for the workspace. */
export type RailDirection = 'in' | 'out' | 'none';

/** The meta-tools path C routes to. */
export type RoutedTool = Extract<MetaToolName, 'codespar_charge' | 'codespar_pay' | 'codespar_invoice' | 'codespar_notify' | 'codespar_ship'>;

/**
 * One provider's way to carry one operation. Everything here is data Rota
 * writes itself; the cost and latency figures are illustrative defaults, not
 * any provider's price list.
 */
export interface Rail {
  /** `<provider>.<method>.<direction>`, unique. */
  id: string;
  provider_id: string;
  tool: RoutedTool;
  method: RailMethod;
  direction: RailDirection;
  /** For `in` rails: whether a charge taken over this rail can be sent back over it. */
  refunds: boolean;
  /** ISO 4217 codes; `*` for rails that move no money. */
  currencies: readonly string[] | '*';
  /** ISO 3166-1 alpha-2 codes; `*` for any country. */
  countries: readonly string[];
  /** The fastest urgency the rail can meet; slower ones are met too. */
  fastest: Urgency;
  /** Identifiers of the other side this rail can work with. */
  recipient_kinds: readonly RecipientKind[];
  /** Fixed part in minor units per currency, plus basis points of the amount. */
  cost: { fixed_minor: Readonly<Record<string, number>>; bps: number };
  /** Typical call latency assumed until telemetry says otherwise. */
  nominal_latency_ms: number;
}

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
export const MONEY_OPERATIONS: Readonly<Partial<Record<PathCOperation, 'in' | 'out'>>> = { charge: 'in', refund: 'out', payout: 'out' };

/** True when `rail` can carry `operation` (ignoring currency, country and tenant). */
export function carries(rail: Rail, operation: PathCOperation): boolean {
  if (rail.tool !== TOOL_FOR_OPERATION[operation]) return false;
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

/**
 * What the rail charges for one operation, in the intent currency's minor
 * units: the fixed part plus the basis points of the amount, rounded up.
 * `fixed_known` is false when the rail has no price in this currency.
 */
export function railCost(
  rail: Rail,
  currency: string,
  amountMinor: number | undefined,
): { cost_minor: number; fixed_minor: number; variable_minor: number; fixed_known: boolean } {
  const fixed = rail.cost.fixed_minor[currency];
  const variable = amountMinor === undefined ? 0 : Math.ceil((amountMinor * rail.cost.bps) / 10_000);
  return { cost_minor: (fixed ?? 0) + variable, fixed_minor: fixed ?? 0, variable_minor: variable, fixed_known: fixed !== undefined };
}

/** Position of an urgency, fastest first (instant 0 … no_rush 3). */
export function urgencyRank(u: Urgency): number {
  return URGENCIES.indexOf(u);
}

/** `BRL 49.90`, `CLP 4990`: a minor amount written in major units. */
export function formatMoney(amountMinor: number, currency: string): string {
  const exp = currencyExponent(currency);
  return `${currency} ${(amountMinor / 10 ** exp).toFixed(exp)}`;
}
