import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import type { AuthConfig } from '../config';
import { mask, safeEqual } from './compare';
import { verifyJwt } from './jwt';
import type { OAuthServer } from './oauth';

export interface AuthRequest {
  provider: string;
  method: string;
  /** The request target as received: `/echo-hmac/v1/orders?x=1`. */
  target: string;
  /** The same target without the prefix: `/v1/orders?x=1`. */
  relativeTarget: string;
  headers: IncomingHttpHeaders;
  query: URLSearchParams;
  rawBody: Buffer;
  socket: Socket;
}

/** `status` 401 for a missing or wrong credential, 403 for a refused client certificate. */
export type AuthOutcome = { ok: true } | { ok: false; status: 401 | 403; reason: string };

const DENY = (reason: string): AuthOutcome => ({ ok: false, status: 401, reason });

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function bearer(headers: IncomingHttpHeaders): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header(headers, 'authorization') ?? '');
  return m?.[1];
}

function checkHmac(auth: Extract<AuthConfig, { type: 'hmac' }>, req: AuthRequest, nowMs: number): AuthOutcome {
  if (auth.key_id_header && !safeEqual(header(req.headers, auth.key_id_header) ?? '', auth.key_id ?? ''))
    return DENY('unknown key id');
  const signature = header(req.headers, auth.signature_header ?? 'x-signature');
  const timestamp = header(req.headers, auth.timestamp_header ?? 'x-timestamp');
  if (!signature || !timestamp) return DENY('signature or timestamp header missing');
  if (!/^\d{9,16}$/.test(timestamp)) return DENY('malformed timestamp');
  // Seconds or milliseconds: providers use both, and the magnitude tells them apart.
  const tsMs = timestamp.length >= 13 ? Number(timestamp) : Number(timestamp) * 1000;
  if (Math.abs(nowMs - tsMs) > (auth.skew_seconds ?? 300) * 1000) return DENY('timestamp outside the allowed window');
  const presented = signature.replace(/^(sha256|sha512)=/i, '');
  // The canonical string of catalog format v2's default `signed` list:
  // timestamp, method, path (with query) and body, joined by newlines. A
  // client whose base URL ends in the prefix may sign the path it put after
  // it, or the full path on the host; both name the same request.
  for (const path of [req.target, req.relativeTarget]) {
    const digest = createHmac(auth.algorithm ?? 'sha256', auth.secret)
      .update(Buffer.concat([Buffer.from(`${timestamp}\n${req.method.toUpperCase()}\n${path}\n`), req.rawBody]))
      .digest();
    if (safeEqual(presented.toLowerCase(), digest.toString('hex')) || safeEqual(presented, digest.toString('base64')))
      return { ok: true };
  }
  return DENY('signature mismatch');
}

/** Checks the request's credential against the prefix's auth config. */
export function verifyAuth(auth: AuthConfig, req: AuthRequest, oauth: OAuthServer, nowMs: number): AuthOutcome {
  switch (auth.type) {
    case 'none':
      return { ok: true };
    case 'api_key': {
      const raw = auth.in === 'header' ? header(req.headers, auth.name) : (req.query.get(auth.name) ?? undefined);
      if (raw === undefined || raw === '') return DENY('credential missing');
      const prefix = auth.prefix ?? '';
      if (!raw.startsWith(prefix)) return DENY('credential missing');
      return safeEqual(raw.slice(prefix.length), auth.value) ? { ok: true } : DENY('invalid credential');
    }
    case 'bearer': {
      const token = bearer(req.headers);
      if (!token) return DENY('credential missing');
      return safeEqual(token, auth.token) ? { ok: true } : DENY('invalid credential');
    }
    case 'basic': {
      const m = /^Basic\s+(\S+)\s*$/i.exec(header(req.headers, 'authorization') ?? '');
      if (!m) return DENY('credential missing');
      return safeEqual(Buffer.from(m[1]!, 'base64').toString('utf8'), `${auth.username}:${auth.password}`)
        ? { ok: true }
        : DENY('invalid credential');
    }
    case 'two_header': {
      const entries = Object.entries(auth.headers);
      if (entries.some(([name]) => !header(req.headers, name))) return DENY('credential missing');
      // Both are compared every time, so a right first half is not told apart from a wrong one.
      const results = entries.map(([name, value]) => safeEqual(header(req.headers, name)!, value));
      return results.every(Boolean) ? { ok: true } : DENY('invalid credential');
    }
    case 'oauth2': {
      const token = bearer(req.headers);
      if (!token) return DENY('credential missing');
      const state = oauth.check(req.provider, token);
      return state === 'ok'
        ? { ok: true }
        : DENY(state === 'expired' ? 'access token expired' : 'invalid access token');
    }
    case 'hmac':
      return checkHmac(auth, req, nowMs);
    case 'jwt': {
      const token = bearer(req.headers);
      if (!token) return DENY('credential missing');
      const outcome = verifyJwt(token, {
        algorithm: auth.algorithm,
        ...(auth.secret !== undefined ? { secret: auth.secret } : {}),
        ...(auth.public_key !== undefined ? { publicKey: auth.public_key } : {}),
        ...(auth.issuer !== undefined ? { issuer: auth.issuer } : {}),
        ...(auth.audience !== undefined ? { audience: auth.audience } : {}),
        leewaySeconds: auth.leeway_seconds ?? 30,
        nowSeconds: Math.floor(nowMs / 1000),
      });
      return outcome.ok ? { ok: true } : DENY(outcome.reason);
    }
    case 'certificate': {
      const socket = req.socket;
      if (!(socket instanceof TLSSocket))
        return { ok: false, status: 403, reason: 'client certificate required (TLS listener only)' };
      const cert = socket.getPeerCertificate();
      if (!cert || Object.keys(cert).length === 0)
        return { ok: false, status: 403, reason: 'client certificate required' };
      if (!socket.authorized) return { ok: false, status: 403, reason: 'client certificate not trusted' };
      const cn = cert.subject?.CN;
      const name = Array.isArray(cn) ? cn[0] : cn;
      if (auth.subjects && !auth.subjects.includes(name ?? ''))
        return { ok: false, status: 403, reason: 'client certificate subject not allowed' };
      return { ok: true };
    }
  }
}

/**
 * The credential-bearing parts of a request, masked, for the counters: the
 * scheme word and the length survive, never a character of the secret.
 */
export function maskedCredentials(auth: AuthConfig, req: AuthRequest): Record<string, string> {
  const names = new Set(['authorization', 'proxy-authorization', 'cookie']);
  if (auth.type === 'api_key' && auth.in === 'header') names.add(auth.name.toLowerCase());
  if (auth.type === 'two_header') for (const n of Object.keys(auth.headers)) names.add(n);
  if (auth.type === 'hmac') {
    names.add(auth.signature_header ?? 'x-signature');
    if (auth.key_id_header) names.add(auth.key_id_header.toLowerCase());
  }
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = header(req.headers, n);
    if (v !== undefined) out[n] = mask(v);
  }
  if (auth.type === 'api_key' && auth.in === 'query') {
    const v = req.query.get(auth.name);
    if (v !== null) out[`query:${auth.name}`] = mask(v);
  }
  if (req.socket instanceof TLSSocket) {
    const cn = req.socket.getPeerCertificate()?.subject?.CN;
    if (cn) out['tls-client-subject'] = `CN=${Array.isArray(cn) ? cn[0] : cn}`;
  }
  return out;
}

/** Names to strip from a logged or echoed query string. */
export function secretQueryParams(auth: AuthConfig): string[] {
  return auth.type === 'api_key' && auth.in === 'query' ? [auth.name] : [];
}
