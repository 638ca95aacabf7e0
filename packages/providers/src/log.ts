/** The part of a pino logger this package uses. */
export interface ProviderLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

/**
 * Field names whose values are credentials wherever they appear in a log
 * object. The same list suits pino's `redact.paths` (as `*.name` and `name`),
 * so an app can give its own logger the rule this package applies.
 */
export const CREDENTIAL_FIELDS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'api_key',
  'apikey',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'secret',
  'password',
  'private_key',
  'certificate',
  'ca',
  'key',
  'credentials',
] as const;

/** `CREDENTIAL_FIELDS` as pino redaction paths, at the top level and one level down. */
export const CREDENTIAL_REDACT_PATHS = CREDENTIAL_FIELDS.flatMap((f) => [`["${f}"]`, `*["${f}"]`]);

const REDACTED = '[redacted]';
const FIELDS: ReadonlySet<string> = new Set(CREDENTIAL_FIELDS);

function scrub(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') {
    let out = value;
    for (const s of secrets) if (s.length >= 4 && out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  }
  if (value instanceof Error)
    return scrub(
      { name: value.name, message: value.message, code: (value as { code?: unknown }).code },
      secrets,
      depth,
    );
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = FIELDS.has(k.toLowerCase()) ? REDACTED : scrub(v, secrets, depth + 1);
  return out;
}

/**
 * Wraps a logger so that nothing this package logs can carry a credential:
 * fields named like credentials are replaced, and so is any known secret
 * value found in a string (an error message quoting a header, say).
 * `secrets` is read at each line, so values learnt later (a fresh access
 * token) are covered too.
 */
export function redactingLogger(
  logger: ProviderLogger | undefined,
  secrets: () => readonly string[] = () => [],
): ProviderLogger {
  if (!logger) return { info: () => undefined, warn: () => undefined };
  return {
    info: (obj, msg) =>
      logger.info(scrub(obj, secrets(), 0) as Record<string, unknown>, scrub(msg, secrets(), 0) as string),
    warn: (obj, msg) =>
      logger.warn(scrub(obj, secrets(), 0) as Record<string, unknown>, scrub(msg, secrets(), 0) as string),
  };
}
