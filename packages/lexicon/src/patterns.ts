/**
 * Concepts recognised from the shape of the text rather than from words:
 * amounts, tracking codes, document numbers, addresses of all kinds.
 * They run on the lowercased (not folded) input so "R$" and "¿" survive.
 */
export interface PatternDef {
  id: string;
  concept: string;
  /** Global regex; quantifiers are bounded so a 2000-character intent stays linear. */
  re: RegExp;
  /** A literal the text must contain for the pattern to be tried at all. */
  requires?: string;
}

const CURRENCY_WORDS =
  'reais|real|pesos|brl|mxn|cop|usd|ars|clp|dolares|dólares|dollars|bucks|mil|k|conto|contos|lucas|usdc|usdt';

export const PATTERNS: readonly PatternDef[] = [
  {
    id: 'amount_symbol',
    concept: 'obj.amount',
    re: /(?:r\$|us\$|mx\$|\$)\s?\d{1,15}(?:[.,]\d{1,3}){0,5}/g,
    requires: '$',
  },
  {
    id: 'amount_word',
    concept: 'obj.amount',
    re: new RegExp(`\\b\\d{1,15}(?:[.,]\\d{1,3}){0,5}\\s?(?:${CURRENCY_WORDS})\\b`, 'g'),
  },
  // Correios-style tracking code: two letters, nine digits, two letters.
  { id: 'tracking_code', concept: 'obj.tracking_code', re: /\b[a-z]{2}\d{9}[a-z]{2}\b/g },
  { id: 'cpf', concept: 'obj.tax_id', re: /\b\d{3}\.\d{3}\.\d{3}-\d{2}\b/g },
  { id: 'cnpj', concept: 'obj.tax_id', re: /\b\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}\b/g },
  { id: 'cep', concept: 'obj.postal_code', re: /\b\d{5}-\d{3}\b/g },
  {
    id: 'email_address',
    concept: 'obj.email_address',
    re: /[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,4}/g,
    requires: '@',
  },
  { id: 'phone', concept: 'obj.phone', re: /(?<![\d.,])(?:\+\d{1,3}[\s-]?)?\(?\d{2,3}\)?[\s-]?9?\d{4}[\s-]?\d{4}\b/g },
  { id: 'evm_address', concept: 'obj.crypto_address', re: /\b0x[0-9a-f]{40}\b/g },
  { id: 'btc_address', concept: 'obj.crypto_address', re: /\b(?:bc1[0-9a-z]{20,})\b/g },
  {
    id: 'card_last_digits',
    concept: 'obj.card_ending',
    re: /\b(?:ending|ends|final|terminad[oa]|termina|terminaci[oó]n|last four|last 4)\s+(?:in\s+|em\s+|en\s+|with\s+|com\s+)?\d{4}\b/g,
  },
  { id: 'installments', concept: 'obj.installments', re: /\b\d{1,2}\s?x\b(?!\s?\d)/g },
  { id: 'weight', concept: 'obj.weight', re: /\b\d{1,6}(?:[.,]\d{1,3})?\s?(?:kg|kgs|kilos?|quilos?|lbs?)\b/g },
  {
    id: 'price_cap',
    concept: 'obj.price_cap',
    re: /\b(?:under|below|less than|up to|at most|até|ate|menos de|hasta|no máximo|no maximo|abaixo de|max\.?)\s+(?:r\$|us\$|\$)?\s?\d{1,15}(?:[.,]\d{1,3}){0,5}/g,
  },
  { id: 'url', concept: 'obj.link', re: /\bhttps?:\/\/\S+/g, requires: 'http' },
];

export interface PatternHit {
  concept: string;
  pattern: string;
  start: number;
  end: number;
}

/** All pattern hits in the text. `lower` must be `text.toLowerCase()` of the same length. */
export function findPatterns(lower: string): PatternHit[] {
  const hits: PatternHit[] = [];
  for (const p of PATTERNS) {
    if (p.requires && !lower.includes(p.requires)) continue;
    p.re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = p.re.exec(lower)) !== null) {
      hits.push({ concept: p.concept, pattern: p.id, start: m.index, end: m.index + m[0].length });
      if (m[0].length === 0) p.re.lastIndex++;
    }
  }
  return hits;
}
