import { z } from 'zod';
import { isIsoCurrency } from './path-c';

/**
 * Exchange rates: one row per currency pair, the latest known rate, refreshed
 * by the worker from an HTTP source (`ROTA_FX_URL`, `ROTA_FX_FORMAT`) or
 * imported by an operator (`POST /v1/fx/rates`, `rota fx import <file>`).
 * Rates are decimal text, never binary floating point: `1 base = rate quote`.
 */

export const Currency = z
  .string()
  .refine(isIsoCurrency, { message: 'an ISO 4217 currency code in upper case, e.g. BRL' })
  .describe('ISO 4217 code.');

/** Up to 20 integer digits and 18 decimals, above zero. */
export const DECIMAL_RATE = /^(0|[1-9][0-9]{0,19})(\.[0-9]{1,18})?$/;
export const DecimalRate = z
  .string()
  .regex(DECIMAL_RATE, 'a positive decimal in plain notation, e.g. "5.4321"')
  .refine((v) => /[1-9]/.test(v), 'the rate must be above zero')
  .describe('How many units of `quote` one unit of `base` buys, as decimal text.');

export const FX_SOURCE = /^[A-Za-z0-9._:-]{1,64}$/;

export const FxRateInput = z
  .object({
    base: Currency,
    quote: Currency,
    rate: DecimalRate,
    fetched_at: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('When the rate was observed; defaults to the time of the import.'),
  })
  .strict()
  .refine((r) => r.base !== r.quote, { message: 'base and quote must differ', path: ['quote'] });
export type FxRateInput = z.infer<typeof FxRateInput>;

/** `POST /v1/fx/rates`. */
export const FxRatesImport = z
  .object({
    source: z.string().regex(FX_SOURCE).default('import').describe('Label stored with each rate (default `import`).'),
    rates: z.array(FxRateInput).min(1).max(10_000),
  })
  .strict();
export type FxRatesImport = z.input<typeof FxRatesImport>;

export const FxRate = z.object({
  base: z.string(),
  quote: z.string(),
  rate: z.string(),
  source: z.string(),
  fetched_at: z.string(),
});
export type FxRate = z.infer<typeof FxRate>;

export const FxImportResult = z.object({
  imported: z.number().int().nonnegative().describe('Pairs written.'),
  kept_newer: z.number().int().nonnegative().describe('Pairs left alone because the stored rate was observed later.'),
});
export type FxImportResult = z.infer<typeof FxImportResult>;

export const FxRatesList = z.object({ rates: z.array(FxRate).describe('Every stored pair, by base then quote.') });
export type FxRatesList = z.infer<typeof FxRatesList>;

/** `worker.fx.list`. */
export const FxListCommand = z.object({}).strict();
export type FxListCommand = z.infer<typeof FxListCommand>;

/** Formats of an FX document (the HTTP source's answer, or a file for `rota fx import`). */
export const FX_FORMATS = ['rates', 'pairs'] as const;
export type FxFormat = (typeof FX_FORMATS)[number];

export class FxDocumentError extends Error {}

/** A JSON number or decimal text as decimal text (numbers in exponent form are written out). */
function decimalText(v: unknown, where: string): string {
  let text: string;
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v <= 0) throw new FxDocumentError(`${where}: the rate must be a positive number`);
    text = String(v);
    if (/e/i.test(text)) text = v.toFixed(18).replace(/0+$/, '').replace(/\.$/, '');
  } else if (typeof v === 'string') {
    text = v.trim();
  } else {
    throw new FxDocumentError(`${where}: the rate must be a number or decimal text`);
  }
  if (!DECIMAL_RATE.test(text) || !/[1-9]/.test(text))
    throw new FxDocumentError(`${where}: "${text}" is not a positive decimal with at most 18 decimals`);
  return text;
}

/** A date (`2026-12-01`, read as midnight UTC) or a timestamp, as ISO 8601; undefined when absent. */
function timestamp(v: unknown, where: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || Number.isNaN(Date.parse(v)))
    throw new FxDocumentError(`${where}: not a date or timestamp`);
  return new Date(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v).toISOString();
}

/**
 * Reads an FX document into rate inputs. Two formats:
 *
 * - `rates` (what most public rate APIs answer):
 *   `{"base": "USD", "date": "2026-12-01", "rates": {"BRL": 5.4321, "MXN": "17.05"}}`;
 *   `fetched_at` may replace `date`.
 * - `pairs`: `{"rates": [{"base": "USD", "quote": "BRL", "rate": "5.4321", "fetched_at": "…"}]}`,
 *   or the bare array.
 *
 * Without a format the shape decides. Rates may be JSON numbers or decimal
 * text; text keeps every digit.
 */
export function parseFxDocument(value: unknown, format?: FxFormat): FxRateInput[] {
  const obj = value as Record<string, unknown> | null;
  const detected: FxFormat = Array.isArray(value) || Array.isArray(obj?.rates) ? 'pairs' : 'rates';
  const use = format ?? detected;
  if (use !== detected) throw new FxDocumentError(`the document is not in the "${use}" format`);
  let out: FxRateInput[];
  if (use === 'pairs') {
    const list = (Array.isArray(value) ? value : obj!.rates) as unknown[];
    out = list.map((r, i) => {
      const row = (r ?? {}) as Record<string, unknown>;
      const fetched = timestamp(row.fetched_at, `rates[${i}].fetched_at`);
      return {
        base: String(row.base ?? '').toUpperCase(),
        quote: String(row.quote ?? '').toUpperCase(),
        rate: decimalText(row.rate, `rates[${i}].rate`),
        ...(fetched ? { fetched_at: fetched } : {}),
      };
    });
  } else {
    if (
      !obj ||
      typeof obj !== 'object' ||
      typeof obj.base !== 'string' ||
      typeof obj.rates !== 'object' ||
      obj.rates === null
    ) {
      throw new FxDocumentError(
        'expected {"base": "USD", "rates": {"BRL": 5.43, …}} or {"rates": [{"base", "quote", "rate"}, …]}',
      );
    }
    const fetched = timestamp(obj.fetched_at ?? obj.date, 'fetched_at');
    const base = obj.base.toUpperCase();
    out = Object.entries(obj.rates as Record<string, unknown>)
      .filter(([quote]) => quote.toUpperCase() !== base)
      .map(([quote, rate]) => ({
        base,
        quote: quote.toUpperCase(),
        rate: decimalText(rate, `rates.${quote}`),
        ...(fetched ? { fetched_at: fetched } : {}),
      }));
  }
  if (out.length === 0) throw new FxDocumentError('the document holds no rate');
  const checked = z.array(FxRateInput).safeParse(out);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new FxDocumentError(`rates[${issue.path.join('.')}]: ${issue.message}`);
  }
  return checked.data;
}
