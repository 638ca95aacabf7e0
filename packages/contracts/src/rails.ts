import { z } from 'zod';
import { RAIL_METHODS, RECIPIENT_KINDS, URGENCIES, isIsoCurrency, currencyExponent } from './path-c';

/**
 * Rails as data. A rail is one provider's way to carry one meta-tool: the
 * routing facts path C ranks it by (countries, currencies, speed, cost) and,
 * for the rails Rota can execute, one binding per action saying which catalog
 * tool to call and how to map the meta-tool input to that tool's input and
 * the provider's answer back to the meta-tool's normalised result.
 *
 * Mappings are JSONata expressions (https://jsonata.org), so a new rail is a
 * data change: the router validates every file against `RailFile` and
 * compiles every expression at boot.
 */

/** The meta-tools that act through a provider. */
export const ACTING_META_TOOLS = [
  'codespar_checkout',
  'codespar_pay',
  'codespar_wallet',
  'codespar_shop',
  'codespar_charge',
  'codespar_invoice',
  'codespar_ship',
  'codespar_notify',
  'codespar_crypto_pay',
  'codespar_kyc',
  'codespar_ledger',
  'codespar_issue',
] as const;
export type ActingMetaTool = (typeof ACTING_META_TOOLS)[number];
export const ActingMetaTool = z.enum(ACTING_META_TOOLS);

export function isActingMetaTool(name: string): name is ActingMetaTool {
  return (ACTING_META_TOOLS as readonly string[]).includes(name);
}

/**
 * The operations of each acting meta-tool. Tools with an `action` field use
 * its values; `codespar_checkout` and `codespar_notify` have one operation
 * (`create`, `send`); `codespar_crypto_pay` is keyed by `direction` and
 * `codespar_kyc` by `check_type`.
 */
export const META_TOOL_ACTIONS = {
  codespar_checkout: ['create'],
  codespar_pay: ['pay', 'status'],
  codespar_wallet: ['balance', 'statement', 'receive'],
  codespar_shop: ['search', 'checkout', 'checkout_status'],
  codespar_charge: ['charge', 'refund'],
  codespar_invoice: ['issue', 'status', 'amend'],
  codespar_ship: ['label', 'track', 'quote'],
  codespar_notify: ['send'],
  codespar_crypto_pay: ['send', 'receive'],
  codespar_kyc: ['identity', 'document', 'risk-score', 'sanctions', 'onboarding', 'onboarding-business', 'status'],
  codespar_ledger: ['entry', 'balance', 'account', 'receipt', 'receipts'],
  codespar_issue: ['card-virtual', 'card-physical', 'card-control', 'card-get'],
} as const satisfies Record<ActingMetaTool, readonly [string, ...string[]]>;

/** The action key of a call, from its (validated) input. */
export function actionOf(tool: ActingMetaTool, input: Record<string, unknown>): string {
  switch (tool) {
    case 'codespar_checkout':
      return 'create';
    case 'codespar_notify':
      return 'send';
    case 'codespar_crypto_pay':
      return String(input.direction);
    case 'codespar_kyc':
      return String(input.check_type);
    case 'codespar_charge':
      return typeof input.action === 'string' ? input.action : 'charge';
    case 'codespar_invoice':
      return typeof input.action === 'string' ? input.action : 'issue';
    default:
      return String(input.action);
  }
}

/**
 * The input field naming an object an earlier call created, per tool and
 * action: such a call goes to the rail that created it (a refund goes back
 * over the rail that took the money), never to another provider.
 */
export const FOLLOW_UP_REFS: Partial<Record<ActingMetaTool, Readonly<Record<string, string>>>> = {
  codespar_charge: { refund: 'charge_id' },
  codespar_pay: { status: 'payment_id' },
  codespar_shop: { checkout_status: 'checkout_session_id' },
  codespar_invoice: { status: 'invoice_id', amend: 'invoice_id' },
  codespar_ship: { track: 'tracking_code' },
  codespar_kyc: { status: 'verification_id' },
  codespar_ledger: { receipt: 'receipt_id' },
  codespar_issue: { 'card-control': 'card_id', 'card-get': 'card_id' },
};

/** Whether a call of this tool and action can move money (its row is written down before it is sent). */
export function actionMovesMoney(tool: ActingMetaTool, action: string): boolean {
  switch (tool) {
    case 'codespar_charge':
    case 'codespar_pay':
      return action !== 'status';
    case 'codespar_checkout':
      return true;
    case 'codespar_shop':
      return action === 'checkout';
    case 'codespar_crypto_pay':
      return action === 'send';
    case 'codespar_wallet':
      return action === 'receive';
    case 'codespar_ledger':
      return action === 'entry';
    case 'codespar_issue':
      return action === 'card-virtual' || action === 'card-physical';
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------
// Money
// ---------------------------------------------------------------------------

/** Decimal places of the coins `codespar_crypto_pay` accepts (their smallest units). */
export const COIN_DECIMALS: Readonly<Record<string, number>> = { USDC: 6, USDT: 6, BTC: 8, ETH: 18, MATIC: 18 };

/** An exact amount: integer minor units and the same amount written in major units. */
export interface ExactAmount {
  /** Minor units (cents for BRL), as a decimal string: coin amounts may exceed 2^53. */
  minor: string;
  /** Major units with exactly the currency's exponent digits, e.g. "49.90". */
  major: string;
  /** `major` as a JSON number, for providers that take decimals. */
  value: number;
  currency: string;
  exponent: number;
}

/** Why an amount was refused; `path` names the field. */
export interface AmountProblem {
  message: string;
}

/** Largest minor-unit amount accepted for an ISO 4217 currency (2^53 - 1: exact as a JSON number). */
const MAX_MINOR = BigInt(Number.MAX_SAFE_INTEGER);

function exponentOf(currency: string): number | null {
  if (currency in COIN_DECIMALS) return COIN_DECIMALS[currency]!;
  return isIsoCurrency(currency) ? currencyExponent(currency) : null;
}

/** Digits of a minor amount written in major units: 4990, 2 → "49.90". */
export function minorToMajorString(minor: bigint, exponent: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(exponent + 1, '0');
  const major = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return negative ? `-${major}` : major;
}

function exact(minor: bigint, currency: string, exponent: number): ExactAmount {
  const major = minorToMajorString(minor, exponent);
  return { minor: minor.toString(), major, value: Number(major), currency, exponent };
}

/**
 * A major-unit amount (as JSON gave it) in exact minor units. The number's
 * shortest decimal form is read digit by digit, never multiplied as a float:
 * 49.9 BRL is 4990, 0.1 BTC is 10000000 satoshi. Refused: non-finite,
 * negative, zero unless `allowZero`, more decimal places than the currency
 * has, and amounts past 2^53 - 1 minor units (ISO currencies).
 */
export function parseMajorAmount(
  value: unknown,
  currency: string,
  opts: { allowZero?: boolean } = {},
): ExactAmount | AmountProblem {
  const exponent = exponentOf(currency);
  if (exponent === null) return { message: `${currency} is not a currency this tool accepts` };
  if (typeof value !== 'number' || !Number.isFinite(value)) return { message: 'amount must be a finite number' };
  if (value < 0) return { message: 'amount must not be negative' };
  if (value === 0 && !opts.allowZero) return { message: 'amount must be above zero' };
  const text = String(value);
  // Small or huge numbers print in exponent form; expand them exactly.
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!m) return { message: 'amount must be a plain decimal number' };
  let intDigits = m[1]!;
  let fracDigits = m[2] ?? '';
  const shift = m[3] ? Number(m[3]) : 0;
  if (shift > 0) {
    const moved = fracDigits.padEnd(shift, '0');
    intDigits += moved.slice(0, shift);
    fracDigits = moved.slice(shift);
  } else if (shift < 0) {
    intDigits = intDigits.padStart(-shift + 1, '0');
    fracDigits = intDigits.slice(shift) + fracDigits;
    intDigits = intDigits.slice(0, shift);
  }
  fracDigits = fracDigits.replace(/0+$/, '');
  if (fracDigits.length > exponent) {
    return {
      message:
        exponent === 0
          ? `${currency} amounts are whole numbers`
          : `${currency} amounts have at most ${exponent} decimal places`,
    };
  }
  const minor = BigInt(intDigits || '0') * 10n ** BigInt(exponent) + BigInt(fracDigits.padEnd(exponent, '0') || '0');
  if (!(currency in COIN_DECIMALS) && minor > MAX_MINOR) return { message: 'amount is out of range' };
  if (minor === 0n && !opts.allowZero) return { message: `amount must be at least one minor unit of ${currency}` };
  return exact(minor, currency, exponent);
}

/** An amount already in minor units (an integer), checked the same way. */
export function fromMinorAmount(
  value: unknown,
  currency: string,
  opts: { allowZero?: boolean } = {},
): ExactAmount | AmountProblem {
  const exponent = exponentOf(currency);
  if (exponent === null) return { message: `${currency} is not a currency this tool accepts` };
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    return { message: 'amount must be a whole number of minor units' };
  if (value < 0) return { message: 'amount must not be negative' };
  if (value === 0 && !opts.allowZero) return { message: 'amount must be above zero' };
  return exact(BigInt(value), currency, exponent);
}

export function isAmountProblem(x: ExactAmount | AmountProblem): x is AmountProblem {
  return 'message' in x;
}

// ---------------------------------------------------------------------------
// Rail files
// ---------------------------------------------------------------------------

/** A JSONata expression; compiled and checked when the router loads the rails. */
const Expression = z.string().min(1).max(20_000);

/**
 * A provider call a binding makes around its main one: a `before` step
 * prepares what the main call needs (an Asaas customer before a charge), an
 * `after` step reads what the main answer leaves out (the Pix code of a
 * charge). Steps never move money; only the main call does.
 */
export const RailStep = z
  .object({
    /** The step's answer is `steps.<name>` ({status, body}) in later mappings. */
    name: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/),
    catalog_tool: z.string().min(1).max(200),
    /** JSONata over the request context plus `steps` (and `response` for `after` steps). */
    request: z.string().min(1).max(20_000),
  })
  .strict();
export type RailStep = z.infer<typeof RailStep>;

/**
 * How to ask the provider what became of a call whose outcome Rota does not
 * know (a timeout after the request left, a reset mid-answer). The worker's
 * reconcile sweep runs it for calls left `outcome_unknown`; it never moves
 * money, so it is safe to repeat.
 */
export const RailLookup = z
  .object({
    /**
     * What the provider finds the call by: the idempotency key Rota sent with
     * it, or a reference Rota wrote into the request (the binding's `request`
     * sets it from `idempotency_key`).
     */
    by: z.enum(['idempotency_key', 'external_reference']),
    /** The catalog tool that reads the object back (its name without the `server/` prefix). */
    catalog_tool: z.string().min(1).max(200),
    /** JSONata over `{idempotency_key, input, action}` giving the lookup tool's input. */
    request: Expression,
    /**
     * JSONata over `{response: {status, body}, input, action}`: `null` (or
     * nothing) when the provider has no such call, else the response body of
     * the original call as the binding's `result` expects it.
     */
    found: Expression,
    /** Statuses that mean "no such call": the call provably never arrived. */
    not_found_statuses: z.array(z.number().int().min(400).max(499)).default([404]),
  })
  .strict();
export type RailLookup = z.infer<typeof RailLookup>;

/**
 * An input field a rail needs beyond the published meta-tool schema (a
 * Brazilian charge needs the payer's CPF or CNPJ). Execute checks it before
 * anything is written or sent and names `field` when it is missing; the
 * published schema and its `required` list stay as they are.
 */
export const RailRequirement = z
  .object({
    /** Dotted path of the field the caller is told to fill, e.g. `buyer.document`. */
    field: z.string().regex(/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$/i),
    /** Paths that each satisfy the requirement (`buyer.cpf` for `buyer.document`); `field` alone when absent. */
    any_of: z
      .array(z.string().regex(/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$/i))
      .max(8)
      .optional(),
    /** What the field holds, said to the caller. */
    description: z.string().min(1).max(200),
  })
  .strict();
export type RailRequirement = z.infer<typeof RailRequirement>;

/** How one action runs on one rail. */
export const RailBinding = z
  .object({
    /** Input fields this binding needs beyond the published schema, checked before anything is sent. */
    requires: z.array(RailRequirement).max(8).default([]),
    before: z.array(RailStep).max(3).default([]),
    after: z.array(RailStep).max(3).default([]),
    /** The catalog tool called on the rail's provider (its name without the `server/` prefix). */
    catalog_tool: z.string().min(1).max(200),
    /**
     * JSONata over `{input, action, amount, idempotency_key, idempotency_uuid, today}`
     * giving the catalog tool's input (`idempotency_uuid` is the key as a
     * UUID, for providers whose idempotent field must be one). `amount` is an ExactAmount when the call
     * carries money, else null.
     */
    request: Expression,
    /**
     * JSONata over `{response: {status, body}, steps, input, action, amount}` giving
     * the meta-tool's normalised result for a 2xx answer; it must fit the
     * result schema of the tool and action (META_TOOL_RESULTS).
     */
    result: Expression,
    /**
     * Provider statuses that the provider documents as "refused, not
     * processed" (a 429 before any work, a 503 with nothing queued): the
     * router may try the next rail after them. Anything else after a send is
     * final for the call.
     */
    not_processed_statuses: z.array(z.number().int().min(400).max(599)).default([]),
    /** How to settle a call of this action whose outcome is unknown; absent when the provider offers no lookup. */
    lookup: RailLookup.optional(),
  })
  .strict();
export type RailBinding = z.infer<typeof RailBinding>;

const CountryOrAny = z.string().regex(/^([A-Z]{2}|\*)$/);

export const RailDefinition = z
  .object({
    /** `<provider>.<method>.<direction>`, unique across files. */
    id: z.string().regex(/^[a-z0-9_-]+\.[a-z0-9_-]+\.(in|out|none)$/),
    provider_id: z.string().min(1).max(100),
    /** The meta-tool this rail carries. */
    tool: ActingMetaTool,
    /** How it carries it; for the tools path C routes, one of RAIL_METHODS. */
    method: z.string().regex(/^[a-z0-9_-]{1,40}$/),
    direction: z.enum(['in', 'out', 'none']),
    /** For `in` rails: whether a charge taken over this rail can be sent back over it. */
    refunds: z.boolean().default(false),
    /** ISO 4217 codes (or coin codes for crypto rails); `*` for rails that move no money. */
    currencies: z.union([z.literal('*'), z.array(z.string().regex(/^[A-Z]{3,5}$/)).min(1)]),
    countries: z.array(CountryOrAny).min(1),
    fastest: z.enum(URGENCIES),
    recipient_kinds: z.array(z.enum(RECIPIENT_KINDS)).min(1).default(['email', 'phone', 'other']),
    /** Illustrative price: a fixed part per currency in minor units plus basis points of the amount. */
    cost: z
      .object({
        fixed_minor: z.record(z.string(), z.number().int().nonnegative()),
        bps: z.number().nonnegative().max(10_000),
      })
      .strict(),
    /** Typical latency assumed until telemetry says otherwise. */
    nominal_latency_ms: z.number().int().positive(),
    /** Which real provider API the rail's binding models, for documentation. */
    models: z.string().max(300).optional(),
    /** Executable actions; a rail without any is ranked by path C but cannot run. */
    actions: z.record(z.string(), RailBinding).default({}),
  })
  .strict()
  .superRefine((rail, ctx) => {
    const routed = ['codespar_charge', 'codespar_pay', 'codespar_invoice', 'codespar_notify', 'codespar_ship'];
    if (routed.includes(rail.tool) && !(RAIL_METHODS as readonly string[]).includes(rail.method))
      ctx.addIssue({
        code: 'custom',
        path: ['method'],
        message: `a ${rail.tool} rail's method must be one of ${RAIL_METHODS.join(', ')}`,
      });
    const allowed = META_TOOL_ACTIONS[rail.tool] as readonly string[];
    for (const action of Object.keys(rail.actions))
      if (!allowed.includes(action))
        ctx.addIssue({
          code: 'custom',
          path: ['actions', action],
          message: `${rail.tool} has no action ${action} (it has ${allowed.join(', ')})`,
        });
    const [provider, , direction] = rail.id.split('.');
    if (provider !== rail.provider_id)
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'the id must start with the provider_id' });
    if (direction !== rail.direction)
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'the id must end with the direction' });
  });
export type RailDefinition = z.infer<typeof RailDefinition>;

/** One file of rails (the router reads every `*.json` of its rails directory). */
export const RailFile = z.object({ rails: z.array(RailDefinition) }).strict();
export type RailFile = z.infer<typeof RailFile>;

// ---------------------------------------------------------------------------
// Normalised results
// ---------------------------------------------------------------------------

/**
 * What each acting meta-tool answers in `data` on success, per action. The
 * named fields are guaranteed; a rail may add more. None of them names the
 * provider: the agent never learns which rail ran.
 */
const id = z.string().min(1);
const status = z.string().min(1);
const minor = z.number().int().nonnegative();
const currency = z.string().min(3).max(5);
const open = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape);

const ChargeResult = open({
  id,
  status,
  amount_minor: minor,
  currency,
  method: z.string(),
  pix: open({ copia_e_cola: z.string(), qr_code_base64: z.string().optional() }).optional(),
  boleto: open({ linha_digitavel: z.string().optional(), url: z.string().optional() }).optional(),
  payment_url: z.string().optional(),
  expires_at: z.string().optional(),
});
const RefundResult = open({ id, charge_id: id, status, amount_minor: minor, currency });
const PaymentResult = open({
  id,
  status,
  amount_minor: minor.optional(),
  currency: currency.optional(),
  method: z.string().optional(),
});
const CheckoutResult = open({
  id,
  status,
  url: z.string(),
  amount_minor: minor,
  currency,
  expires_at: z.string().optional(),
});
const WalletBalance = open({ available_minor: z.number().int(), currency, pending_minor: z.number().int().optional() });
const WalletStatement = open({
  currency,
  entries: z.array(
    open({ id, date: z.string(), amount_minor: z.number().int(), description: z.string().nullable().optional() }),
  ),
});
const WalletReceive = open({
  id,
  status,
  currency,
  amount_minor: minor.optional(),
  pix: open({ copia_e_cola: z.string() }),
});
const ShopSearch = open({
  products: z.array(
    open({
      id,
      name: z.string(),
      price_minor: minor,
      currency,
      merchant: z.string().optional(),
      url: z.string().optional(),
    }),
  ),
});
const ShopCheckout = open({ id, status, total_minor: minor, currency, payment: open({}).optional() });
const ShopStatus = open({ id, status });
const InvoiceResult = open({
  id,
  status,
  type: z.string(),
  number: z.string().nullable().optional(),
  pdf_url: z.string().nullable().optional(),
});
const ShipQuote = open({
  quotes: z.array(
    open({
      service_id: z.string(),
      carrier: z.string(),
      service: z.string(),
      price_minor: minor,
      currency,
      delivery_days: z.number().int().nullable(),
    }),
  ),
});
const ShipLabel = open({
  id,
  status,
  tracking_code: z.string().nullable(),
  label_url: z.string().nullable().optional(),
  price_minor: minor.optional(),
});
const ShipTrack = open({
  tracking_code: z.string(),
  status,
  events: z.array(open({ at: z.string(), status: z.string(), description: z.string().optional() })),
});
const NotifyResult = open({ id, status, channel: z.string() });
const CryptoSend = open({ id, status, amount: z.string(), currency: z.string(), network: z.string() });
const CryptoReceive = open({ id, status, address: z.string(), currency: z.string(), network: z.string() });
const KycResult = open({
  id,
  status,
  result: z.enum(['approved', 'rejected', 'review', 'pending']).optional(),
  score: z.number().optional(),
});
const LedgerEntry = open({ id, status });
const LedgerBalance = open({ account: z.string(), balance_minor: z.number().int(), asset: z.string() });
const LedgerAccount = open({ id, name: z.string().nullable().optional() });
const LedgerReceipt = open({ id });
const LedgerReceipts = open({ receipts: z.array(open({ id })) });
const CardResult = open({ id, status, last4: z.string().optional(), type: z.string().optional() });

export const META_TOOL_RESULTS = {
  codespar_checkout: { create: CheckoutResult },
  codespar_pay: { pay: PaymentResult, status: PaymentResult },
  codespar_wallet: { balance: WalletBalance, statement: WalletStatement, receive: WalletReceive },
  codespar_shop: { search: ShopSearch, checkout: ShopCheckout, checkout_status: ShopStatus },
  codespar_charge: { charge: ChargeResult, refund: RefundResult },
  codespar_invoice: { issue: InvoiceResult, status: InvoiceResult, amend: InvoiceResult },
  codespar_ship: { label: ShipLabel, track: ShipTrack, quote: ShipQuote },
  codespar_notify: { send: NotifyResult },
  codespar_crypto_pay: { send: CryptoSend, receive: CryptoReceive },
  codespar_kyc: {
    identity: KycResult,
    document: KycResult,
    'risk-score': KycResult,
    sanctions: KycResult,
    onboarding: KycResult,
    'onboarding-business': KycResult,
    status: KycResult,
  },
  codespar_ledger: {
    entry: LedgerEntry,
    balance: LedgerBalance,
    account: LedgerAccount,
    receipt: LedgerReceipt,
    receipts: LedgerReceipts,
  },
  codespar_issue: {
    'card-virtual': CardResult,
    'card-physical': CardResult,
    'card-control': CardResult,
    'card-get': CardResult,
  },
} as const satisfies { [T in ActingMetaTool]: Record<(typeof META_TOOL_ACTIONS)[T][number], z.ZodType> };

/** The result schema of one tool and action. */
export function resultSchema(tool: ActingMetaTool, action: string): z.ZodType | null {
  return (META_TOOL_RESULTS[tool] as Record<string, z.ZodType>)[action] ?? null;
}

// ---------------------------------------------------------------------------
// Router transport: `router.select`
// ---------------------------------------------------------------------------

export const RouterSelectRequest = z
  .object({
    tool: ActingMetaTool,
    action: z.string().min(1).max(40),
    method: z.string().max(40).optional(),
    currency: z.string().max(5).optional(),
    country: z.string().max(2).optional(),
    /** Minor units as a decimal string (coin amounts may exceed 2^53). */
    amount_minor: z.string().regex(/^\d+$/).optional(),
    /** Only this rail (a follow-up on an object it created). */
    rail_id: z.string().max(200).optional(),
    /** Only rails of these providers (a policy's `allow_providers`); absent for no restriction. */
    providers: z.array(z.string().min(1).max(100)).max(200).optional(),
  })
  .strict();
export type RouterSelectRequest = z.infer<typeof RouterSelectRequest>;

export const RailCandidate = z.object({ rail_id: z.string(), provider_id: z.string(), binding: RailBinding });
export type RailCandidate = z.infer<typeof RailCandidate>;

export const RouterSelectResponse = z.union([
  z.object({ candidates: z.array(RailCandidate).min(1) }),
  z.object({
    refusal: z.object({
      /**
       * `connection_required`: rails exist but none of their providers is usable; `no_rail`: nothing in the
       * rail catalog runs this; `not_allowed`: rails exist, but none of a provider the policy allows.
       */
      code: z.enum(['connection_required', 'no_rail', 'not_allowed']),
      message: z.string(),
      /** Providers whose connection would make the call possible. */
      providers: z.array(z.string()),
    }),
  }),
]);
export type RouterSelectResponse = z.infer<typeof RouterSelectResponse>;
