import { randomUUID } from 'node:crypto';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Redis } from 'ioredis';
import { request as undiciRequest, type Dispatcher } from 'undici';
import type { ProviderAuth, Tenant } from '@rota/contracts';
import { credential, type Credentials } from './auth';
import { CredentialError } from './errors';
import { redactingLogger, type ProviderLogger } from './log';

export type OAuth2Auth = Extract<ProviderAuth, { type: 'oauth2' }>;

/**
 * Seals and opens secrets at rest. The session service's credentials keyring
 * has exactly this shape, so it is passed as is: access tokens in Redis are
 * sealed with the same keys (and rotate with them) as the connections' own
 * credentials, and the additional data binds each blob to its connection.
 */
export interface Sealer {
  seal(plain: Buffer, aad: string): { ciphertext: Buffer; keyId: string };
  open(ciphertext: Buffer, keyId: string, aad: string): Buffer;
}

/** Which connection a token belongs to. */
export interface ConnectionRef {
  tenant: Tenant;
  providerId: string;
  connectionId: string;
}

export interface TokenRequest extends ConnectionRef {
  auth: OAuth2Auth;
  credentials: Credentials;
  /** Dispatcher for the token endpoint; the provider client passes its address-checked one. */
  dispatcher?: Dispatcher;
}

/** An access token and the exact cache entry it came from, so a 401 invalidates that entry and no newer one. */
export interface AccessToken {
  accessToken: string;
  expiresAt: number;
  ref: string;
}

export interface OAuth2TokenCacheOptions {
  redis: Redis;
  sealer: Sealer;
  /** Prefix of every Redis key; replicas that share it share tokens. */
  keyPrefix: string;
  /** A token this close to expiry is refreshed before use. Default 60 s. */
  refreshMarginMs?: number;
  /** How long a refresh may hold the lock; a replica that dies mid-refresh frees it after this. Default 15 s. */
  lockTtlMs?: number;
  /** How long a replica waits for another one's refresh before giving up. Default 10 s. */
  waitMs?: number;
  /** Interval between looks at the cache while another replica refreshes. Default 50 ms. */
  pollMs?: number;
  /** Lifetime assumed when the token endpoint omits `expires_in`. Default 300 s. */
  defaultLifetimeS?: number;
  /** Deadline of one token endpoint call. Default 10 s. */
  tokenTimeoutMs?: number;
  /**
   * Receives a refresh token the provider issued with a new access token
   * in a refresh-token grant (rotation), and the one just spent. The caller
   * re-seals it into the connection unless the connection changed
   * meanwhile; it is kept nowhere else, so it is awaited before the refresh
   * counts as done.
   */
  onRefreshToken?: (connection: ConnectionRef, refreshToken: string, previous: string | undefined) => Promise<void>;
  /**
   * Reads the connection's refresh token from where `onRefreshToken` stores
   * it. Asked under the refresh lock, just before a refresh-token grant, so
   * a request that read the connection before another replica rotated the
   * token spends the new one rather than the dead one. Without it (or when
   * it fails or finds none) the request's own credentials are used.
   */
  currentRefreshToken?: (connection: ConnectionRef) => Promise<string | undefined>;
  logger?: ProviderLogger;
  now?: () => number;
  /**
   * How long a replica keeps a token it read in memory (never past its
   * refresh margin), so back-to-back calls of one connection do not each
   * read and open the sealed copy in Redis; 0 reads Redis every time.
   * Default 30 s. A 401 drops the kept copy at once.
   */
  localTtlMs?: number;
}

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
const MAX_TOKEN_RESPONSE = 64 * 1024;

interface StoredToken {
  /** Id of the key that sealed `c`. */
  k: string;
  /** Sealed access token, base64. */
  c: string;
  /** Expiry, epoch milliseconds. */
  e: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * OAuth2 access tokens shared by every replica through Redis, sealed.
 *
 * A token is used until `refreshMarginMs` before it expires; then exactly one
 * replica refreshes it, holding a Redis lock (`SET NX PX` with a random
 * token, released only by its holder), while the others keep using the old
 * token if it is still valid, or poll the cache for the new one for at most
 * `waitMs`. Within one replica, concurrent requests for the same connection
 * share one lookup. A 401 from the provider invalidates exactly the entry
 * that was rejected (compare-and-delete), so a burst of 401s from many
 * requests triggers one refresh, not one per request.
 */
export class OAuth2TokenCache {
  private readonly inFlight = new Map<string, Promise<AccessToken>>();
  /** Tokens this replica read lately, by cache key, each until `until` (see `localTtlMs`). */
  private readonly local = new Map<string, { token: AccessToken; until: number }>();
  private readonly known = new Set<string>();
  private readonly log: ProviderLogger;
  private readonly now: () => number;

  constructor(private readonly opts: OAuth2TokenCacheOptions) {
    this.now = opts.now ?? Date.now;
    this.log = redactingLogger(opts.logger, () => [...this.known]);
  }

  /** Tokens seen lately, so the logger can scrub them; bounded, oldest forgotten first. */
  private remember(token: string) {
    this.known.delete(token);
    this.known.add(token);
    if (this.known.size > 256) this.known.delete(this.known.values().next().value as string);
  }

  /** Redis key of a connection's token; the lock is this plus `:lock`. */
  key(c: ConnectionRef): string {
    const parts = [c.tenant.org_id, c.tenant.project_id, c.tenant.environment, c.providerId, c.connectionId].map(
      encodeURIComponent,
    );
    return `${this.opts.keyPrefix}:oauth2:${parts.join(':')}`;
  }

  private aad(c: ConnectionRef): string {
    return `oauth2-access-token|${c.tenant.org_id}|${c.tenant.project_id}|${c.tenant.environment}|${c.providerId}|${c.connectionId}`;
  }

  /** A valid access token for the connection, from the cache or freshly issued. */
  getToken(req: TokenRequest): Promise<AccessToken> {
    const key = this.key(req);
    const margin = this.opts.refreshMarginMs ?? 60_000;
    const kept = this.local.get(key);
    if (kept) {
      const now = this.now();
      if (now < kept.until && kept.token.expiresAt - now > margin) return Promise.resolve(kept.token);
      this.local.delete(key);
    }
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const p = this.obtain(req, key)
      .then((token) => {
        this.keep(key, token, margin);
        return token;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  /** Keeps a token outside its refresh margin in memory for `localTtlMs`; the map is bounded, oldest forgotten first. */
  private keep(key: string, token: AccessToken, margin: number) {
    const ttl = this.opts.localTtlMs ?? 30_000;
    const now = this.now();
    if (ttl <= 0 || token.expiresAt - now <= margin) return;
    this.local.delete(key);
    this.local.set(key, { token, until: now + ttl });
    if (this.local.size > 10_000) this.local.delete(this.local.keys().next().value as string);
  }

  /**
   * Called after the provider answered 401 to `rejected`: drops that entry
   * unless another request already replaced it, then returns a token that
   * is not the rejected one (fetching one if needed).
   */
  async renewAfterRejection(req: TokenRequest, rejected: AccessToken): Promise<AccessToken> {
    const key = this.key(req);
    if (this.local.get(key)?.token.ref === rejected.ref) this.local.delete(key);
    await this.opts.redis.eval(RELEASE, 1, key, rejected.ref);
    return this.getToken(req);
  }

  private async read(req: ConnectionRef, key: string): Promise<AccessToken | undefined> {
    const raw = await this.opts.redis.get(key);
    if (!raw) return undefined;
    try {
      const stored = JSON.parse(raw) as StoredToken;
      const accessToken = this.opts.sealer
        .open(Buffer.from(stored.c, 'base64'), stored.k, this.aad(req))
        .toString('utf8');
      this.remember(accessToken);
      return { accessToken, expiresAt: stored.e, ref: raw };
    } catch {
      // A key that left the keyring or a damaged entry: as if there were none; the refresh overwrites it.
      return undefined;
    }
  }

  private async obtain(req: TokenRequest, key: string): Promise<AccessToken> {
    const margin = this.opts.refreshMarginMs ?? 60_000;
    const deadline = this.now() + (this.opts.waitMs ?? 10_000);
    const lockKey = `${key}:lock`;
    for (;;) {
      const cached = await this.read(req, key);
      if (cached && cached.expiresAt - this.now() > margin) return cached;
      const lockToken = randomUUID();
      const locked = await this.opts.redis.set(lockKey, lockToken, 'PX', this.opts.lockTtlMs ?? 15_000, 'NX');
      if (locked) {
        try {
          // Another replica may have finished its refresh between our read and our lock.
          const again = await this.read(req, key);
          if (again && again.expiresAt - this.now() > margin) return again;
          return await this.refresh(req, key);
        } finally {
          await this.opts.redis.eval(RELEASE, 1, lockKey, lockToken);
        }
      }
      // Someone else is refreshing. A token inside its margin still works meanwhile.
      if (cached && cached.expiresAt > this.now()) return cached;
      if (this.now() >= deadline) {
        throw new CredentialError(
          'token_unavailable',
          'timed out waiting for another replica to refresh the OAuth2 token',
          { provider: req.providerId },
        );
      }
      await sleep(this.opts.pollMs ?? 50);
    }
  }

  /**
   * Caches an access token issued outside this class (the authorization code
   * exchange of a connect flow) for the connection, replacing any older one,
   * so the next call uses it rather than asking the token endpoint again.
   */
  async store(connection: ConnectionRef, accessToken: string, lifetimeS: number): Promise<void> {
    this.remember(accessToken);
    this.local.delete(this.key(connection));
    await this.put(connection, this.key(connection), accessToken, this.now() + lifetimeS * 1000);
  }

  private async put(c: ConnectionRef, key: string, accessToken: string, expiresAt: number): Promise<string> {
    const sealed = this.opts.sealer.seal(Buffer.from(accessToken, 'utf8'), this.aad(c));
    const raw = JSON.stringify({
      k: sealed.keyId,
      c: sealed.ciphertext.toString('base64'),
      e: expiresAt,
    } satisfies StoredToken);
    await this.opts.redis.set(key, raw, 'PX', Math.max(1, expiresAt - this.now()));
    return raw;
  }

  /** The request with the connection's latest refresh token, for a refresh-token grant (see `currentRefreshToken`). */
  private async latest(req: TokenRequest): Promise<TokenRequest> {
    if (req.auth.grant === 'client_credentials' || !this.opts.currentRefreshToken) return req;
    let latest: string | undefined;
    try {
      latest = await this.opts.currentRefreshToken({
        tenant: req.tenant,
        providerId: req.providerId,
        connectionId: req.connectionId,
      });
    } catch (err) {
      this.log.warn(
        { provider: req.providerId, connection: req.connectionId, err },
        'could not read the stored refresh token; using the one the request read',
      );
      return req;
    }
    if (!latest || latest === req.credentials.refresh_token) return req;
    this.remember(latest);
    return { ...req, credentials: { ...req.credentials, refresh_token: latest } };
  }

  private async refresh(given: TokenRequest, key: string): Promise<AccessToken> {
    const req = await this.latest(given);
    const issued = await this.fetchToken(req);
    const expiresAt = this.now() + issued.lifetimeS * 1000;
    const raw = await this.put(req, key, issued.accessToken, expiresAt);
    const previous = req.credentials.refresh_token;
    // Only the authorization code grant spends a refresh token; one that comes back unchanged was not rotated.
    if (
      req.auth.grant !== 'client_credentials' &&
      issued.refreshToken &&
      issued.refreshToken !== previous &&
      this.opts.onRefreshToken
    ) {
      try {
        await this.opts.onRefreshToken(
          { tenant: req.tenant, providerId: req.providerId, connectionId: req.connectionId },
          issued.refreshToken,
          previous,
        );
      } catch (err) {
        // The access token is good; only the next refresh is at risk, so say so loudly instead of failing this call.
        this.log.warn(
          { provider: req.providerId, connection: req.connectionId, err },
          'could not store the refresh token the provider rotated',
        );
      }
    }
    this.log.info(
      { provider: req.providerId, connection: req.connectionId, lifetime_s: issued.lifetimeS },
      'OAuth2 access token issued',
    );
    return { accessToken: issued.accessToken, expiresAt, ref: raw };
  }

  /**
   * One token request, as a client span of its own (a child of the provider
   * call that needed the token). Like a provider call's span it names the
   * call, never its content: grant, host and status, no URL, form or token.
   */
  private async fetchToken(
    req: TokenRequest,
  ): Promise<{ accessToken: string; lifetimeS: number; refreshToken?: string }> {
    const span = trace.getTracer('rota.providers').startSpan('POST oauth2 token', { kind: SpanKind.CLIENT });
    if (span.isRecording()) {
      span.setAttributes({
        'http.request.method': 'POST',
        'rota.provider': req.providerId,
        'rota.oauth2.grant': req.auth.grant,
      });
      try {
        span.setAttribute('server.address', new URL(req.auth.token_url).hostname);
      } catch {
        // An unparsable token URL fails the request; the span records the error below.
      }
    }
    try {
      return await this.requestToken(req);
    } catch (err) {
      if (span.isRecording()) {
        span.setAttribute('error.type', err instanceof CredentialError ? err.code : 'error');
        const status = err instanceof CredentialError ? err.details.status : undefined;
        if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      throw err;
    } finally {
      span.end();
    }
  }

  private async requestToken(
    req: TokenRequest,
  ): Promise<{ accessToken: string; lifetimeS: number; refreshToken?: string }> {
    const { auth, credentials } = req;
    const clientId = credential(credentials, 'client_id', 'oauth2');
    const clientSecret = credential(credentials, 'client_secret', 'oauth2');
    const form = new URLSearchParams();
    if (auth.grant === 'client_credentials') {
      form.set('grant_type', 'client_credentials');
    } else {
      form.set('grant_type', 'refresh_token');
      form.set('refresh_token', credential(credentials, 'refresh_token', 'oauth2'));
    }
    if (auth.scopes.length) form.set('scope', auth.scopes.join(' '));
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (auth.client_auth === 'client_secret_post') {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    } else {
      // RFC 6749 §2.3.1: both halves are form-encoded before they are joined.
      const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
      headers.authorization = `Basic ${Buffer.from(`${enc(clientId)}:${enc(clientSecret)}`).toString('base64')}`;
    }

    const timeout = this.opts.tokenTimeoutMs ?? 10_000;
    let status: number;
    let text = '';
    try {
      const res = await undiciRequest(auth.token_url, {
        method: 'POST',
        headers,
        body: form.toString(),
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: AbortSignal.timeout(timeout),
        ...(req.dispatcher ? { dispatcher: req.dispatcher } : {}),
      });
      status = res.statusCode;
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_TOKEN_RESPONSE) {
          res.body.destroy();
          throw new Error('token response too large');
        }
        text += (chunk as Buffer).toString('utf8');
      }
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw new CredentialError(
        'token_unavailable',
        `the OAuth2 token endpoint could not be reached (${typeof code === 'string' ? code : 'error'})`,
        {
          provider: req.providerId,
        },
      );
    }

    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // handled below: no access token
    }
    // Only the RFC 6749 error code is repeated; descriptions are free text a server could fill with anything.
    const error = typeof body.error === 'string' && /^[a-z_]{1,64}$/.test(body.error) ? body.error : undefined;
    if (status === 400 || status === 401 || status === 403) {
      throw new CredentialError(
        'credential_invalid',
        `the OAuth2 token endpoint refused the connection's credentials (${status}${error ? ` ${error}` : ''})`,
        {
          provider: req.providerId,
          status,
          ...(error ? { error } : {}),
        },
      );
    }
    const accessToken = body.access_token;
    const tokenType = body.token_type;
    if (
      status < 200 ||
      status >= 300 ||
      typeof accessToken !== 'string' ||
      !accessToken ||
      (typeof tokenType === 'string' && tokenType.toLowerCase() !== 'bearer')
    ) {
      throw new CredentialError(
        'token_unavailable',
        `the OAuth2 token endpoint answered ${status} without a usable bearer token`,
        {
          provider: req.providerId,
          status,
        },
      );
    }
    this.remember(accessToken);
    const expiresIn = Number(body.expires_in);
    const lifetimeS = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : (this.opts.defaultLifetimeS ?? 300);
    const refreshToken = typeof body.refresh_token === 'string' && body.refresh_token ? body.refresh_token : undefined;
    if (refreshToken) this.remember(refreshToken);
    return { accessToken, lifetimeS, ...(refreshToken ? { refreshToken } : {}) };
  }
}
