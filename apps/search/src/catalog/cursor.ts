import { AppError } from '@rota/contracts';

/** Paging tokens are opaque to clients: base64url of a small JSON object. */
export function encodeCursor(value: Record<string, string>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** Reads a token made by {@link encodeCursor}; anything else is a 400 `invalid_query`. */
export function decodeCursor<K extends string>(token: string, keys: readonly K[]): Record<K, string> {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (value && typeof value === 'object' && keys.every((k) => typeof value[k] === 'string')) return value as Record<K, string>;
  } catch {
    // fall through
  }
  throw new AppError('invalid_query', 'The query string is invalid.', {
    issues: [{ path: ['cursor'], message: 'not a cursor returned by this route', code: 'custom' }],
  });
}
