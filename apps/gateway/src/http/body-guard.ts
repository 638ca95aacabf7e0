/**
 * Checks every request body and URL once, in the gateway, for input that no
 * route can use and that would otherwise fail deep inside a service as a 5xx:
 *
 * - U+0000 anywhere: Postgres text and jsonb cannot hold it;
 * - nesting deeper than {@link MAX_BODY_DEPTH}: serialising such a value
 *   again (for the transport, a schema check, a jsonb column) overflows the
 *   call stack, while JSON.parse accepts any depth the body size allows.
 *
 * The walk uses an explicit stack, so it looks at every level without
 * recursing itself.
 */
export const MAX_BODY_DEPTH = 128;

export type BodyProblem = 'nul' | 'too_deep';

export function bodyProblem(value: unknown, maxDepth = MAX_BODY_DEPTH): BodyProblem | null {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return 'nul';
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return 'too_deep';
    if (Array.isArray(v)) {
      for (const item of v) stack.push([item, depth + 1]);
    } else {
      for (const [k, item] of Object.entries(v)) {
        if (k.includes('\u0000')) return 'nul';
        stack.push([item, depth + 1]);
      }
    }
  }
  return null;
}

/** True when the raw URL carries a NUL, percent-encoded or not. */
export function urlContainsNul(url: string): boolean {
  return url.includes('\u0000') || /%00/i.test(url);
}
