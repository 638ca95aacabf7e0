import { code as currencyRecord } from 'currency-codes';
import { whereAlpha2 } from 'iso-3166-1';
import { z } from 'zod';
import { META_TOOL_NAMES } from './meta-tools';

/**
 * Path C, `POST /v1/meta-tools/discover`: the caller has already chosen an
 * operation; Rota picks the provider rail that should carry it and says why.
 * Also the router's telemetry (`router.record`) and its metrics route
 * (`GET /v1/router/metrics`).
 */

/** The six operations path C routes. Anything else is refused as `invalid_body`. */
export const PATH_C_OPERATIONS = ['charge', 'refund', 'payout', 'issue_invoice', 'send_notification', 'ship'] as const;
export const PathCOperation = z.enum(PATH_C_OPERATIONS);
export type PathCOperation = z.infer<typeof PathCOperation>;

/** How soon the operation has to land, fastest first. */
export const URGENCIES = ['instant', 'same_day', 'next_day', 'no_rush'] as const;
export const Urgency = z.enum(URGENCIES);
export type Urgency = z.infer<typeof Urgency>;

/** What identifies the other side of the operation (payer, payee or addressee). */
export const RECIPIENT_KINDS = ['cnpj', 'cpf', 'email', 'phone', 'wallet', 'other'] as const;
export const RecipientKind = z.enum(RECIPIENT_KINDS);
export type RecipientKind = z.infer<typeof RecipientKind>;

/**
 * How a rail carries its operation. `spei`, `oxxo` and `pse` (Mexico's
 * interbank transfers, Mexico's cash vouchers, Colombia's online bank debit)
 * and `cfdi` are Latin American methods the published enums do not list.
 */
export const RAIL_METHODS = [
  'pix',
  'boleto',
  'card',
  'wallet',
  'spei',
  'oxxo',
  'pse',
  'wire',
  'nfe',
  'nfse',
  'cfdi',
  'invoice',
  'whatsapp',
  'sms',
  'email',
  'label',
] as const;
export const RailMethod = z.enum(RAIL_METHODS);
export type RailMethod = z.infer<typeof RailMethod>;

/** Currency codes that name no money: the test code and "no currency". */
const NOT_MONEY = new Set(['XTS', 'XXX']);

/** True for an ISO 4217 alphabetic code (upper case) that names a currency. */
export function isIsoCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && !NOT_MONEY.has(code) && currencyRecord(code) !== undefined;
}

/**
 * Decimal places of the currency's minor unit per ISO 4217 (BRL 2, CLP 0).
 * Throws for a code that is not ISO 4217: callers validate first.
 */
export function currencyExponent(code: string): number {
  const rec = currencyRecord(code);
  if (!rec) throw new Error(`not an ISO 4217 currency: ${code}`);
  return rec.digits;
}

/** Minor units to major units with the currency's exponent (4990 BRL → 49.9; 4990 CLP → 4990). */
export function minorToMajor(amountMinor: number, currency: string): number {
  const exp = currencyExponent(currency);
  return Number((amountMinor / 10 ** exp).toFixed(exp));
}

/** Major units to minor units, rounded to the nearest minor unit (49.9 BRL → 4990). */
export function majorToMinor(amountMajor: number, currency: string): number {
  return Math.round(amountMajor * 10 ** currencyExponent(currency));
}

/** True for an assigned ISO 3166-1 alpha-2 code (upper case). */
export function isIsoCountry(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && whereAlpha2(code) !== undefined;
}

/** ISO 4217 code, any case on the way in, upper case on the way out. */
export const CurrencyCode = z
  .string()
  .transform((s) => s.toUpperCase())
  .refine(isIsoCurrency, { message: 'currency must be an ISO 4217 code such as BRL, MXN or CLP' });

/** ISO 3166-1 alpha-2 code, any case on the way in, upper case on the way out. */
export const CountryCode = z
  .string()
  .transform((s) => s.toUpperCase())
  .refine(isIsoCountry, { message: 'country must be an ISO 3166-1 alpha-2 code such as BR, MX or CO' });

/**
 * A structured intent. `method` is a Rota extension: when set, only rails of
 * that method are considered (so "send a WhatsApp" is not answered with SMS).
 */
export const PathCIntent = z
  .object({
    operation: PathCOperation,
    currency: CurrencyCode,
    country: CountryCode,
    /** Amount in the currency's minor units (cents; whole pesos for CLP). */
    amount_minor: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
    urgency: Urgency.optional(),
    recipient_kind: RecipientKind.optional(),
    /** Rota extension: restrict the answer to one method. */
    method: RailMethod.optional(),
    /** Free-form pairs copied into the template of tools that take `metadata`. */
    metadata: z.record(z.string().max(100), z.unknown()).optional(),
  })
  .strict();
export type PathCIntent = z.infer<typeof PathCIntent>;
export type PathCIntentInput = z.input<typeof PathCIntent>;

/** Largest description accepted. */
export const PATH_C_DESCRIPTION_MAX = 2000;

/** `POST /v1/meta-tools/discover` body: a structured intent, or a sentence to extract one from. */
export const MetaToolsDiscoverRequest = z.union([
  z.object({ intent: PathCIntent }).strict(),
  z.object({ description: z.string().trim().min(1).max(PATH_C_DESCRIPTION_MAX) }).strict(),
]);
export type MetaToolsDiscoverRequest = z.infer<typeof MetaToolsDiscoverRequest>;
export type MetaToolsDiscoverRequestInput = z.input<typeof MetaToolsDiscoverRequest>;

/**
 * A starting point for the chosen tool's arguments: only fields the tool's
 * schema accepts, amounts already in the unit that tool expects, and
 * `missing` naming what the agent still has to fill.
 */
export const ArgsTemplate = z.object({ missing: z.array(z.string()) }).catchall(z.unknown());
export type ArgsTemplate = z.infer<typeof ArgsTemplate>;

/** The recommended route. `provider_id` is published for transparency; execution routes again. */
export const RecommendedRoute = z.object({
  tool: z.enum(META_TOOL_NAMES),
  rail: RailMethod,
  provider_id: z.string(),
  args_template: ArgsTemplate,
  /** Plain sentences, with numbers, saying why this route ranks first. */
  reasons: z.array(z.string()),
});
export type RecommendedRoute = z.infer<typeof RecommendedRoute>;

/** Another eligible route, in score order. */
export const AlternativeRoute = z.object({
  tool: z.enum(META_TOOL_NAMES),
  rail: RailMethod,
  provider_id: z.string(),
  /** What the rail charges for this amount, in the intent's minor units. */
  cost_minor: z.number().int().nonnegative(),
  mean_latency_ms: z.number().nonnegative(),
  latency_p50_ms: z.number().nonnegative(),
  /** 0..1. */
  success_rate: z.number().min(0).max(1),
  reasons: z.array(z.string()),
});
export type AlternativeRoute = z.infer<typeof AlternativeRoute>;

/** The 200 body of `POST /v1/meta-tools/discover`. */
export const MetaToolsDiscoverResponse = z.object({
  recommended: RecommendedRoute,
  /** Empty when exactly one route was eligible: not a failure. */
  alternatives: z.array(AlternativeRoute),
  /** The intent the answer was computed for (the extracted one for a description). */
  resolved_intent: PathCIntent,
});
export type MetaToolsDiscoverResponse = z.infer<typeof MetaToolsDiscoverResponse>;

/** `router.eligibility.refresh` payload: empty, the set refreshed is the request's tenant's. */
export const EligibilityRefreshRequest = z.object({}).strict();
export type EligibilityRefreshRequest = z.infer<typeof EligibilityRefreshRequest>;

/** `router.eligibility.refresh` answer. */
export const EligibilityRefreshResponse = z.object({ rails: z.number().int().nonnegative(), refreshed_at: z.string() });
export type EligibilityRefreshResponse = z.infer<typeof EligibilityRefreshResponse>;

/** Short machine-readable failure code of a routed execution, e.g. `timeout` or `upstream_5xx`. */
export const TelemetryErrorCode = z.string().regex(/^[a-z0-9_.:-]{1,64}$/);

/** `router.record`: the outcome of one routed execution. */
export const RouterRecordRequest = z
  .object({
    provider_id: z.string().min(1).max(100),
    tool: z.string().min(1).max(100),
    success: z.boolean(),
    /** Upstream latency of the call. */
    latency_ms: z.number().nonnegative().max(600_000),
    /** Why it failed; kept as the row's last error code. Ignored on success. */
    error_code: TelemetryErrorCode.optional(),
    /** When it happened (ISO 8601); defaults to now. Only the last 24 hours count. */
    at: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();
export type RouterRecordRequest = z.infer<typeof RouterRecordRequest>;
/** `recorded` is false for an event outside the 24-hour window (too old, or from the future). */
export const RouterRecordResponse = z.object({ recorded: z.boolean() });
export type RouterRecordResponse = z.infer<typeof RouterRecordResponse>;

/** `GET /v1/router/metrics` query. */
export const RouterMetricsQuery = z
  .object({
    provider_id: z.string().min(1).max(100).optional(),
    tool: z.string().min(1).max(100).optional(),
  })
  .strict();
export type RouterMetricsQuery = z.infer<typeof RouterMetricsQuery>;

/** One provider-and-tool row over the last 24 hours. */
export const RouterMetricsRow = z.object({
  provider_id: z.string(),
  tool: z.string(),
  attempts: z.number().int().nonnegative(),
  /** 0..1; null before the first attempt. */
  success_rate: z.number().min(0).max(1).nullable(),
  /** Median upstream latency; null before the first attempt. */
  latency_p50_ms: z.number().nonnegative().nullable(),
  last_error_code: z.string().nullable(),
  /** Attempts per hour, oldest first; the last entry is the current hour. */
  attempts_24h: z.array(z.number().int().nonnegative()).length(24),
  /** Median latency per hour (the sparkline), null for an hour without attempts. */
  latency_24h: z.array(z.number().nonnegative().nullable()).length(24),
});
export type RouterMetricsRow = z.infer<typeof RouterMetricsRow>;

/** The 200 body of `GET /v1/router/metrics`. */
export const RouterMetricsResponse = z.object({
  /** Start of the oldest hour in the arrays (UTC, ISO 8601). */
  window_start: z.string(),
  rows: z.array(RouterMetricsRow),
});
export type RouterMetricsResponse = z.infer<typeof RouterMetricsResponse>;
