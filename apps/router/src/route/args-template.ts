import { minorToMajor, type ArgsTemplate, type PathCIntent, type Urgency } from '@rota/contracts';
import type { Rail } from '../rails/rail';

/**
 * The starting arguments for the chosen tool. Each template holds only
 * fields that tool's input schema accepts, with values from its enums, the
 * amount in the unit the tool expects (minor units for codespar_pay, major
 * units for codespar_charge and codespar_checkout), and `missing`: the fields
 * the call still needs that the intent could not supply.
 */

/** How each tool wants its amount. */
export const AMOUNT_UNIT: Readonly<Record<string, 'minor' | 'major'>> = {
  codespar_pay: 'minor',
  codespar_wallet: 'minor',
  codespar_charge: 'major',
  codespar_checkout: 'major',
};

/** `amount_minor` in the unit `tool` expects, with the currency's ISO 4217 exponent. */
export function amountFor(tool: string, amountMinor: number, currency: string): number {
  return AMOUNT_UNIT[tool] === 'minor' ? amountMinor : minorToMajor(amountMinor, currency);
}

const SERVICE_LEVEL: Record<Urgency, 'fastest' | 'standard' | 'cheapest'> = {
  instant: 'fastest',
  same_day: 'fastest',
  next_day: 'standard',
  no_rush: 'cheapest',
};

/** codespar_invoice's `type` for each fiscal rail method. */
const INVOICE_TYPE: Partial<Record<string, 'nfe' | 'nfse' | 'invoice'>> = {
  nfe: 'nfe',
  nfse: 'nfse',
  cfdi: 'invoice',
  invoice: 'invoice',
};

export function buildArgsTemplate(intent: PathCIntent, rail: Rail): ArgsTemplate {
  const hasAmount = intent.amount_minor !== undefined;
  const amount = hasAmount ? amountFor(rail.tool, intent.amount_minor!, intent.currency) : undefined;
  const metadata = intent.metadata !== undefined ? { metadata: intent.metadata } : {};
  switch (rail.tool) {
    case 'codespar_charge': {
      const refund = intent.operation === 'refund';
      return {
        action: refund ? 'refund' : 'charge',
        method: rail.method,
        ...(amount !== undefined ? { amount } : {}),
        currency: intent.currency,
        country: intent.country,
        ...metadata,
        // The published schema requires description and buyer on every call; a refund also names its charge.
        missing: [...(refund ? ['charge_id'] : []), ...(hasAmount ? [] : ['amount']), 'description', 'buyer'],
      };
    }
    case 'codespar_pay':
      return {
        action: 'pay',
        method: rail.method,
        ...(amount !== undefined ? { amount } : {}),
        currency: intent.currency,
        country: intent.country,
        // codespar_pay has no metadata field, so the intent's metadata stays out.
        missing: [...(hasAmount ? [] : ['amount']), 'recipient'],
      };
    case 'codespar_invoice':
      return { action: 'issue', type: INVOICE_TYPE[rail.method] ?? 'invoice', missing: ['recipient', 'items'] };
    case 'codespar_notify':
      return { channel: rail.method, missing: ['to', 'message'] };
    case 'codespar_ship':
      return {
        action: 'quote',
        ...(intent.urgency ? { service_level: SERVICE_LEVEL[intent.urgency] } : {}),
        ...metadata,
        missing: ['origin', 'destination', 'items'],
      };
    default:
      // Path C routes only the five tools above; other rails never reach here.
      return { missing: [] };
  }
}
