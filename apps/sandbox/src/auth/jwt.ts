import { createHmac, createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { safeEqual } from './compare';

export interface JwtCheck {
  algorithm: 'HS256' | 'RS256';
  secret?: string;
  publicKey?: string;
  issuer?: string;
  audience?: string;
  leewaySeconds: number;
  nowSeconds: number;
}

export type JwtOutcome = { ok: true; claims: Record<string, unknown> } | { ok: false; reason: string };

function decodePart(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const keyCache = new Map<string, KeyObject>();
function publicKeyOf(pem: string): KeyObject {
  let key = keyCache.get(pem);
  if (!key) {
    key = createPublicKey(pem);
    keyCache.set(pem, key);
  }
  return key;
}

/**
 * Verifies a compact JWS the way a provider's gateway does: the algorithm is
 * the configured one (a token naming another, `none` included, is refused
 * before any key is used), the signature, then `exp` (required), `nbf`,
 * `iat` not in the future, and `iss`/`aud` when configured.
 */
export function verifyJwt(token: string, check: JwtCheck): JwtOutcome {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p)))
    return { ok: false, reason: 'malformed token' };
  const [h, p, s] = parts as [string, string, string];
  const header = decodePart(h);
  const claims = decodePart(p);
  if (!header || !claims) return { ok: false, reason: 'malformed token' };
  if (header.alg !== check.algorithm) return { ok: false, reason: 'unexpected algorithm' };
  const signed = Buffer.from(`${h}.${p}`);
  const signature = Buffer.from(s, 'base64url');
  let valid: boolean;
  if (check.algorithm === 'HS256') {
    valid = safeEqual(
      createHmac('sha256', check.secret ?? '')
        .update(signed)
        .digest(),
      signature,
    );
  } else {
    try {
      valid = verifySignature('sha256', signed, publicKeyOf(check.publicKey ?? ''), signature);
    } catch {
      valid = false;
    }
  }
  if (!valid) return { ok: false, reason: 'bad signature' };
  const now = check.nowSeconds;
  const leeway = check.leewaySeconds;
  if (typeof claims.exp !== 'number') return { ok: false, reason: 'exp claim missing' };
  if (claims.exp + leeway <= now) return { ok: false, reason: 'token expired' };
  if (typeof claims.nbf === 'number' && claims.nbf - leeway > now) return { ok: false, reason: 'token not yet valid' };
  if (typeof claims.iat === 'number' && claims.iat - leeway > now)
    return { ok: false, reason: 'token issued in the future' };
  if (check.issuer !== undefined && claims.iss !== check.issuer) return { ok: false, reason: 'unexpected issuer' };
  if (check.audience !== undefined) {
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.includes(check.audience)) return { ok: false, reason: 'unexpected audience' };
  }
  return { ok: true, claims };
}
