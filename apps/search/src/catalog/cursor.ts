import { AppError } from '@rota/contracts';

/** What a cursor field holds: free text, or a row id that the SQL casts to `uuid`. */
export type CursorField = 'text' | 'uuid';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Code units, not code points (no `u` flag): a surrogate without its partner.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Paging tokens are opaque to clients: base64url of a small JSON object. */
export function encodeCursor(value: Record<string, string>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function fits(value: unknown, kind: CursorField): value is string {
  if (typeof value !== 'string') return false;
  if (kind === 'uuid') return UUID.test(value);
  // The value goes back into a query as a parameter; Postgres refuses NUL
  // and text that has no UTF-8 form, which would otherwise surface as a 500.
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

/**
 * Reads a token made by {@link encodeCursor} whose fields have the given
 * kinds. A token a client edited (not base64url JSON, a field missing or of
 * the wrong kind) is a 400 `invalid_query`, never a failure in the query.
 */
export function decodeCursor<K extends string>(
  token: string,
  shape: Readonly<Record<K, CursorField>>,
): Record<K, string> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(shape) as K[];
    if (keys.every((k) => fits(record[k], shape[k])))
      return Object.fromEntries(keys.map((k) => [k, record[k]])) as Record<K, string>;
  }
  throw new AppError('invalid_query', 'The query string is invalid.', {
    issues: [{ path: ['cursor'], message: 'not a cursor returned by this route', code: 'custom' }],
  });
}
