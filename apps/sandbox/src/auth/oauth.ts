import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthConfig } from '../config';
import type { Reply } from '../providers/types';
import { safeEqual } from './compare';

type OAuthConfig = Extract<AuthConfig, { type: 'oauth2' }>;

interface AccessToken {
  provider: string;
  expiresAt: number;
}

interface RefreshToken {
  provider: string;
  clientId: string;
  scope: string;
}

interface AuthorizationCode {
  provider: string;
  clientId: string;
  redirectUri: string;
  challenge?: string;
  challengeMethod?: 'S256' | 'plain';
  scope: string;
  expiresAt: number;
}

const CODE_TTL_MS = 10 * 60_000;

function oauthError(status: number, error: string, description: string, headers?: Record<string, string>): Reply {
  return {
    status,
    body: { error, error_description: description },
    headers: { 'cache-control': 'no-store', ...headers },
  };
}

function secretToken(prefix: string): string {
  return `${prefix}${randomBytes(24).toString('base64url')}`;
}

function field(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * The authorization server of every oauth2 prefix: `/authorize` hands out
 * single-use codes bound to the client, the redirect URI and the PKCE
 * challenge; `/token` serves client_credentials, authorization_code and
 * refresh_token (refresh tokens rotate: a used one is dead). Tokens live in
 * memory, per prefix.
 */
export class OAuthServer {
  private readonly access = new Map<string, AccessToken>();
  private readonly refresh = new Map<string, RefreshToken>();
  private readonly codes = new Map<string, AuthorizationCode>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether a bearer token was issued for this prefix and is still within its lifetime. */
  check(provider: string, token: string): 'ok' | 'expired' | 'unknown' {
    const t = this.access.get(token);
    if (!t || t.provider !== provider) return 'unknown';
    return t.expiresAt > this.now() ? 'ok' : 'expired';
  }

  /** Ends the lifetime of every access token (of one prefix), so a test can see a client refresh. */
  expire(provider?: string): number {
    let n = 0;
    for (const t of this.access.values()) {
      if (provider === undefined || t.provider === provider) {
        t.expiresAt = 0;
        n++;
      }
    }
    return n;
  }

  reset(): void {
    this.access.clear();
    this.refresh.clear();
    this.codes.clear();
  }

  authorize(provider: string, config: OAuthConfig, query: URLSearchParams): Reply {
    const clientId = query.get('client_id');
    const redirectUri = query.get('redirect_uri') ?? '';
    if (clientId !== config.client_id) return oauthError(400, 'invalid_client', 'Unknown client_id.');
    // The redirect URI is checked before anything is sent to it.
    let target: URL;
    try {
      target = new URL(redirectUri);
    } catch {
      return oauthError(400, 'invalid_request', 'redirect_uri must be an absolute URL.');
    }
    const allowed = config.redirect_uris ?? [];
    if (!/^https?:$/.test(target.protocol) || (allowed.length > 0 && !allowed.includes(redirectUri))) {
      return oauthError(400, 'invalid_request', 'redirect_uri is not registered for this client.');
    }
    const back = (params: Record<string, string>): Reply => {
      for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
      const state = query.get('state');
      if (state !== null) target.searchParams.set('state', state);
      return { status: 302, headers: { location: target.toString(), 'cache-control': 'no-store' } };
    };
    if (query.get('response_type') !== 'code') return back({ error: 'unsupported_response_type' });
    const scope = query.get('scope') ?? (config.scopes ?? []).join(' ');
    if (config.scopes && scope.split(' ').some((s) => s && !config.scopes!.includes(s)))
      return back({ error: 'invalid_scope' });
    const challenge = query.get('code_challenge') ?? undefined;
    const method = query.get('code_challenge_method') ?? (challenge ? 'plain' : undefined);
    if (method !== undefined && method !== 'S256' && method !== 'plain')
      return back({ error: 'invalid_request', error_description: 'code_challenge_method must be S256 or plain' });
    if (method !== undefined && !challenge)
      return back({ error: 'invalid_request', error_description: 'code_challenge is missing' });
    const code = secretToken('sbx_code_');
    this.codes.set(code, {
      provider,
      clientId,
      redirectUri,
      scope,
      expiresAt: this.now() + CODE_TTL_MS,
      ...(challenge ? { challenge, challengeMethod: method as 'S256' | 'plain' } : {}),
    });
    return back({ code });
  }

  token(provider: string, config: OAuthConfig, headers: IncomingHttpHeaders, body: Record<string, unknown>): Reply {
    let clientId = field(body, 'client_id');
    let clientSecret = field(body, 'client_secret');
    const basic = /^Basic\s+(.+)$/i.exec(headers.authorization ?? '');
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) {
        clientId = decodeURIComponent(decoded.slice(0, colon));
        clientSecret = decodeURIComponent(decoded.slice(colon + 1));
      }
    }
    if (clientId !== config.client_id || clientSecret === undefined || !safeEqual(clientSecret, config.client_secret)) {
      return oauthError(401, 'invalid_client', 'Client authentication failed.', {
        'www-authenticate': 'Basic realm="sandbox"',
      });
    }
    const grant = field(body, 'grant_type');
    switch (grant) {
      case 'client_credentials': {
        const scope = field(body, 'scope') ?? (config.scopes ?? []).join(' ');
        return this.issue(provider, config, scope, undefined);
      }
      case 'authorization_code': {
        const code = field(body, 'code') ?? '';
        const entry = this.codes.get(code);
        // A code is spent by its first use, even a failed one.
        this.codes.delete(code);
        if (!entry || entry.provider !== provider || entry.clientId !== clientId || entry.expiresAt <= this.now()) {
          return oauthError(400, 'invalid_grant', 'The authorization code is invalid, expired or already used.');
        }
        if (field(body, 'redirect_uri') !== entry.redirectUri)
          return oauthError(400, 'invalid_grant', 'redirect_uri does not match the authorization request.');
        if (entry.challenge) {
          const verifier = field(body, 'code_verifier');
          if (!verifier) return oauthError(400, 'invalid_grant', 'code_verifier is required.');
          const computed =
            entry.challengeMethod === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
          if (!safeEqual(computed, entry.challenge))
            return oauthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge.');
        }
        return this.issue(provider, config, entry.scope, clientId);
      }
      case 'refresh_token': {
        const token = field(body, 'refresh_token') ?? '';
        const entry = this.refresh.get(token);
        this.refresh.delete(token);
        if (!entry || entry.provider !== provider || entry.clientId !== clientId) {
          return oauthError(400, 'invalid_grant', 'The refresh token is invalid or was already used.');
        }
        return this.issue(provider, config, entry.scope, clientId);
      }
      case undefined:
        return oauthError(400, 'invalid_request', 'grant_type is required.');
      default:
        return oauthError(400, 'unsupported_grant_type', `grant_type ${grant} is not supported.`);
    }
  }

  private issue(provider: string, config: OAuthConfig, scope: string, refreshFor: string | undefined): Reply {
    const ttl = config.token_ttl_seconds ?? 3600;
    const accessToken = secretToken('sbx_at_');
    this.access.set(accessToken, { provider, expiresAt: this.now() + ttl * 1000 });
    const body: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer', expires_in: ttl, scope };
    if (refreshFor !== undefined) {
      const refreshToken = secretToken('sbx_rt_');
      this.refresh.set(refreshToken, { provider, clientId: refreshFor, scope });
      body.refresh_token = refreshToken;
    }
    return { status: 200, body, headers: { 'cache-control': 'no-store', pragma: 'no-cache' } };
  }
}
