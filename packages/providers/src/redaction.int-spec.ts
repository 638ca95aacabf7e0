import { createCipheriv, createDecipheriv, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { ProviderAuth, type Tenant } from '@rota/contracts';
import { ProviderClient, type CallArgs } from './client';
import type { ProviderLogger } from './log';
import { OAuth2TokenCache, type Sealer } from './oauth2';
import { buildRequest } from './request';

/*
 * Drives every auth type through success, refusal, failure and broken
 * credentials with a capturing logger, then looks for each credential value
 * in every thrown message, every log line and every result.
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const tenant: Tenant = { org_id: 'org_r', project_id: 'prj_r', environment: 'test' };
const rsaPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

const SECRETS = {
  api_key: 'secret-api-key-7a1f',
  token: 'secret-bearer-9c2e',
  username: 'secret-user-31d0',
  password: 'secret-pass-44b8',
  client_id: 'secret-client-id-5e6f',
  client_secret: 'secret-client-secret-6a7b',
  refresh_token: 'secret-refresh-8c9d',
  secret: 'secret-hmac-or-jwt-0e1f',
  key_id: 'secret-key-id-2a3b',
  private_key: rsaPem,
};
const ISSUED_ACCESS = 'secret-access-token-4c5d';
const ROTATED_REFRESH = 'secret-rotated-refresh-6e7f';

function sealer(): Sealer {
  const key = randomBytes(32);
  return {
    seal(plain, aad) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad));
      const body = Buffer.concat([c.update(plain), c.final()]);
      return { ciphertext: Buffer.concat([iv, c.getAuthTag(), body]), keyId: 'k' };
    },
    open(blob, _k, aad) {
      const d = createDecipheriv('aes-256-gcm', key, blob.subarray(0, 12)).setAAD(Buffer.from(aad));
      d.setAuthTag(blob.subarray(12, 28));
      return Buffer.concat([d.update(blob.subarray(28)), d.final()]);
    },
  };
}

describe('credentials never leak', () => {
  let server: Server;
  let base: string;
  let redis: Redis;
  const prefix = `rota-test-providers-redact-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const lines: string[] = [];
  let issuedCount = 0;
  const logger: ProviderLogger = {
    info: (obj, msg) => void lines.push(JSON.stringify({ ...obj, msg })),
    warn: (obj, msg) => void lines.push(JSON.stringify({ ...obj, msg })),
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0];
        if (path === '/oauth/token') {
          issuedCount++;
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(
            JSON.stringify({
              access_token: `${ISSUED_ACCESS}-${issuedCount}`,
              token_type: 'Bearer',
              expires_in: 600,
              refresh_token: ROTATED_REFRESH,
            }),
          );
        } else if (path === '/oauth/refuse') {
          res.writeHead(401, { 'Content-Type': 'application/json' });
          res.end(
            JSON.stringify({ error: 'invalid_client', error_description: `unknown client ${SECRETS.client_secret}` }),
          );
        } else if (path === '/unauthorized') {
          // A provider that echoes what it was given, as some do in error bodies, is answered but not logged.
          res.writeHead(401, { 'Content-Type': 'text/plain' });
          res.end('nope');
        } else if (path === '/fail') {
          res.writeHead(503);
          res.end();
        } else if (path === '/hang') {
          // never answers
        } else {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end('{"ok":true}');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    redis = new Redis(REDIS_URL);
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  it('in no thrown message, log line or result, across every auth type and failure', async () => {
    const tokens = new OAuth2TokenCache({
      redis,
      sealer: sealer(),
      keyPrefix: prefix,
      logger,
      onRefreshToken: async (_c, token) => {
        throw new Error(`could not store ${token}`);
      },
    });
    const client = new ProviderClient({
      tokens,
      logger,
      allowPrivateAddresses: Array.from({ length: 20 }, (_, i) => `p${i}`),
      defaults: { responseTimeoutMs: 300, breakerFailures: 2, breakerHalfOpenAfterMs: 600_000 },
    });
    const observed: string[] = [];
    const auths = [
      { type: 'api_key', name: 'X-Api-Key' },
      { type: 'api_key', in: 'query', name: 'key' },
      { type: 'bearer' },
      { type: 'basic' },
      {
        type: 'two_header',
        headers: [
          { name: 'X-Id', credential: 'client_id' },
          { name: 'X-Secret', credential: 'client_secret' },
        ],
      },
      { type: 'hmac', header: 'X-Sig', timestamp_header: 'X-Ts', key_header: 'X-Key' },
      { type: 'jwt', algorithm: 'HS256' },
      { type: 'jwt', algorithm: 'RS256' },
      { type: 'certificate' },
      { type: 'oauth2', grant: 'authorization_code', token_url: `${base}/oauth/token` },
      { type: 'oauth2', grant: 'client_credentials', token_url: `${base}/oauth/refuse` },
    ].map((a) => ProviderAuth.parse(a));

    const broken = {
      ...SECRETS,
      token: `${SECRETS.token}\r\n`,
      api_key: `${SECRETS.api_key}\n`,
      private_key: `${SECRETS.secret}-not-a-pem`,
    };
    const partial = { api_key: SECRETS.api_key, client_secret: SECRETS.client_secret, password: SECRETS.password };
    for (const [i, auth] of auths.entries()) {
      for (const path of ['/ok', '/unauthorized', '/hang', '/fail']) {
        for (const credentials of [SECRETS, broken, partial]) {
          const args: CallArgs = {
            providerId: `p${i}`,
            request: buildRequest({ baseUrl: base, method: 'POST', endpointTemplate: path, input: { amount: 1 } }),
            auth,
            credentials,
            tenant,
            connectionId: `conn_${i}`,
            idempotencyKey: 'idem-1',
            idempotencyHeader: 'Idempotency-Key',
          };
          try {
            observed.push(JSON.stringify(await client.call(args)));
          } catch (err) {
            observed.push(`${(err as Error).name}: ${(err as Error).message} ${JSON.stringify(err)}`);
          }
        }
      }
    }
    await client.close();

    // The scenarios did happen: refusals, failures, unknown outcomes, and log lines about them.
    const all = [...observed, ...lines].join('\n');
    expect(all).toContain('credential_missing');
    expect(all).toContain('credential_invalid');
    expect(all).toContain('outcome_unknown');
    expect(all).toContain('circuit_open');
    expect(lines.some((l) => l.includes('refresh token'))).toBe(true);
    expect(lines.some((l) => l.includes('renewed'))).toBe(true);

    const values = [
      ...Object.values(SECRETS),
      ISSUED_ACCESS,
      ROTATED_REFRESH,
      Buffer.from(`${SECRETS.username}:${SECRETS.password}`).toString('base64'),
    ];
    for (const value of values) {
      const needle = value.includes('PRIVATE KEY') ? value.split('\n')[1]! : value;
      expect({ value: needle.slice(0, 12), hits: all.split(needle).length - 1 }).toEqual({
        value: needle.slice(0, 12),
        hits: 0,
      });
    }
  });
});
