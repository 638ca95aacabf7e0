import {
  isIsoCurrency,
  majorToMinor,
  PathCIntent,
  type PathCOperation,
  type RailMethod,
  type RecipientKind,
  type Urgency,
} from '@rota/contracts';
import { fold, guessLanguage, isStopword, tokenize } from '@rota/lexicon';
import { findMoney } from './money';

/**
 * The offline extractor: turns a Portuguese, Spanish or English sentence
 * into a structured intent with cue words, amount patterns, and country and
 * method hints. Deterministic and free; it knows commerce phrasing, not
 * language in general, so anything it cannot read comes back as a failure
 * rather than a guess.
 */

export type Extraction =
  | { kind: 'intent'; intent: PathCIntent }
  /** The sentence asks for something none of the six operations does. */
  | { kind: 'unmappable'; reason: string }
  /** Nothing usable came out of it. */
  | { kind: 'failed'; reason: string };

type Cue = readonly [RegExp, number];

/** Evidence per operation: each group that matches adds its weight once. Run on folded text (lower case, no accents). */
const OPERATION_CUES: Record<PathCOperation, readonly Cue[]> = {
  refund: [
    [
      /\b(reembols\w*|estorn\w*|extorn\w*|refund\w*|reimburs\w*|devolv\w*|devoluc\w*|devolucao|reintegr\w*|chargebacks?)\b/,
      6,
    ],
    [/\b(money back|dinheiro de volta|dinero de vuelta|return (?:the |their |his |her )?(?:money|payment))\b/, 6],
  ],
  issue_invoice: [
    [
      /\b(notas? fisca(?:l|is)|nf ?-?e|nfs ?-?e|nfc ?-?e|cfdi|facturas? electronicas?|e-?invoices?|tax invoices?|fiscal|dian)\b/,
      6,
    ],
    [/\b(invoices?|facturas?|factur\w+|faturar|timbrar)\b/, 3],
    [/\b(emitir|emita|emite|emision|emissao|issue|issuing)\b/, 2],
  ],
  ship: [
    [
      /\b(fretes?|shipping|shipments?|paquetes?|pacotes?|encomendas?|parcels?|packages?|freight|couriers?|transportadora|paqueteria|caixas?|cajas?|boxes)\b/,
      4,
    ],
    [/\b(envios?|entregas?|delivery|deliver|despach\w*|ship|etiquetas?|labels?|guias?)\b/, 2],
    [/\b(cotar|cotizar|quote|cotacao|cotizacion)\b/, 1],
  ],
  send_notification: [
    [
      /\b(avis\w*|notific\w*|notify\w*|remind\w*|lembr\w*|recordar\w*|recordatorio|inform\w*|tell|alert\w*|comunic\w*)\b/,
      4,
    ],
    [/\b(whats ?app|zap|wpp|sms|e-?mails?|correos?|torpedo)\b/, 4],
    [/\b(mensagens?|mensajes?|messages?|texts?|textos?)\b/, 2],
  ],
  payout: [
    [/\b(pay ?outs?|transfer\w*|transfir\w*|ted|wire|remit\w*|repass\w*|dispers\w*|saque|sacar|withdraw\w*)\b/, 4],
    [
      /\b(fornecedor\w*|proveedor\w*|suppliers?|vendors?|freelancers?|funcionari\w*|emplead\w*|employees?|contractors?|prestador\w*|colaborador\w*|salari\w*|salary|nomina|folha|comissao|comision\w*|commissions?)\b/,
      2,
    ],
    [
      /\b(pagar|paga|pague|pago|pay|paying|send money|enviar dinheiro|mandar dinheiro|enviar dinero|mandar dinero|mandar plata)\b/,
      2,
    ],
  ],
  charge: [
    [
      /\b(cobrar|cobranc\w*|cobro|cobros|cobra|cobre|cobrame|charge|charging|collect\w*|receber|recebe\w*|recibir|recib\w*|bill (?:the |a |my )?(?:customer|client)s?)\b/,
      4,
    ],
    [/\b(link de pago|link de pagamento|payment link|pay me|me pague|me paga|me pagar)\b/, 3],
  ],
};
/** On a tie, the more specific operation wins. */
const PRECEDENCE: readonly PathCOperation[] = [
  'refund',
  'issue_invoice',
  'ship',
  'send_notification',
  'payout',
  'charge',
];
const CUSTOMER = /\b(clientes?|customers?|compradore?s?|buyers?|consumidor\w*|pacientes?|alunos?|alumnos?)\b/;
const PAY_VERB = OPERATION_CUES.payout[2]![0];
const PAYOUT_STRONG = OPERATION_CUES.payout[0]![0];
const BENEFICIARY = OPERATION_CUES.payout[1]![0];

const COUNTRY_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/\b(brasil|brazil|brasileir\w*|brasilen\w*|brazilian\w*|sao paulo|rio de janeiro|belo horizonte|curitiba)\b/, 'BR'],
  [/\b(mexico|mexic\w*|cdmx|monterrey|guadalajara)\b/, 'MX'],
  [/\b(colombia|colombian\w*|bogota|medellin)\b/, 'CO'],
  [/\b(argentin\w*|buenos aires)\b/, 'AR'],
  [/\b(chile|chilen\w*|chilean\w*|santiago)\b/, 'CL'],
  [/\b(peru|peruan\w*|peruvian\w*|lima)\b/, 'PE'],
  [/\b(uruguay\w*|uruguai\w*|montevideo|montevideu)\b/, 'UY'],
  [/\b(ecuador|equador|ecuatorian\w*|quito|guayaquil)\b/, 'EC'],
  [/\b(estados unidos|united states|eua|eeuu)\b/, 'US'],
  [/\b(espanha|espana|spain)\b/, 'ES'],
  [/\b(portugal)\b/, 'PT'],
];

export const CURRENCY_OF_COUNTRY: Readonly<Record<string, string>> = {
  BR: 'BRL',
  MX: 'MXN',
  CO: 'COP',
  AR: 'ARS',
  CL: 'CLP',
  PE: 'PEN',
  UY: 'UYU',
  EC: 'USD',
  US: 'USD',
  ES: 'EUR',
  PT: 'EUR',
};
const COUNTRY_OF_CURRENCY: Readonly<Record<string, string>> = {
  BRL: 'BR',
  MXN: 'MX',
  COP: 'CO',
  ARS: 'AR',
  CLP: 'CL',
  PEN: 'PE',
  UYU: 'UY',
  USD: 'US',
};
/** Where `$` written alone means the local peso (or the local dollar). */
const DOLLAR_SIGN_COUNTRIES = new Set(['MX', 'CO', 'AR', 'CL', 'UY', 'US', 'EC']);
const PESO_COUNTRIES = new Set(['MX', 'CO', 'AR', 'CL', 'UY']);
/** Currency codes recognised in lower case; others only when written in capitals. */
const COMMON_CODES = new Set(['BRL', 'MXN', 'COP', 'ARS', 'CLP', 'PEN', 'UYU', 'USD', 'EUR']);

/** Method words, with the country each one implies. */
const METHOD_WORDS: ReadonlyArray<[RegExp, RailMethod | null, string | null]> = [
  [/\bpix\b/, 'pix', 'BR'],
  [/\bboletos?\b/, 'boleto', 'BR'],
  [/\b(spei|clabe)\b/, 'spei', 'MX'],
  [/\boxxo\b/, 'oxxo', 'MX'],
  [/\bpse\b/, 'pse', 'CO'],
  [/\b(nequi)\b/, 'wallet', 'CO'],
  [/\b(yape|plin)\b/, 'wallet', 'PE'],
  [/\b(cartao|cartoes|tarjetas?|cards?|credit|credito|debito|debit)\b/, 'card', null],
  [/\b(carteira digital|wallet|billetera)\b/, 'wallet', null],
  [/\b(whats ?app|zap|wpp)\b/, 'whatsapp', null],
  [/\b(sms|torpedo|text message|mensaje de texto|mensagem de texto)\b/, 'sms', null],
  [/\b(e-?mails?|correos?)\b/, 'email', null],
  [/\b(nfs ?-?e|nota fiscal de servicos?|notas fiscais de servicos?|nota de servico)\b/, 'nfse', 'BR'],
  [/\b(nf ?-?e|nota fiscal eletronica de produto|danfe)\b/, 'nfe', 'BR'],
  [/\b(nota fiscal|notas fiscais)\b/, null, 'BR'],
  [/\bcfdi\b/, 'cfdi', 'MX'],
  [/\b(ted|wire|transferencia bancaria|bank transfer)\b/, 'wire', null],
];
/** Which methods make sense for each operation. */
const METHODS_FOR: Record<PathCOperation, ReadonlySet<RailMethod>> = {
  charge: new Set(['pix', 'boleto', 'card', 'wallet', 'spei', 'oxxo', 'pse']),
  refund: new Set(['pix', 'card', 'wallet']),
  payout: new Set(['pix', 'wire', 'spei', 'boleto']),
  issue_invoice: new Set(['nfe', 'nfse', 'cfdi']),
  send_notification: new Set(['whatsapp', 'sms', 'email']),
  ship: new Set(),
};

const URGENCY_WORDS: ReadonlyArray<[RegExp, Urgency]> = [
  [
    /\b(sem pressa|no rush|sin prisa|whenever|quando (?:der|puder)|cuando (?:puedas|pueda)|nao e urgente|no es urgente|not urgent|no hurry)\b/,
    'no_rush',
  ],
  [
    /\b(agora|imediat\w*|na hora|instant\w*|right now|right away|immediately|asap|ya mismo|al instante|inmediat\w*|ahora mismo|em tempo real|real time|urgente|urgent\w*)\b/,
    'instant',
  ],
  [/\b(hoje|today|hoy|same day|mesmo dia|mismo dia|ainda hoje|end of (?:the )?day)\b/, 'same_day'],
  [/\b(amanha|tomorrow|manana|next day|dia seguinte|dia siguiente|d ?\+ ?1)\b/, 'next_day'],
];

const RECIPIENT_WORDS: ReadonlyArray<[RegExp, RecipientKind]> = [
  [/\bcnpj\b|\b\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}\b/, 'cnpj'],
  [/\bcpf\b|\b\d{3}\.\d{3}\.\d{3}-\d{2}\b/, 'cpf'],
  [/[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+/, 'email'],
  [/\b(chave aleatoria|clabe|cuenta bancaria|conta bancaria|bank account|rfc|nit)\b/, 'other'],
  [/\b(carteira digital|wallet|billetera|nequi|yape)\b/, 'wallet'],
  [/\b(celular|telefone|telefono|phone|movil|cel)\b|\+\d{2}[\s-]?\(?\d{2,3}\)?[\s-]?\d{4,5}[\s-]?\d{4}\b/, 'phone'],
];

function pickOperation(folded: string): PathCOperation | null {
  const score = Object.fromEntries(PRECEDENCE.map((op) => [op, 0])) as Record<PathCOperation, number>;
  for (const op of PRECEDENCE) for (const [re, w] of OPERATION_CUES[op]) if (re.test(folded)) score[op] += w;
  // "o cliente vai pagar": a customer paying is money coming in, not a payout.
  if (CUSTOMER.test(folded) && PAY_VERB.test(folded) && !PAYOUT_STRONG.test(folded) && !BENEFICIARY.test(folded)) {
    score.charge += 3;
    score.payout -= 2;
  }
  let best: PathCOperation | null = null;
  for (const op of PRECEDENCE) if (score[op] > 0 && (best === null || score[op] > score[best])) best = op;
  return best;
}

function firstMatch<T>(folded: string, table: ReadonlyArray<readonly [RegExp, T, ...unknown[]]>): T | undefined {
  for (const row of table) if (row[0].test(folded)) return row[1];
  return undefined;
}

export function extractLocal(description: string): Extraction {
  const folded = fold(description);
  const operation = pickOperation(folded);
  if (!operation) {
    // Real words (some function words among them) that name no operation are a request for
    // something else; anything else is text this parser cannot read at all.
    const words = tokenize(description)
      .map((t) => t.text)
      .filter((w) => /^[a-z]+$/.test(w));
    return words.length >= 2 && words.some(isStopword)
      ? {
          kind: 'unmappable',
          reason:
            'The description asks for something none of the six operations (charge, refund, payout, issue_invoice, send_notification, ship) covers.',
        }
      : { kind: 'failed', reason: 'No operation could be read from the description.' };
  }

  let method: RailMethod | undefined;
  let methodCountry: string | undefined;
  for (const [re, m, country] of METHOD_WORDS) {
    if (!re.test(folded)) continue;
    if (country && !methodCountry) methodCountry = country;
    if (!method && m && METHODS_FOR[operation].has(m)) method = m;
  }

  const said = firstMatch(folded, COUNTRY_WORDS) ?? (/\bUSA\b/.test(description) ? 'US' : undefined);
  const upperCodes = new Set(description.match(/\b[A-Z]{3}\b/g) ?? []);
  const money = findMoney(description, (c) => isIsoCurrency(c) && (COMMON_CODES.has(c) || upperCodes.has(c)));
  let currency = money?.currency ?? undefined;
  if (!currency) for (const c of upperCodes) if (isIsoCurrency(c) && COMMON_CODES.has(c)) currency = c;
  let country = said ?? methodCountry ?? (currency ? COUNTRY_OF_CURRENCY[currency] : undefined);
  // Portuguese with no other clue: Brazil is the Portuguese-speaking market Rota serves.
  if (
    !country &&
    !money &&
    guessLanguage(
      tokenize(description).map((t) => t.text),
      description.toLowerCase(),
    ) === 'pt'
  )
    country = 'BR';

  if (!currency && country) {
    if (money?.ambiguous === 'pesos' && !PESO_COUNTRIES.has(country))
      return { kind: 'failed', reason: `"pesos" is not the currency of ${country}.` };
    if (money?.ambiguous === 'dollar_sign' && !DOLLAR_SIGN_COUNTRIES.has(country)) currency = 'USD';
    else currency = CURRENCY_OF_COUNTRY[country];
  }
  if (!currency && money?.ambiguous === 'dollar_sign') {
    currency = 'USD';
    country = 'US';
  }
  if (!country)
    return {
      kind: 'failed',
      reason: 'The description names no country, currency or method that tells where this happens.',
    };
  if (!currency) return { kind: 'failed', reason: `No currency could be read, and ${country} has none on record.` };

  const urgency = firstMatch(folded, URGENCY_WORDS);
  const recipient_kind = firstMatch(folded, RECIPIENT_WORDS);
  const parsed = PathCIntent.safeParse({
    operation,
    currency,
    country,
    ...(money && money.amount > 0 ? { amount_minor: majorToMinor(money.amount, currency) } : {}),
    ...(urgency ? { urgency } : {}),
    ...(recipient_kind ? { recipient_kind } : {}),
    ...(method ? { method } : {}),
  });
  return parsed.success
    ? { kind: 'intent', intent: parsed.data }
    : { kind: 'failed', reason: 'The values read from the description do not form a valid intent.' };
}
