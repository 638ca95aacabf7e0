import type { RailRequirement, RefusalReason } from '@rota/contracts';

/**
 * What an agent sees of a provider's 4xx through an acting meta-tool: a
 * normalised reason it can act on, and the provider's own words with
 * anything that would name the provider, leak a credential or expose an
 * internal id taken out. The raw answer stays on the call row.
 */

/** The longest provider message passed on. */
const MESSAGE_MAX = 240;

/** Keys whose string values are a provider's human-readable explanation, most specific first. */
const MESSAGE_KEYS = [
  'user_message',
  'merchant_message',
  'description',
  'detail',
  'message',
  'error_description',
  'reason',
  'mensagem',
  'descripcion',
  'title',
  'error',
];

/** The provider's explanation in an error body: the first message-like string, searched breadth first. */
export function providerMessage(body: unknown): string | null {
  if (typeof body === 'string') return body.trim() ? body.trim() : null;
  const queue: unknown[] = [body];
  for (let seen = 0; queue.length > 0 && seen < 200; seen++) {
    const node = queue.shift();
    if (Array.isArray(node)) {
      // A list of sentences under a field name (Wompi's `messages: {field: [...]}`).
      const sentence = node.find((v): v is string => typeof v === 'string' && /\s/.test(v.trim()));
      if (sentence) return sentence.trim();
      queue.push(...node.slice(0, 10));
      continue;
    }
    if (!node || typeof node !== 'object') continue;
    const record = node as Record<string, unknown>;
    for (const key of MESSAGE_KEYS) {
      const v = record[key];
      // A bare error code ("bad_request") explains nothing; a sentence does.
      if (typeof v === 'string' && /\s/.test(v.trim())) return v.trim();
    }
    for (const v of Object.values(record)) if (v && typeof v === 'object') queue.push(v);
  }
  return null;
}

/** Machine codes in an error body (`code`, `error`, `type` values), lower-cased, for classifying. */
function providerCodes(body: unknown): string {
  const out: string[] = [];
  const walk = (node: unknown, depth: number) => {
    if (depth > 4 || !node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.slice(0, 10).forEach((n) => walk(n, depth + 1));
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      if ((typeof v === 'string' || typeof v === 'number') && /code|error|type|status_detail|reason/i.test(k))
        out.push(String(v));
      else walk(v, depth + 1);
    }
  };
  walk(body, 0);
  return out.join(' ').toLowerCase();
}

/** Reason patterns in English, Portuguese and Spanish, checked in this order. */
const REASON_PATTERNS: ReadonlyArray<[RefusalReason, RegExp]> = [
  [
    'insufficient_funds',
    /insufficient|saldo insuficiente|fondos insuficientes|sin saldo|not enough (funds|balance)|insufficient_balance/,
  ],
  [
    'duplicate',
    /duplicat|already (exists|been|registered|processed)|j[aá] (existe|foi|cadastrad)|ya existe|repetid|idempot/,
  ],
  [
    'amount_below_minimum',
    /(minimum|m[ií]nim[oa]|below|menor|at least|inferior)[^.]{0,40}(amount|value|valor|monto|importe)|(amount|value|valor|monto|importe)[^.]{0,40}(minimum|m[ií]nim[oa]|below|too (low|small)|menor|inferior)/,
  ],
  [
    'amount_above_maximum',
    /(maximum|m[aá]xim[oa]|exceed|above|mayor|superior|limit)[^.]{0,40}(amount|value|valor|monto|importe)|(amount|value|valor|monto|importe)[^.]{0,40}(maximum|m[aá]xim[oa]|exceed|too (high|large)|mayor|superior|limit)/,
  ],
  [
    'invalid_document',
    /\b(cpf|cnpj|rfc|curp|nit|rut|dni|ruc|cuit|cuil|tax[ _-]?id|document|documento|identification|identificaci[oó]n)\b/,
  ],
  [
    'invalid_recipient',
    /recipient|beneficiar|destinat|payee|receiver|chave pix|pix key|clabe|account number|cuenta|conta|phone number|n[uú]mero de tel|invalid (to|address)|postal code|cep|c[oó]digo postal/,
  ],
  [
    'unsupported_method',
    /not (supported|enabled|available|allowed)|unsupported|n[aã]o (suportad|habilitad|dispon[ií]vel|permitid)|no (soportad|habilitad|disponible|permitid)|payment_method|method/,
  ],
];

/** The normalised reason of a refusal, from the provider's words and codes. */
export function refusalReason(body: unknown, message: string | null): RefusalReason {
  const text = `${message ?? ''} ${providerCodes(body)}`.toLowerCase();
  for (const [reason, pattern] of REASON_PATTERNS) if (pattern.test(text)) return reason;
  return 'other';
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A provider id written as the provider writes its name: `mercadopago` also matches "Mercado Pago", `focusnfe` "Focus NFe". */
function namePattern(providerId: string): RegExp {
  const letters = providerId.replace(/[^a-z0-9]/gi, '').split('');
  return new RegExp(letters.map(escapeRegExp).join('[\\s._-]?'), 'gi');
}

/**
 * The provider's message with its name (and every other provider name
 * given), any credential value, and anything shaped like an internal id
 * (prefixed ids, UUIDs, long digit runs, long tokens) replaced.
 */
export function scrubMessage(message: string, providerIds: readonly string[], secrets: readonly string[]): string {
  let out = message.slice(0, 1000);
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  for (const id of providerIds) if (id.length >= 3) out = out.replace(namePattern(id), 'the provider');
  out = out
    // UUIDs and long hex runs.
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '[id]')
    // Prefixed ids: pay_8f7a…, cus_000005, chr_test_…, ord-123abc.
    .replace(/\b[a-z]{2,6}[_-](?:[a-z]{2,6}[_-])?[a-z0-9]*\d[a-z0-9]*\b/gi, '[id]')
    // Tokens: 20 or more letters and digits mixed.
    .replace(/\b(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{20,}\b/gi, '[id]')
    // Long digit runs (account, order and document numbers); amounts keep their separators and stay.
    .replace(/\b\d{7,}\b/g, '[id]')
    .replace(/\s+/g, ' ')
    .trim();
  return out.length > MESSAGE_MAX ? `${out.slice(0, MESSAGE_MAX - 1)}…` : out;
}

/** The `data` of a `provider_refused` answer. */
export function providerRefusal(
  status: number,
  body: unknown,
  providerIds: readonly string[],
  secrets: readonly string[],
): { code: 'provider_refused'; reason: RefusalReason; message: string; upstream_status: number } {
  const raw = providerMessage(body);
  const reason = refusalReason(body, raw);
  const words = raw ? scrubMessage(raw, providerIds, secrets) : '';
  return {
    code: 'provider_refused',
    reason,
    message: words
      ? `The provider refused the request (status ${status}): ${words}`
      : `The provider refused the request (status ${status}).`,
    upstream_status: status,
  };
}

/** Which status classes of a provider answer are a refusal the caller can act on, a refused credential, or trouble upstream. */
export function answerClass(status: number): 'ok' | 'refused' | 'credentials' | 'upstream' {
  if (status < 300) return 'ok';
  if (status === 401 || status === 403) return 'credentials';
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return 'refused';
  return 'upstream';
}

function valueAt(input: Record<string, unknown>, path: string): unknown {
  let node: unknown = input;
  for (const part of path.split('.')) {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** The first requirement the input does not meet (an absent, null or blank value on every accepted path). */
export function missingRequirement(
  requires: readonly RailRequirement[],
  input: Record<string, unknown>,
): RailRequirement | null {
  for (const r of requires) {
    const paths = r.any_of?.length ? r.any_of : [r.field];
    const met = paths.some((p) => {
      const v = valueAt(input, p);
      return (typeof v === 'string' && v.trim().length > 0) || typeof v === 'number';
    });
    if (!met) return r;
  }
  return null;
}
