import { randomBytes } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Largest multiple of 62 that fits in a byte; bytes at or above it are discarded so every character is equally likely. */
const UNBIASED_LIMIT = 248;

/** `length` random characters from [A-Za-z0-9], drawn from the CSPRNG without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length + 8)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** An opaque id such as `ses_4fQ...`: a type prefix, an underscore, 24 random characters. */
export function newId(prefix: string, length = 24): string {
  return `${prefix}_${randomBase62(length)}`;
}
