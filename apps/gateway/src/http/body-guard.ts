/**
 * Checks every request body and URL once, in the gateway, for input that no
 * route can use and that would otherwise fail deep inside a service as a 5xx:
 *
 * - U+0000 anywhere: Postgres text and jsonb cannot hold it;
 * - a lone UTF-16 surrogate (`"\ud800"` is valid JSON): it has no UTF-8
 *   form, so Postgres refuses it too;
 * - nesting deeper than {@link MAX_BODY_DEPTH}: serialising such a value
 *   again (for the transport, a schema check, a jsonb column) overflows the
 *   call stack, while JSON.parse accepts any depth the body size allows.
 *
 * The walk uses an explicit stack, so it looks at every level without
 * recursing itself. It refers to nothing outside its own body, because the
 * off-thread JSON parser runs its source text in a worker.
 */
export const MAX_BODY_DEPTH = 128;

export type BodyProblem = 'nul' | 'lone_surrogate' | 'too_deep';

export function bodyProblem(value: unknown, maxDepth = MAX_BODY_DEPTH): BodyProblem | null {
  // Without the `u` flag a regular expression sees UTF-16 code units, so
  // this matches a high surrogate with no low one after it, or a low one
  // with no high one before it.
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return 'nul';
      if (lone.test(v)) return 'lone_surrogate';
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return 'too_deep';
    if (Array.isArray(v)) {
      for (const item of v) stack.push([item, depth + 1]);
    } else {
      for (const [k, item] of Object.entries(v)) {
        if (k.includes('\u0000')) return 'nul';
        if (lone.test(k)) return 'lone_surrogate';
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
