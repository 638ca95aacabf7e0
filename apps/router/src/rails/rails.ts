import { currencyExponent, type RailMethod, type RecipientKind, type Urgency } from '@rota/contracts';
import type { Rail, RailDirection, RoutedTool } from './rail';

/**
 * The seed rails for the demo catalog.
 *
 * Written by Rota for routing; every cost and latency below is an
 * ILLUSTRATIVE default chosen to give the ranking realistic shapes (Pix
 * cheap and instant, boleto slow, cross-border dearer, and so on). None of
 * them is a quote from the provider, and a deployment should replace them
 * with its own contracted prices. Telemetry replaces the latency figures as
 * soon as real calls are recorded.
 */

/** Units of each currency per US dollar, used only to express illustrative USD-denominated fees locally. */
const ILLUSTRATIVE_UNITS_PER_USD: Readonly<Record<string, number>> = {
  USD: 1,
  EUR: 0.92,
  BRL: 5,
  MXN: 18,
  COP: 4000,
  ARS: 1000,
  CLP: 950,
  PEN: 3.7,
  UYU: 40,
};
/** Every currency the seed rails price in. */
export const SERVED_CURRENCIES = Object.keys(ILLUSTRATIVE_UNITS_PER_USD);

/** A fee given in US cents, expressed in the minor units of each currency listed. */
function usdFee(cents: number, currencies: readonly string[] = SERVED_CURRENCIES): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of currencies) out[c] = Math.round((cents / 100) * ILLUSTRATIVE_UNITS_PER_USD[c]! * 10 ** currencyExponent(c));
  return out;
}

const LATAM_ANY: readonly RecipientKind[] = ['email', 'phone', 'other'];
const BR_PEOPLE: readonly RecipientKind[] = ['cpf', 'cnpj', 'email', 'phone', 'other'];

interface RailSpec {
  currencies: readonly string[] | '*';
  countries: readonly string[];
  fastest: Urgency;
  fixed: Record<string, number>;
  bps?: number;
  refunds?: boolean;
  recipients?: readonly RecipientKind[];
  latency: number;
}

function rail(provider_id: string, tool: RoutedTool, method: RailMethod, direction: RailDirection, s: RailSpec): Rail {
  return {
    id: `${provider_id}.${method}.${direction}`,
    provider_id,
    tool,
    method,
    direction,
    refunds: s.refunds ?? false,
    currencies: s.currencies,
    countries: s.countries,
    fastest: s.fastest,
    recipient_kinds: s.recipients ?? LATAM_ANY,
    cost: { fixed_minor: s.fixed, bps: s.bps ?? 0 },
    nominal_latency_ms: s.latency,
  };
}

const charge = (p: string, m: RailMethod, s: RailSpec) => rail(p, 'codespar_charge', m, 'in', s);
const pay = (p: string, m: RailMethod, s: RailSpec) => rail(p, 'codespar_pay', m, 'out', s);
const invoice = (p: string, m: RailMethod, s: RailSpec) => rail(p, 'codespar_invoice', m, 'none', s);
const notify = (p: string, m: RailMethod, s: RailSpec) => rail(p, 'codespar_notify', m, 'none', s);
const ship = (p: string, s: RailSpec) => rail(p, 'codespar_ship', 'label', 'none', s);

const BR = { currencies: ['BRL'], countries: ['BR'] } as const;
const MX = { currencies: ['MXN'], countries: ['MX'] } as const;
const CO = { currencies: ['COP'], countries: ['CO'] } as const;
const CL = { currencies: ['CLP'], countries: ['CL'] } as const;
const PE = { currencies: ['PEN'], countries: ['PE'] } as const;

const pixIn = { ...BR, fastest: 'instant', refunds: true, recipients: BR_PEOPLE } as const;
const boletoIn = { ...BR, fastest: 'next_day', refunds: false, recipients: ['cpf', 'cnpj'] } as const;
const cardBr = { ...BR, fastest: 'instant', refunds: true, recipients: BR_PEOPLE } as const;

export const RAILS: readonly Rail[] = [
  // --- collecting in Brazil ---
  charge('asaas', 'pix', { ...pixIn, fixed: { BRL: 99 }, latency: 350 }),
  charge('asaas', 'boleto', { ...boletoIn, fixed: { BRL: 199 }, latency: 500 }),
  charge('asaas', 'card', { ...cardBr, fixed: { BRL: 49 }, bps: 299, latency: 900 }),
  charge('pagarme', 'pix', { ...pixIn, fixed: { BRL: 0 }, bps: 119, latency: 300 }),
  charge('pagarme', 'card', { ...cardBr, fixed: { BRL: 0 }, bps: 349, latency: 800 }),
  charge('pagarme', 'boleto', { ...boletoIn, fixed: { BRL: 349 }, latency: 450 }),
  charge('efi', 'pix', { ...pixIn, fixed: { BRL: 0 }, bps: 119, latency: 320 }),
  charge('efi', 'boleto', { ...boletoIn, fixed: { BRL: 345 }, latency: 500 }),
  charge('efi', 'card', { ...cardBr, fixed: { BRL: 29 }, bps: 349, latency: 850 }),
  charge('pagseguro', 'pix', { ...pixIn, fixed: { BRL: 0 }, bps: 99, latency: 420 }),
  charge('pagseguro', 'card', { ...cardBr, fixed: { BRL: 40 }, bps: 399, latency: 950 }),
  charge('pagseguro', 'boleto', { ...boletoIn, fixed: { BRL: 349 }, latency: 600 }),
  charge('iugu', 'pix', { ...pixIn, fixed: { BRL: 59 }, latency: 380 }),
  charge('iugu', 'card', { ...cardBr, fixed: { BRL: 0 }, bps: 251, latency: 900 }),
  charge('iugu', 'boleto', { ...boletoIn, fixed: { BRL: 249 }, latency: 550 }),
  charge('inter', 'pix', { ...pixIn, fixed: { BRL: 0 }, latency: 600 }),
  charge('inter', 'boleto', { ...boletoIn, fixed: { BRL: 150 }, latency: 700 }),
  charge('mercadopago', 'pix', { ...pixIn, fixed: { BRL: 0 }, bps: 99, latency: 400 }),
  // --- collecting across Latin America and worldwide ---
  charge('mercadopago', 'card', {
    currencies: ['BRL', 'ARS', 'MXN', 'COP', 'CLP', 'PEN'],
    countries: ['BR', 'AR', 'MX', 'CO', 'CL', 'PE'],
    fastest: 'instant',
    refunds: true,
    recipients: BR_PEOPLE,
    fixed: usdFee(0, ['BRL', 'ARS', 'MXN', 'COP', 'CLP', 'PEN']),
    bps: 399,
    latency: 850,
  }),
  charge('mercadopago', 'wallet', {
    currencies: ['BRL', 'ARS', 'MXN'],
    countries: ['BR', 'AR', 'MX'],
    fastest: 'instant',
    refunds: true,
    recipients: ['wallet', 'email', 'phone'],
    fixed: usdFee(0, ['BRL', 'ARS', 'MXN']),
    bps: 349,
    latency: 700,
  }),
  charge('mercadopago', 'oxxo', { ...MX, fastest: 'no_rush', fixed: { MXN: 0 }, bps: 349, latency: 650 }),
  charge('stripe', 'card', {
    currencies: ['USD', 'EUR', 'BRL', 'MXN'],
    countries: ['*'],
    fastest: 'instant',
    refunds: true,
    recipients: BR_PEOPLE,
    fixed: usdFee(30, ['USD', 'EUR', 'BRL', 'MXN']),
    bps: 349,
    latency: 700,
  }),
  charge('stripe', 'oxxo', { ...MX, fastest: 'no_rush', fixed: { MXN: 0 }, bps: 360, latency: 650 }),
  charge('adyen', 'card', {
    currencies: ['USD', 'EUR', 'BRL', 'MXN', 'COP', 'CLP', 'ARS', 'PEN'],
    countries: ['*'],
    fastest: 'instant',
    refunds: true,
    recipients: BR_PEOPLE,
    fixed: usdFee(13, ['USD', 'EUR', 'BRL', 'MXN', 'COP', 'CLP', 'ARS', 'PEN']),
    bps: 290,
    latency: 650,
  }),
  charge('adyen', 'pix', { ...pixIn, fixed: usdFee(15, ['BRL']), latency: 500 }),
  charge('ebanx', 'pix', { ...pixIn, fixed: { BRL: 0 }, bps: 390, latency: 600 }),
  charge('ebanx', 'boleto', { ...boletoIn, fixed: { BRL: 0 }, bps: 390, latency: 700 }),
  charge('ebanx', 'card', {
    currencies: ['BRL', 'MXN', 'COP', 'CLP', 'PEN', 'ARS'],
    countries: ['BR', 'MX', 'CO', 'CL', 'PE', 'AR'],
    fastest: 'instant',
    refunds: true,
    recipients: BR_PEOPLE,
    fixed: usdFee(0, ['BRL', 'MXN', 'COP', 'CLP', 'PEN', 'ARS']),
    bps: 490,
    latency: 1000,
  }),
  charge('ebanx', 'oxxo', { ...MX, fastest: 'no_rush', fixed: { MXN: 0 }, bps: 490, latency: 800 }),
  charge('ebanx', 'spei', { ...MX, fastest: 'instant', fixed: { MXN: 0 }, bps: 390, latency: 700 }),
  charge('ebanx', 'pse', { ...CO, fastest: 'instant', fixed: { COP: 0 }, bps: 390, latency: 900 }),
  // Mexico
  charge('conekta', 'card', { ...MX, fastest: 'instant', refunds: true, fixed: { MXN: 250 }, bps: 290, latency: 700 }),
  charge('conekta', 'oxxo', { ...MX, fastest: 'no_rush', fixed: { MXN: 0 }, bps: 390, latency: 600 }),
  charge('conekta', 'spei', { ...MX, fastest: 'instant', fixed: { MXN: 1250 }, latency: 550 }),
  charge('openpay', 'card', { ...MX, fastest: 'instant', refunds: true, fixed: { MXN: 250 }, bps: 290, latency: 750 }),
  charge('openpay', 'spei', { ...MX, fastest: 'instant', fixed: { MXN: 800 }, latency: 600 }),
  charge('openpay', 'oxxo', { ...MX, fastest: 'no_rush', fixed: { MXN: 250 }, bps: 290, latency: 650 }),
  charge('stp', 'spei', { ...MX, fastest: 'instant', fixed: { MXN: 300 }, latency: 250 }),
  charge('kushki', 'card', {
    currencies: ['USD', 'COP', 'MXN', 'CLP', 'PEN'],
    countries: ['EC', 'CO', 'MX', 'CL', 'PE'],
    fastest: 'instant',
    refunds: true,
    fixed: usdFee(10, ['USD', 'COP', 'MXN', 'CLP', 'PEN']),
    bps: 290,
    latency: 800,
  }),
  // Colombia
  charge('wompi', 'card', { ...CO, fastest: 'instant', refunds: true, fixed: { COP: 70000 }, bps: 265, latency: 700 }),
  charge('wompi', 'pse', { ...CO, fastest: 'instant', fixed: { COP: 70000 }, bps: 265, latency: 900 }),
  charge('wompi', 'wallet', { ...CO, fastest: 'instant', refunds: true, recipients: ['wallet', 'phone'], fixed: { COP: 70000 }, bps: 265, latency: 800 }),
  charge('epayco', 'card', { ...CO, fastest: 'instant', refunds: true, fixed: { COP: 90000 }, bps: 299, latency: 850 }),
  charge('epayco', 'pse', { ...CO, fastest: 'instant', fixed: { COP: 90000 }, bps: 299, latency: 950 }),
  charge('payu', 'card', {
    currencies: ['COP', 'ARS', 'CLP', 'PEN'],
    countries: ['CO', 'AR', 'CL', 'PE'],
    fastest: 'instant',
    refunds: true,
    fixed: usdFee(8, ['COP', 'ARS', 'CLP', 'PEN']),
    bps: 349,
    latency: 900,
  }),
  charge('payu', 'pse', { ...CO, fastest: 'instant', fixed: { COP: 30000 }, bps: 349, latency: 1000 }),
  // Chile
  charge('transbank', 'card', { ...CL, fastest: 'instant', refunds: true, fixed: { CLP: 0 }, bps: 295, latency: 750 }),
  charge('flow', 'card', { ...CL, fastest: 'instant', refunds: true, fixed: { CLP: 0 }, bps: 319, latency: 800 }),
  // Peru
  charge('culqi', 'card', { ...PE, fastest: 'instant', refunds: true, fixed: { PEN: 0 }, bps: 344, latency: 750 }),
  charge('culqi', 'wallet', { ...PE, fastest: 'instant', refunds: true, recipients: ['wallet', 'phone'], fixed: { PEN: 0 }, bps: 300, latency: 700 }),
  charge('niubiz', 'card', { ...PE, fastest: 'instant', refunds: true, fixed: { PEN: 0 }, bps: 345, latency: 800 }),

  // --- paying out ---
  pay('asaas', 'pix', { ...BR, fastest: 'instant', recipients: BR_PEOPLE, fixed: { BRL: 200 }, latency: 400 }),
  pay('inter', 'pix', { ...BR, fastest: 'instant', recipients: BR_PEOPLE, fixed: { BRL: 0 }, latency: 650 }),
  pay('inter', 'wire', { ...BR, fastest: 'same_day', recipients: ['cpf', 'cnpj', 'other'], fixed: { BRL: 0 }, latency: 900 }),
  pay('inter', 'boleto', { ...BR, fastest: 'same_day', recipients: ['other'], fixed: { BRL: 0 }, latency: 900 }),
  pay('efi', 'pix', { ...BR, fastest: 'instant', recipients: BR_PEOPLE, fixed: { BRL: 0 }, bps: 0, latency: 380 }),
  pay('pagarme', 'wire', { ...BR, fastest: 'next_day', recipients: ['cpf', 'cnpj', 'other'], fixed: { BRL: 367 }, latency: 700 }),
  pay('stp', 'spei', { ...MX, fastest: 'instant', recipients: ['other'], fixed: { MXN: 300 }, latency: 250 }),
  pay('openpay', 'spei', { ...MX, fastest: 'instant', recipients: ['other'], fixed: { MXN: 800 }, latency: 600 }),
  pay('bitso', 'spei', { ...MX, fastest: 'instant', recipients: ['other'], fixed: { MXN: 100 }, latency: 500 }),
  pay('ebanx', 'pix', { ...BR, fastest: 'instant', recipients: BR_PEOPLE, fixed: { BRL: 0 }, bps: 150, latency: 800 }),
  pay('ebanx', 'spei', { ...MX, fastest: 'instant', recipients: ['other'], fixed: { MXN: 0 }, bps: 150, latency: 800 }),
  pay('ebanx', 'wire', {
    currencies: ['COP', 'CLP', 'PEN'],
    countries: ['CO', 'CL', 'PE'],
    fastest: 'next_day',
    recipients: ['other'],
    fixed: { COP: 0, CLP: 0, PEN: 0 },
    bps: 150,
    latency: 1000,
  }),
  // Wise pays out in Uruguay too, where no seed rail collects: a charge in UYU is `direction_blocked`.
  pay('wise', 'wire', {
    currencies: ['USD', 'EUR', 'BRL', 'MXN', 'COP', 'ARS', 'CLP', 'PEN', 'UYU'],
    countries: ['*'],
    fastest: 'same_day',
    recipients: ['email', 'other'],
    fixed: usdFee(50, ['USD', 'EUR', 'BRL', 'MXN', 'COP', 'ARS', 'CLP', 'PEN', 'UYU']),
    bps: 65,
    latency: 1200,
  }),

  // --- fiscal documents (per document) ---
  invoice('focusnfe', 'nfe', { ...BR, currencies: '*', fastest: 'instant', recipients: ['cpf', 'cnpj'], fixed: { BRL: 30 }, latency: 1500 }),
  invoice('focusnfe', 'nfse', { ...BR, currencies: '*', fastest: 'instant', recipients: ['cpf', 'cnpj'], fixed: { BRL: 30 }, latency: 1800 }),
  invoice('nuvemfiscal', 'nfe', { ...BR, currencies: '*', fastest: 'instant', recipients: ['cpf', 'cnpj'], fixed: { BRL: 25 }, latency: 1600 }),
  invoice('nuvemfiscal', 'nfse', { ...BR, currencies: '*', fastest: 'instant', recipients: ['cpf', 'cnpj'], fixed: { BRL: 25 }, latency: 2000 }),
  invoice('enotas', 'nfse', { ...BR, currencies: '*', fastest: 'same_day', recipients: ['cpf', 'cnpj'], fixed: { BRL: 20 }, latency: 2500 }),
  invoice('facturama', 'cfdi', { ...MX, currencies: '*', fastest: 'instant', recipients: ['other', 'email'], fixed: { MXN: 150 }, latency: 1200 }),
  invoice('facturapi', 'cfdi', { ...MX, currencies: '*', fastest: 'instant', recipients: ['other', 'email'], fixed: { MXN: 120 }, latency: 1000 }),
  invoice('alegra', 'invoice', { ...CO, currencies: '*', fastest: 'instant', recipients: ['other', 'email'], fixed: { COP: 20000 }, latency: 1400 }),

  // --- messages (per message) ---
  notify('zapi', 'whatsapp', { currencies: '*', countries: ['BR'], fastest: 'instant', recipients: ['phone'], fixed: { BRL: 3 }, latency: 450 }),
  notify('zenvia', 'whatsapp', { currencies: '*', countries: ['BR'], fastest: 'instant', recipients: ['phone'], fixed: { BRL: 25 }, latency: 500 }),
  notify('zenvia', 'sms', { currencies: '*', countries: ['BR'], fastest: 'instant', recipients: ['phone'], fixed: { BRL: 9 }, latency: 400 }),
  notify('twilio', 'whatsapp', { currencies: '*', countries: ['*'], fastest: 'instant', recipients: ['phone'], fixed: usdFee(1), latency: 350 }),
  notify('twilio', 'sms', { currencies: '*', countries: ['*'], fastest: 'instant', recipients: ['phone'], fixed: usdFee(5), latency: 300 }),
  notify('gupshup', 'whatsapp', { currencies: '*', countries: ['*'], fastest: 'instant', recipients: ['phone'], fixed: usdFee(1), latency: 600 }),
  notify('sendgrid', 'email', { currencies: '*', countries: ['*'], fastest: 'instant', recipients: ['email'], fixed: usdFee(0.1), latency: 250 }),

  // --- parcels (typical label price; the route itself only quotes) ---
  ship('melhorenvio', { currencies: '*', countries: ['BR'], fastest: 'next_day', recipients: [...BR_PEOPLE, 'wallet'], fixed: { BRL: 1890 }, latency: 700 }),
  ship('correios', { currencies: '*', countries: ['BR'], fastest: 'next_day', recipients: [...BR_PEOPLE, 'wallet'], fixed: { BRL: 2250 }, latency: 1300 }),
  ship('loggi', { currencies: '*', countries: ['BR'], fastest: 'same_day', recipients: [...BR_PEOPLE, 'wallet'], fixed: { BRL: 2490 }, latency: 800 }),
  ship('skydropx', { currencies: '*', countries: ['MX'], fastest: 'same_day', recipients: [...LATAM_ANY, 'wallet'], fixed: { MXN: 11900 }, latency: 900 }),
  ship('envia', {
    currencies: '*',
    countries: ['MX', 'CO', 'CL', 'BR', 'AR', 'PE'],
    fastest: 'next_day',
    recipients: [...BR_PEOPLE, 'wallet'],
    fixed: usdFee(650, ['MXN', 'COP', 'CLP', 'BRL', 'ARS', 'PEN', 'USD']),
    latency: 1000,
  }),
  ship('chilexpress', { currencies: '*', countries: ['CL'], fastest: 'next_day', recipients: [...LATAM_ANY, 'wallet'], fixed: { CLP: 4500 }, latency: 1100 }),
];

/** Every provider id a seed rail names. */
export const RAIL_PROVIDER_IDS: readonly string[] = [...new Set(RAILS.map((r) => r.provider_id))].sort();

const BY_ID = new Map(RAILS.map((r) => [r.id, r]));
export function railById(id: string): Rail | undefined {
  return BY_ID.get(id);
}
