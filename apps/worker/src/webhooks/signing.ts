import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256>` of
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the bytes of the
 * `whsec_<base64>` secret. Receivers verify with `verifyWebhook` (or any
 * Standard Webhooks library) and refuse timestamps too far from now.
 */

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** The `webhook-signature` value of one message. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * Whether `signatureHeader` (space-separated `v1,<sig>` items) holds a valid
 * signature of the message, and its timestamp is within `toleranceS` of now.
 */
export function verifyWebhook(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  opts: { toleranceS?: number; now?: number } = {},
): boolean {
  const ts = Number(headers.timestamp);
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (!Number.isInteger(ts) || Math.abs(now - ts) > (opts.toleranceS ?? 300)) return false;
  const expected = Buffer.from(signWebhook(secret, headers.id, ts, body).slice(3), 'base64');
  return headers.signature.split(' ').some((item) => {
    const [version, sig] = item.split(',', 2);
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** The key a development deployment uses when ROTA_WEBHOOK_KEY is unset (ROTA_DEV_MODE only). */
export const DEV_WEBHOOK_KEY = createHash('sha256').update('rota development webhook key').digest();

/**
 * Seals webhook secrets at rest with the worker's own key (AES-256-GCM,
 * bound to the subscription id, so a sealed secret cannot be moved to
 * another row). Layout: 12-byte IV, 16-byte tag, ciphertext.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the webhook key must be 32 bytes');
  }

  seal(plain: string, boundTo: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  open(sealed: Buffer, boundTo: string): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, 12));
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
  }
}
