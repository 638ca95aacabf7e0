import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Environment, Tenant } from '@rota/contracts';

/**
 * The OAuth2 `state` of a connect flow, and its PKCE pair. Pure apart from
 * randomness and the key passed in.
 *
 * A state is `<payload>.<mac>`: the payload (base64url JSON) names the flow,
 * its tenant and provider, a random nonce and an expiry; the mac is
 * HMAC-SHA256 over the payload under a key derived from the credentials
 * keyring (`keyId` says which key, so a rotation does not break flows in
 * progress). The callback trusts nothing in a state whose mac does not
 * verify, and the flow row it names must also hold the nonce's hash and
 * still be pending: a state works once.
 */

export interface StatePayload {
  /** Format version. */
  v: 1;
  /** The flow (`context_id`). */
  c: string;
  /** Random nonce; the flow row stores its SHA-256. */
  n: string;
  o: string;
  p: string;
  e: Environment;
  /** Provider id. */
  s: string;
  /** Expiry, Unix seconds. */
  x: number;
  /** Id of the keyring key the mac key was derived from. */
  k: string;
}

/** What the HMAC key derivation is for (see `Keyring.derive`). */
export const STATE_KEY_PURPOSE = 'oauth-state/v1';

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

function mac(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(`rota-oauth-state.${body}`).digest();
}

export function newNonce(): string {
  return randomBytes(24).toString('base64url');
}

export function hashNonce(nonce: string): string {
  return createHash('sha256').update(nonce).digest('hex');
}

export function signState(payload: StatePayload, key: Buffer): string {
  const body = b64url(JSON.stringify(payload));
  return `${body}.${b64url(mac(key, body))}`;
}

export type StateCheck =
  | { ok: true; payload: StatePayload }
  | { ok: false; reason: 'malformed' | 'unknown_key' | 'bad_signature' | 'expired' };

/**
 * Verifies a state: shape, signature (in constant time), then expiry. The
 * payload is parsed before the signature is checked only to learn which key
 * to check it with; nothing in it is used unless the signature holds.
 */
export function verifyState(state: string, keyFor: (keyId: string) => Buffer | null, nowS: number): StateCheck {
  const parts = state.split('.');
  if (parts.length !== 2 || !/^[A-Za-z0-9_-]+$/.test(parts[0]!) || !/^[A-Za-z0-9_-]+$/.test(parts[1]!))
    return { ok: false, reason: 'malformed' };
  const [body, sig] = parts as [string, string];
  let payload: StatePayload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StatePayload;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (
    payload === null ||
    typeof payload !== 'object' ||
    payload.v !== 1 ||
    ![payload.c, payload.n, payload.o, payload.p, payload.s, payload.k].every(
      (x) => typeof x === 'string' && x.length > 0 && x.length <= 200,
    ) ||
    (payload.e !== 'live' && payload.e !== 'test') ||
    !Number.isInteger(payload.x)
  ) {
    return { ok: false, reason: 'malformed' };
  }
  const key = keyFor(payload.k);
  if (!key) return { ok: false, reason: 'unknown_key' };
  const expected = mac(key, body);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'bad_signature' };
  if (payload.x <= nowS) return { ok: false, reason: 'expired' };
  return { ok: true, payload };
}

/** The tenant a verified state names. */
export function stateTenant(p: StatePayload): Tenant {
  return { org_id: p.o, project_id: p.p, environment: p.e };
}

/** RFC 7636: a 43-character verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
