import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { ProviderAuth, type Tenant } from '@rota/contracts';
import { ProviderClient, type CallArgs } from './client';
import { CredentialError } from './errors';
import { OAuth2TokenCache, type OAuth2Auth, type Sealer } from './oauth2';
import { buildRequest } from './request';

/*
 * Real Redis (own key prefix); the token endpoint and the provider API are
 * small node:http servers on 127.0.0.1 that count what they receive.
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const tenant: Tenant = { org_id: 'org_1', project_id: 'prj_1', environment: 'test' };
const CLIENT = { client_id: 'rota-client', client_secret: 'client-secret-value-42' };

/** AES-256-GCM with the keyring's shape, so the cache is tested against the interface the session service fills. */
function testSealer(): Sealer {
  const key = randomBytes(32);
  return {
    seal(plain, aad) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad));
      const body = Buffer.concat([c.update(plain), c.final()]);
      return { ciphertext: Buffer.concat([iv, c.getAuthTag(), body]), keyId: 'k1' };
    },
    open(blob, _keyId, aad) {
      const d = createDecipheriv('aes-256-gcm', key, blob.subarray(0, 12)).setAAD(Buffer.from(aad));
      d.setAuthTag(blob.subarray(12, 28));
      return Buffer.concat([d.update(blob.subarray(28)), d.final()]);
    },
  };
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });

describe('OAuth2 tokens', () => {
  let server: Server;
  let base: string;
  const redises: Redis[] = [];
  const prefix = `rota-test-providers-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  let tokenCalls: URLSearchParams[];
  let tokenAuthHeaders: (string | undefined)[];
  let issued: string[];
  let revoked: Set<string>;
  let apiCalls: { token: string; idem: string | undefined }[];
  let tokenDelayMs: number;
  let tokenReply: ((n: number) => { status: number; body: Record<string, unknown> }) | undefined;
  let apiRejectsAll: boolean;

  beforeAll(async () => {
    server = createServer((req, res) => {
      void readBody(req).then(async (body) => {
        if (req.url === '/oauth/token') {
          tokenCalls.push(new URLSearchParams(body));
          tokenAuthHeaders.push(req.headers.authorization);
          if (tokenDelayMs) await new Promise((r) => setTimeout(r, tokenDelayMs));
          const n = tokenCalls.length;
          const reply = tokenReply?.(n) ?? {
            status: 200,
            body: { access_token: `at-${n}-${randomBytes(6).toString('hex')}`, token_type: 'Bearer', expires_in: 3600 },
          };
          if (typeof reply.body.access_token === 'string') issued.push(reply.body.access_token);
          res.writeHead(reply.status, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(reply.body));
          return;
        }
        const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
        apiCalls.push({ token, idem: req.headers['idempotency-key'] as string | undefined });
        const ok = issued.includes(token) && !revoked.has(token) && !apiRejectsAll;
        res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(ok ? { ok: true } : { error: 'invalid_token' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  beforeEach(() => {
    tokenCalls = [];
    tokenAuthHeaders = [];
    issued = [];
    revoked = new Set();
    apiCalls = [];
    tokenDelayMs = 0;
    tokenReply = undefined;
    apiRejectsAll = false;
  });

  afterAll(async () => {
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
    for (const x of redises) x.disconnect();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  const sealer = testSealer();
  /** One replica: its own Redis connection, token cache and client, sharing only Redis and the prefix. */
  const replica = (over: Partial<ConstructorParameters<typeof OAuth2TokenCache>[0]> = {}) => {
    const redis = new Redis(REDIS_URL);
    redises.push(redis);
    const tokens = new OAuth2TokenCache({ redis, sealer, keyPrefix: prefix, ...over });
    // A queue deep enough for the 1,000-call burst: the point there is token sharing, not the concurrency limit.
    return {
      tokens,
      client: new ProviderClient({
        tokens,
        allowPrivateAddresses: ['prov'],
        defaults: { concurrency: 50, queue: 1000 },
      }),
    };
  };

  const auth = (over: Record<string, unknown> = {}) =>
    ProviderAuth.parse({
      type: 'oauth2',
      grant: 'client_credentials',
      token_url: `${base}/oauth/token`,
      scopes: ['payments'],
      ...over,
    }) as OAuth2Auth;

  const callArgs = (connectionId: string, over: Partial<CallArgs> = {}): CallArgs => ({
    providerId: 'prov',
    request: buildRequest({ baseUrl: base, method: 'POST', endpointTemplate: '/api/charges', input: { amount: 1 } }),
    auth: auth(),
    credentials: CLIENT,
    tenant,
    connectionId,
    ...over,
  });

  it('two replicas making 1,000 calls share one token fetch, and Redis holds it only sealed', async () => {
    const a = replica();
    const b = replica();
    try {
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) => (i % 2 ? a : b).client.call(callArgs('conn_shared'))),
      );
      expect(results.filter((r) => r.kind !== 'response' || r.status !== 200)).toEqual([]);
      expect(tokenCalls).toHaveLength(1);
      expect(tokenCalls[0]!.get('grant_type')).toBe('client_credentials');
      expect(tokenCalls[0]!.get('scope')).toBe('payments');
      expect(Buffer.from(tokenAuthHeaders[0]!.replace('Basic ', ''), 'base64').toString()).toBe(
        `${CLIENT.client_id}:${CLIENT.client_secret}`,
      );

      const raw = await redises[0]!.get(a.tokens.key({ tenant, providerId: 'prov', connectionId: 'conn_shared' }));
      expect(raw).toBeTruthy();
      expect(raw).not.toContain(issued[0]!);
      expect(raw).not.toContain(CLIENT.client_secret);
    } finally {
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });

  it('keeps tokens apart per connection', async () => {
    const a = replica();
    try {
      await a.client.call(callArgs('conn_x'));
      await a.client.call(callArgs('conn_y'));
      await a.client.call(callArgs('conn_x'));
      expect(tokenCalls).toHaveLength(2);
    } finally {
      await a.client.close();
    }
  });

  it('refreshes a token before it expires, and while one replica refreshes the other waits for its result', async () => {
    let now = Date.now();
    const a = replica({ now: () => now, refreshMarginMs: 60_000 });
    const b = replica({ now: () => now, refreshMarginMs: 60_000 });
    const req = { tenant, providerId: 'prov', connectionId: 'conn_refresh', auth: auth(), credentials: CLIENT };
    const first = await a.tokens.getToken(req);
    expect((await b.tokens.getToken(req)).accessToken).toBe(first.accessToken);
    expect(tokenCalls).toHaveLength(1);

    now += 3_600_000 - 30_000; // inside the margin: still valid, due for refresh
    tokenDelayMs = 200;
    const [ra, rb] = await Promise.all([a.tokens.getToken(req), b.tokens.getToken(req)]);
    expect(tokenCalls).toHaveLength(2);
    const renewed = issued[1]!;
    // Whichever replica won the lock got the new token; the other kept using the still-valid one or picked up the new one, and never fetched.
    expect([ra.accessToken, rb.accessToken]).toContain(renewed);
    for (const t of [ra, rb]) expect([first.accessToken, renewed]).toContain(t.accessToken);
    await a.client.close();
    await b.client.close();
  });

  it('keeps a token it read in memory for a while, never into its refresh margin, and not after a 401', async () => {
    let now = Date.now();
    const a = replica({ now: () => now, refreshMarginMs: 60_000, localTtlMs: 30_000 });
    const redis = redises.at(-1)!;
    const gets = jest.spyOn(redis, 'get');
    const req = { tenant, providerId: 'prov', connectionId: 'conn_local', auth: auth(), credentials: CLIENT };
    try {
      const first = await a.tokens.getToken(req);
      const readsAfterFetch = gets.mock.calls.length;
      expect(readsAfterFetch).toBeGreaterThan(0);
      // Back-to-back calls: no read of Redis, the same token.
      for (let i = 0; i < 5; i++) expect((await a.tokens.getToken(req)).accessToken).toBe(first.accessToken);
      expect(gets.mock.calls.length).toBe(readsAfterFetch);
      // Past the kept copy's 30 s, Redis is read again (the sealed copy there is still valid).
      now += 31_000;
      expect((await a.tokens.getToken(req)).accessToken).toBe(first.accessToken);
      expect(gets.mock.calls.length).toBeGreaterThan(readsAfterFetch);
      // A 401 on the kept token drops it: the next token is a new one.
      const renewed = await a.tokens.renewAfterRejection(req, first);
      expect(renewed.accessToken).not.toBe(first.accessToken);
      expect((await a.tokens.getToken(req)).accessToken).toBe(renewed.accessToken);
      // Inside the refresh margin the kept copy is not used: the token is refreshed.
      now += 3_600_000 - 30_000;
      const fetched = tokenCalls.length;
      const late = await a.tokens.getToken(req);
      expect(tokenCalls.length).toBe(fetched + 1);
      expect(late.accessToken).not.toBe(renewed.accessToken);
    } finally {
      gets.mockRestore();
      await a.client.close();
    }
  });

  it('gives up with a typed error when another replica holds the refresh lock past the wait bound', async () => {
    const a = replica({ waitMs: 200, pollMs: 20 });
    const req = { tenant, providerId: 'prov', connectionId: 'conn_locked', auth: auth(), credentials: CLIENT };
    await redises.at(-1)!.set(`${a.tokens.key(req)}:lock`, 'someone-else', 'PX', 10_000);
    await expect(a.tokens.getToken(req)).rejects.toMatchObject({ code: 'token_unavailable' });
    expect(tokenCalls).toHaveLength(0);
    await a.client.close();
  });

  it('on a 401 renews the token once and sends the request once more with the same idempotency key', async () => {
    const a = replica();
    const b = replica();
    try {
      const args = callArgs('conn_401', { idempotencyKey: 'idem-401', idempotencyHeader: 'Idempotency-Key' });
      expect(await a.client.call(args)).toMatchObject({ kind: 'response', status: 200 });
      revoked.add(issued[0]!);
      expect(await a.client.call(args)).toMatchObject({ kind: 'response', status: 200 });
      expect(tokenCalls).toHaveLength(2);
      expect(apiCalls.map((c) => c.idem)).toEqual(['idem-401', 'idem-401', 'idem-401']);
      // The other replica finds the renewed token; the rejected entry was replaced, not fetched again.
      expect(await b.client.call(args)).toMatchObject({ kind: 'response', status: 200 });
      expect(tokenCalls).toHaveLength(2);

      // A provider that refuses every token gets exactly one retry.
      apiRejectsAll = true;
      apiCalls = [];
      expect(await a.client.call(args)).toMatchObject({ kind: 'response', status: 401 });
      expect(apiCalls).toHaveLength(2);
      expect(tokenCalls).toHaveLength(3);
    } finally {
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });

  it('uses the refresh token grant with client_secret_post and hands a rotated refresh token back', async () => {
    const rotated: { connectionId: string; token: string; previous: string | undefined }[] = [];
    const a = replica({
      onRefreshToken: async (c, token, previous) =>
        void rotated.push({ connectionId: c.connectionId, token, previous }),
    });
    tokenReply = (n) => ({
      status: 200,
      body: { access_token: `code-at-${n}`, token_type: 'bearer', expires_in: 600, refresh_token: `rt-${n}` },
    });
    try {
      const r = await a.client.call(
        callArgs('conn_code', {
          auth: auth({ grant: 'authorization_code', client_auth: 'client_secret_post' }),
          credentials: { ...CLIENT, refresh_token: 'rt-0' },
        }),
      );
      expect(r).toMatchObject({ kind: 'response', status: 200 });
      expect(Object.fromEntries(tokenCalls[0]!)).toMatchObject({
        grant_type: 'refresh_token',
        refresh_token: 'rt-0',
        ...CLIENT,
      });
      expect(tokenAuthHeaders[0]).toBeUndefined();
      expect(rotated).toEqual([{ connectionId: 'conn_code', token: 'rt-1', previous: 'rt-0' }]);
      const raw = await redises.at(-1)!.get(a.tokens.key({ tenant, providerId: 'prov', connectionId: 'conn_code' }));
      expect(raw).not.toContain('rt-1');
      expect(raw).not.toContain('code-at-1');
    } finally {
      await a.client.close();
    }
  });

  it('spends the stored refresh token, not a stale one the request read before another replica rotated it', async () => {
    // The store: what onRefreshToken wrote last, as the session service keeps it in the connection.
    let stored = 'rt-0';
    const rotations: { token: string; previous: string | undefined }[] = [];
    const options = {
      onRefreshToken: async (_c: unknown, token: string, previous: string | undefined) => {
        rotations.push({ token, previous });
        stored = token;
      },
      currentRefreshToken: async () => stored,
      // Every token is inside the refresh margin: each call refreshes.
      refreshMarginMs: 3_600_000,
    };
    const a = replica(options);
    const b = replica(options);
    tokenReply = (n) => ({
      status: 200,
      body: { access_token: `rot-at-${n}`, token_type: 'bearer', expires_in: 600, refresh_token: `rt-${n}` },
    });
    const args = (credentials: Record<string, string>) =>
      callArgs('conn_rot', {
        auth: auth({ grant: 'authorization_code', client_auth: 'client_secret_post' }),
        credentials: { ...CLIENT, ...credentials },
      });
    try {
      expect(await a.client.call(args({ refresh_token: 'rt-0' }))).toMatchObject({ kind: 'response', status: 200 });
      // Replica b read the connection before a's rotation: it still carries rt-0.
      expect(await b.client.call(args({ refresh_token: 'rt-0' }))).toMatchObject({ kind: 'response', status: 200 });
      expect(tokenCalls.map((c) => c.get('refresh_token'))).toEqual(['rt-0', 'rt-1']);
      expect(rotations).toEqual([
        { token: 'rt-1', previous: 'rt-0' },
        { token: 'rt-2', previous: 'rt-1' },
      ]);
    } finally {
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });

  it('turns a refusing or broken token endpoint into typed errors, before anything reaches the provider', async () => {
    const a = replica();
    try {
      tokenReply = () => ({
        status: 400,
        body: { error: 'invalid_client', error_description: `bad secret ${CLIENT.client_secret}` },
      });
      const refused = await a.client.call(callArgs('conn_bad')).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(CredentialError);
      expect(refused).toMatchObject({ code: 'credential_invalid', details: { status: 400, error: 'invalid_client' } });
      expect((refused as Error).message).not.toContain(CLIENT.client_secret);

      tokenReply = () => ({ status: 502, body: {} });
      await expect(a.client.call(callArgs('conn_bad'))).rejects.toMatchObject({ code: 'token_unavailable' });
      await expect(a.client.call(callArgs('conn_bad', { credentials: { client_id: 'x' } }))).rejects.toMatchObject({
        code: 'credential_missing',
        details: { field: 'client_secret' },
      });
      expect(apiCalls).toHaveLength(0);
    } finally {
      await a.client.close();
    }
  });
});
