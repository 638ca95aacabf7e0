/**
 * Postgres text cannot hold U+0000, so a NUL anywhere in a request would
 * surface as a database error (a 5xx) deep inside a service. The gateway
 * refuses such requests up front, once for every route.
 */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 64 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => containsNul(v, depth + 1));
  for (const [k, v] of Object.entries(value)) if (k.includes('\u0000') || containsNul(v, depth + 1)) return true;
  return false;
}

/** True when the raw URL carries a NUL, percent-encoded or not. */
export function urlContainsNul(url: string): boolean {
  return url.includes('\u0000') || /%00/i.test(url);
}
