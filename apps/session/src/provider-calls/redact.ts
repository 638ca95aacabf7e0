/**
 * Secrets in tool input never reach a call row, a log line or an event.
 * A field is a secret when its schema says so (`writeOnly: true`,
 * `format: "password"` or `"x-secret": true`) or when its name says so
 * (the rule below: passwords, tokens, keys, card numbers and codes).
 * Personal document numbers are masked by the call-log rules, not here.
 */
export const SECRET_FIELD =
  /pass(word|wd|phrase)?$|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|authorization|cookie|^pin$|cvv|cvc|security[-_]?code|card[-_]?number|^pan$/i;

export const REDACTED = '[redacted]';

type Schema = { properties?: Record<string, Schema>; items?: Schema; writeOnly?: boolean; format?: string; 'x-secret'?: boolean } | undefined;

function secretBySchema(schema: Schema): boolean {
  return !!schema && (schema.writeOnly === true || schema.format === 'password' || schema['x-secret'] === true);
}

/** A copy of `value` with every secret field replaced by `[redacted]`. */
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
