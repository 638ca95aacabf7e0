import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time equality for secrets of any length: both sides are hashed
 * first, so neither the content nor the length leaks through timing.
 */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/**
 * How a credential appears in counters and logs: its scheme word when it
 * has one, then only its length. Never any character of the secret.
 */
export function mask(value: string): string {
  const m = /^(Bearer|Basic|Token|Digest)\s+(.*)$/i.exec(value);
  return m ? `${m[1]} <redacted len=${m[2]!.length}>` : `<redacted len=${value.length}>`;
}
