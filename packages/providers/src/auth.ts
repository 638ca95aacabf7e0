import { createHmac, createPrivateKey, randomUUID, X509Certificate, type KeyObject } from 'node:crypto';
import type { ProviderAuth } from '@rota/contracts';
import { CredentialError } from './errors';
import type { ProviderRequest } from './request';

/** A connection's credentials, opened: field name to value (`api_key`, `client_secret`, `private_key`, ...). */
export type Credentials = Readonly<Record<string, string | undefined>>;

/** PEM material for mutual TLS, taken from the connection. */
export interface ClientCertificate {
  cert: string;
  key: string;
  ca?: string;
}

export interface AuthContext {
  /** Clock in milliseconds, for HMAC timestamps and JWT claims. */
  now?: () => number;
  /** Supplies the OAuth2 access token for this connection (the token cache, in production). */
  oauth2Token?: () => Promise<string>;
}

export interface AuthenticatedRequest {
  request: ProviderRequest;
  /** Set for `certificate` auth: the TLS identity the connection must present. */
  clientCertificate?: ClientCertificate;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Reads a credential field; its absence is the caller's `connection_required`, and the message names only the field. */
export function credential(credentials: Credentials, field: string, authType: string, inHeader = true): string {
  const value = credentials[field];
  if (value === undefined || value === '') {
    throw new CredentialError(
      'credential_missing',
      `the connection has no "${field}" credential, which ${authType} auth needs`,
      { field, auth: authType },
    );
  }
  // A line break would split the header it goes into; undici would refuse it with a less helpful error.
  if (inHeader && CONTROL.test(value)) {
    throw new CredentialError('credential_invalid', `the "${field}" credential contains control characters`, {
      field,
      auth: authType,
    });
  }
  return value;
}

function withHeader(request: ProviderRequest, name: string, value: string): ProviderRequest {
  return { ...request, headers: { ...request.headers, [name.toLowerCase()]: value } };
}

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

let joseModule: Promise<typeof import('jose', { with: { 'resolution-mode': 'import' } })> | undefined;
// jose ships only ES modules; a dynamic import loads it from this CommonJS build.
const jose = () => (joseModule ??= import('jose'));

function privateKey(pem: string, authType: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw new CredentialError('credential_invalid', `the "private_key" credential is not a PEM private key`, {
      field: 'private_key',
      auth: authType,
    });
  }
}

async function signJwt(
  auth: Extract<ProviderAuth, { type: 'jwt' }>,
  credentials: Credentials,
  nowMs: number,
): Promise<string> {
  const { SignJWT } = await jose();
  const key = auth.algorithm.startsWith('HS')
    ? new TextEncoder().encode(credential(credentials, 'secret', 'jwt', false))
    : privateKey(credential(credentials, 'private_key', 'jwt', false), 'jwt');
  const iat = Math.floor(nowMs / 1000);
  try {
    return await new SignJWT({ ...auth.claims })
      .setProtectedHeader({ alg: auth.algorithm, typ: 'JWT' })
      .setIssuedAt(iat)
      .setExpirationTime(iat + auth.lifetime_s)
      .setJti(randomUUID())
      .sign(key);
  } catch {
    // jose explains a wrong key type (an RSA key for ES256, a short RSA key); the message is ours so it cannot echo a key.
    throw new CredentialError('credential_invalid', `the connection's key cannot sign ${auth.algorithm} tokens`, {
      auth: 'jwt',
    });
  }
}

function clientCertificate(credentials: Credentials): ClientCertificate {
  const cert = credential(credentials, 'certificate', 'certificate', false);
  const key = credential(credentials, 'private_key', 'certificate', false);
  const ca = credentials.ca || undefined;
  try {
    new X509Certificate(cert);
  } catch {
    throw new CredentialError('credential_invalid', 'the "certificate" credential is not a PEM certificate', {
      field: 'certificate',
      auth: 'certificate',
    });
  }
  privateKey(key, 'certificate');
  return { cert, key, ...(ca ? { ca } : {}) };
}

/**
 * Puts a connection's credentials where the provider reads them. Pure apart
 * from the clock and the OAuth2 token source: the request is copied, never
 * mutated, so a retry can start again from the unauthenticated request.
 */
export async function injectAuth(
  auth: ProviderAuth,
  credentials: Credentials,
  request: ProviderRequest,
  ctx: AuthContext = {},
): Promise<AuthenticatedRequest> {
  const now = ctx.now ?? Date.now;
  switch (auth.type) {
    case 'none':
      return { request };
    case 'api_key': {
      const value = `${auth.prefix}${credential(credentials, auth.credential, 'api_key')}`;
      if (auth.in === 'header') return { request: withHeader(request, auth.name, value) };
      const url = new URL(request.url);
      url.searchParams.set(auth.name, value);
      return { request: { ...request, url: url.toString() } };
    }
    case 'bearer':
      return {
        request: withHeader(request, 'authorization', `Bearer ${credential(credentials, auth.credential, 'bearer')}`),
      };
    case 'basic': {
      const user = credential(credentials, 'username', 'basic');
      // Some providers take a token as the user and an empty password (Focus NFe): empty is a value, absent is not.
      const password = credentials.password === '' ? '' : credential(credentials, 'password', 'basic');
      return {
        request: withHeader(
          request,
          'authorization',
          `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`,
        ),
      };
    }
    case 'two_header': {
      let next = request;
      for (const h of auth.headers)
        next = withHeader(next, h.name, credential(credentials, h.credential, 'two_header'));
      return { request: next };
    }
    case 'hmac': {
      const secret = credential(credentials, 'secret', 'hmac', false);
      const timestamp = String(Math.floor(now() / 1000));
      const parts: Record<(typeof auth.signed)[number], string> = {
        timestamp,
        method: request.method,
        path: pathOf(request.url),
        body: request.body ?? '',
      };
      const canonical = auth.signed.map((p) => parts[p]).join('\n');
      let next = withHeader(
        request,
        auth.header,
        createHmac(auth.algorithm, secret).update(canonical, 'utf8').digest(auth.encoding),
      );
      if (auth.timestamp_header) next = withHeader(next, auth.timestamp_header, timestamp);
      if (auth.key_header) next = withHeader(next, auth.key_header, credential(credentials, 'key_id', 'hmac'));
      return { request: next };
    }
    case 'jwt':
      return { request: withHeader(request, 'authorization', `Bearer ${await signJwt(auth, credentials, now())}`) };
    case 'certificate':
      return { request, clientCertificate: clientCertificate(credentials) };
    case 'oauth2': {
      if (!ctx.oauth2Token)
        throw new CredentialError('token_unavailable', 'no OAuth2 token source was given for this call', {
          auth: 'oauth2',
        });
      return { request: withHeader(request, 'authorization', `Bearer ${await ctx.oauth2Token()}`) };
    }
    default: {
      const unknown: never = auth;
      throw new CredentialError('credential_invalid', `unsupported auth type ${(unknown as { type: string }).type}`);
    }
  }
}
