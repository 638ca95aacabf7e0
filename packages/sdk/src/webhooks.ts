/**
 * Standard Webhooks verification for Rota's deliveries: `webhook-id`,
 * `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">`, keyed with the bytes of the subscription's
 * `whsec_<base64>` secret. Node's `crypto`; compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a timestamp may be from now, in seconds, before the message is refused (a replay guard). */
export const WEBHOOK_TOLERANCE_S = 300;

/** A delivery that is not signed by the secret, lacks a header, or whose timestamp is too far from now. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

function secretBytes(secret: string | Uint8Array): Buffer {
  if (typeof secret !== 'string') return Buffer.from(secret);
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

function header(headers: Headers | Record<string, string | string[] | undefined>, name: string): string {
  const value =
    typeof (headers as Headers).get === 'function'
      ? (headers as Headers).get(name)
      : Object.entries(headers as Record<string, string | string[] | undefined>).find(
          ([k]) => k.toLowerCase() === name,
        )?.[1];
  const one = Array.isArray(value) ? value[0] : value;
  if (typeof one !== 'string' || one === '') throw new WebhookVerificationError(`missing header ${name}`);
  return one;
}

/** The `webhook-signature` value (`v1,<base64>`) of one message. */
export function signWebhook(
  secret: string | Uint8Array,
  id: string,
  timestamp: number,
  body: string | Uint8Array,
): string {
  const hmac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.`);
  hmac.update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return `v1,${hmac.digest('base64')}`;
}

/**
 * Checks a Rota webhook delivery and answers its parsed JSON body. Pass the
 * body exactly as received (a string or the raw bytes, before any parsing)
 * and the request's headers (a `Headers` or a plain object, as Node's
 * `req.headers`). Throws `WebhookVerificationError` when a header is
 * missing, the timestamp is more than `toleranceS` (300) seconds from now,
 * or no `v1` signature matches.
 */
export function verifyWebhook<T = unknown>(
  secret: string | Uint8Array,
  body: string | Uint8Array,
  headers: Headers | Record<string, string | string[] | undefined>,
  opts: { toleranceS?: number; now?: Date } = {},
): T {
  const id = header(headers, 'webhook-id');
  const rawTs = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const ts = Number(rawTs);
  if (!/^\d+$/.test(rawTs) || !Number.isSafeInteger(ts))
    throw new WebhookVerificationError('invalid webhook-timestamp');
  const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const tolerance = opts.toleranceS ?? WEBHOOK_TOLERANCE_S;
  if (ts < now - tolerance) throw new WebhookVerificationError('message timestamp too old');
  if (ts > now + tolerance) throw new WebhookVerificationError('message timestamp too new');
  const expected = Buffer.from(signWebhook(secret, id, ts, body).slice(3), 'base64');
  const ok = signatures.split(' ').some((item) => {
    const comma = item.indexOf(',');
    if (comma < 0 || item.slice(0, comma) !== 'v1') return false;
    const given = Buffer.from(item.slice(comma + 1), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!ok) throw new WebhookVerificationError('no matching signature');
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  return (text === '' ? null : JSON.parse(text)) as T;
}
