/**
 * What of a call's arguments may be written down. Secrets never reach a call
 * row, a log line or an event; personal numbers (Brazilian CPF and CNPJ,
 * payment card numbers) are masked before any call record is written, so
 * `GET /v1/logs` and its stream only ever show them masked. The rules are
 * documented in docs/logs.md; keep the two in step.
 */

/**
 * Rule 1, credentials by name: passwords, tokens, keys, secrets, cookies,
 * PINs, card verification codes and card numbers. The whole value is
 * replaced. (A field is also a secret when its schema says so: `writeOnly:
 * true`, `format: "password"` or `"x-secret": true`.)
 */
export const SECRET_FIELD =
  /pass(word|wd|phrase)?$|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|authorization|cookie|^pin$|cvv|cvc|security[-_]?code|card[-_]?number|^pan$/i;

/**
 * Rule 2, document fields by name: CPF, CNPJ and other tax or national ids.
 * Every digit of their values but the last two is masked, whatever the
 * format (`123.456.789-09` → `***.***.***-09`), and so is every digit inside
 * them when they hold an object (`document: {type, number}`).
 */
export const DOCUMENT_FIELD =
  /cpf|cnpj|(^|[_-])doc$|^document(o|s)?([_-]?(number|id|no))?$|[_-]document(o)?([_-]?(number|id|no))?$|[a-z]Document(Number|Id)?$|tax[-_]?(id|number)|national[-_]?id|^(rg|rfc|curp|cuit|cuil|rut|nit|nif|dni|ssn)$/i;

export const REDACTED = '[redacted]';

type Schema =
  | { properties?: Record<string, Schema>; items?: Schema; writeOnly?: boolean; format?: string; 'x-secret'?: boolean }
  | undefined;

function secretBySchema(schema: Schema): boolean {
  return !!schema && (schema.writeOnly === true || schema.format === 'password' || schema['x-secret'] === true);
}

/** A copy of `value` with every secret field replaced by `[redacted]` (rule 1 only). */
export function redactSecrets(value: unknown, schema?: unknown): unknown {
  const s = schema as Schema;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, s?.items));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const child = s?.properties?.[k];
    out[k] = SECRET_FIELD.test(k) || secretBySchema(child) ? REDACTED : redactSecrets(v, child);
  }
  return out;
}

/** Replaces every digit but the last `keep` with `*`, leaving punctuation and letters. */
function maskDigits(text: string, keep: number): string {
  let seen = 0;
  const total = (text.match(/\d/g) ?? []).length;
  return text.replace(/\d/g, (d) => (++seen > total - keep ? d : '*'));
}

/** Whether 11 digits carry a CPF's two check digits. */
export function isCpf(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || /^(\d)\1{10}$/.test(digits)) return false;
  const n = [...digits].map(Number);
  for (const len of [9, 10]) {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += n[i]! * (len + 1 - i);
    const check = ((sum * 10) % 11) % 10;
    if (check !== n[len]) return false;
  }
  return true;
}

/** Whether 14 digits carry a CNPJ's two check digits. */
export function isCnpj(digits: string): boolean {
  if (!/^\d{14}$/.test(digits) || /^(\d)\1{13}$/.test(digits)) return false;
  const n = [...digits].map(Number);
  for (const len of [12, 13]) {
    let sum = 0;
    let weight = len - 7;
    for (let i = 0; i < len; i++) {
      sum += n[i]! * weight;
      weight = weight === 2 ? 9 : weight - 1;
    }
    const r = sum % 11;
    if ((r < 2 ? 0 : 11 - r) !== n[len]) return false;
  }
  return true;
}

/** The Luhn checksum every payment card number passes. */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const FORMATTED_CPF = /(?<![\d.])\d{3}\.\d{3}\.\d{3}-\d{2}(?!\d)/g;
const FORMATTED_CNPJ = /(?<![\d.])\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}(?!\d)/g;
const BARE_DOCUMENT = /(?<!\d)(\d{14}|\d{11})(?!\d)/g;
// Contiguous, or in the printed groups: 4-4-4-4 (and up to 3 more), or 4-6-5.
const CARD_LIKE =
  /(?<!\d)(?:[2-6]\d{12,18}|[2-6]\d{3}(?:([ -])\d{4}(?:\1\d{4}){2}(?:\1\d{1,3})?|([ -])\d{6}\2\d{5}))(?![\d])/g;

/**
 * Rules 3 to 5, anywhere in text: a formatted CPF or CNPJ keeps only its two
 * check digits; so does a bare run of 11 or 14 digits whose check digits are
 * a CPF's or a CNPJ's; 13 to 19 digits, contiguous or printed in groups
 * (4-4-4-4, 4-6-5, spaces or dashes), starting with 2 to 6 and passing the
 * Luhn check are a card number and keep only their last four.
 */
export function maskPersonalNumbers(text: string): string {
  // Nothing here can match fewer than 11 digits: most strings stop at this test.
  if (text.length < 11 || !/\d{2}/.test(text)) return text;
  return text
    .replace(FORMATTED_CPF, (m) => maskDigits(m, 2))
    .replace(FORMATTED_CNPJ, (m) => maskDigits(m, 2))
    .replace(BARE_DOCUMENT, (m) => (isCpf(m) || isCnpj(m) ? maskDigits(m, 2) : m))
    .replace(CARD_LIKE, (m) => {
      const digits = m.replace(/[ -]/g, '');
      return digits.length >= 13 && digits.length <= 19 && luhn(digits) ? maskDigits(m, 4) : m;
    });
}

const ROTA_KEY = /csk_(?:live|test)_[A-Za-z0-9_-]*/g;
const BEARER = /\b(bearer)\s+[A-Za-z0-9._~+/-]{8,}=*/gi;

/**
 * Rule 6, credentials inside text: a Rota API key (`csk_live_…`,
 * `csk_test_…`) and a `Bearer` token (8 characters or more) pasted into a
 * field are replaced.
 */
export function maskCredentialsInText(text: string): string {
  if (text.length < 8) return text;
  let out = text;
  if (out.includes('csk_')) out = out.replace(ROTA_KEY, REDACTED);
  if (/bearer\s/i.test(out)) out = out.replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  return out;
}

function maskDocument(value: unknown): unknown {
  if (typeof value === 'string') return maskDigits(value, 2);
  if (typeof value === 'number' || typeof value === 'bigint') return maskDigits(String(value), 2);
  if (Array.isArray(value)) return value.map(maskDocument);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      out[k] = SECRET_FIELD.test(k) ? REDACTED : maskDocument(v);
    return out;
  }
  return value;
}

/**
 * A call's parameters as every call record holds them: secrets replaced
 * (rule 1, by name or by `schema`), document fields masked (rule 2), and
 * personal numbers masked wherever they appear in text or as whole integers
 * (rules 3 to 5), credentials pasted into text replaced (rule 6). Masking
 * what is already masked changes nothing.
 */
export function maskParameters(value: unknown, schema?: unknown): unknown {
  if (typeof value === 'string') return maskCredentialsInText(maskPersonalNumbers(value));
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 1e10) return value;
    const masked = maskPersonalNumbers(String(value));
    return masked === String(value) ? value : masked;
  }
  const s = schema as Schema;
  if (Array.isArray(value)) return value.map((v) => maskParameters(v, s?.items));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const child = s?.properties?.[k];
    if (SECRET_FIELD.test(k) || secretBySchema(child)) out[k] = REDACTED;
    else if (DOCUMENT_FIELD.test(k)) out[k] = maskDocument(v);
    else out[k] = maskParameters(v, child);
  }
  return out;
}

/**
 * A proxy endpoint with the values of its own query string masked as
 * `params` are (`/v1/x?api_key=…&cpf=…` keeps its names, loses the key and
 * all but two digits of the CPF). The path is kept as it was sent. A value
 * that needs no masking keeps its original encoding.
 */
export function maskEndpointQuery(endpoint: string): string {
  const q = endpoint.indexOf('?');
  if (q === -1 || q === endpoint.length - 1) return endpoint;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  const parts = endpoint
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const rawName = eq === -1 ? part : part.slice(0, eq);
      if (eq === -1) return part;
      const name = decode(rawName);
      const value = decode(part.slice(eq + 1));
      const masked = (maskParameters({ [name]: value }) as Record<string, unknown>)[name];
      return masked === value ? part : `${rawName}=${encodeURIComponent(String(masked))}`;
    });
  return `${endpoint.slice(0, q)}?${parts.join('&')}`;
}
