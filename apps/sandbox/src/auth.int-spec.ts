import { execFileSync } from 'node:child_process';
import { createHash, createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from './index';

/**
 * Every auth type accepted with the right credential and refused, in the
 * provider's shape, with a wrong or missing one. The mTLS part needs the
 * `openssl` command line to make its certificates.
 */

let sandbox: Sandbox;
let certDir: string;
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: certDir, stdio: 'ignore' });
}

/** A CA, a server certificate for 127.0.0.1 and two client certificates: one from the CA, one self-signed. */
function makeCertificates(): void {
  certDir = mkdtempSync(join(tmpdir(), 'rota-sandbox-tls-'));
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=Sandbox Test CA',
  );
  writeFileSync(join(certDir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\n');
  for (const [name, cn] of [
    ['server', '127.0.0.1'],
    ['client', 'rota-client'],
    ['other', 'other-client'],
  ] as const) {
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=${cn}`,
    );
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      ...(name === 'server' ? ['-extfile', 'server.ext'] : []),
    );
  }
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'rogue.key',
    '-out',
    'rogue.crt',
    '-days',
    '2',
    '-subj',
    '/CN=rota-client',
  );
}
const pem = (name: string): Buffer => readFileSync(join(certDir, name));

beforeAll(async () => {
  makeCertificates();
  sandbox = await startSandbox({
    port: 0,
    tls: { port: 0, cert: pem('server.crt'), key: pem('server.key'), ca: pem('ca.crt') },
    config: {
      providers: {
        'key-prefixed': {
          kind: 'echo',
          auth: { type: 'api_key', in: 'header', name: 'Authorization', prefix: 'Token ', value: 'prefixed-key' },
        },
        'jwt-rs': {
          kind: 'echo',
          auth: {
            type: 'jwt',
            algorithm: 'RS256',
            public_key: rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
            issuer: 'rota',
          },
        },
        'cert-named': { kind: 'echo', auth: { type: 'certificate', subjects: ['rota-client'] } },
        'pkce-app': {
          kind: 'echo',
          auth: {
            type: 'oauth2',
            client_id: 'app',
            client_secret: 'app-secret',
            redirect_uris: ['http://127.0.0.1:9/callback'],
            scopes: ['read', 'write'],
            token_ttl_seconds: 600,
          },
        },
      },
    },
  });
});
afterAll(async () => {
  await sandbox.close();
  rmSync(certDir, { recursive: true, force: true });
});
beforeEach(() => sandbox.control.reset());

async function get(path: string, headers: Record<string, string> = {}, init: { method?: string; body?: string } = {}) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    redirect: 'manual',
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as any) : undefined };
}

describe('static credentials', () => {
  it('api_key in a header (Asaas access_token)', async () => {
    expect((await get('/asaas/v3/payments', { access_token: 'sandbox-asaas-key' })).status).toBe(200);
    const wrong = await get('/asaas/v3/payments', { access_token: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ errors: [{ code: 'invalid_access_token', description: expect.any(String) }] });
    expect((await get('/asaas/v3/payments')).status).toBe(401);
  });

  it('api_key in a header with a prefix', async () => {
    expect((await get('/key-prefixed/x', { authorization: 'Token prefixed-key' })).status).toBe(200);
    expect((await get('/key-prefixed/x', { authorization: 'Bearer prefixed-key' })).status).toBe(401);
  });

  it('api_key in the query, which never comes back in the answer', async () => {
    const ok = await get('/echo-api-key-query/v1/things?api_key=sandbox-query-key&page=2');
    expect(ok.status).toBe(200);
    expect(ok.body.query).toEqual({ page: '2' });
    expect(JSON.stringify(ok.body)).not.toContain('sandbox-query-key');
    expect((await get('/echo-api-key-query/v1/things?api_key=other')).status).toBe(401);
  });

  it('bearer (WhatsApp), refused with Graph OAuthException 190', async () => {
    const wrong = await get(
      '/whatsapp/v21.0/100000000000001/messages',
      { authorization: 'Bearer wrong' },
      { method: 'POST', body: '{}' },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatchObject({ type: 'OAuthException', code: 190 });
  });

  it('basic (Focus NFe token as user)', async () => {
    const good = `Basic ${Buffer.from('sandbox-nfse-token:').toString('base64')}`;
    expect((await get('/nfse/v2/nfse/none', { authorization: good })).status).toBe(404);
    const bad = await get('/nfse/v2/nfse/none', { authorization: `Basic ${Buffer.from('other:').toString('base64')}` });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ codigo: 'permissao_negada', mensagem: expect.any(String) });
  });

  it('two headers, both required', async () => {
    const both = { 'tbk-api-key-id': 'sandbox-key-id', 'tbk-api-key-secret': 'sandbox-key-secret' };
    expect((await get('/echo-two-header/x', both)).status).toBe(200);
    expect((await get('/echo-two-header/x', { 'tbk-api-key-id': 'sandbox-key-id' })).status).toBe(401);
    expect((await get('/echo-two-header/x', { ...both, 'tbk-api-key-secret': 'wrong' })).status).toBe(401);
  });

  it('counts refusals and keeps only masked credentials', async () => {
    await get('/asaas/v3/payments', { access_token: 'not-the-key' });
    const counters = sandbox.control.counters();
    expect(counters.auth_failures).toEqual({ asaas: 1 });
    expect(counters.last_credentials.asaas).toEqual({ access_token: '<redacted len=11>' });
    await get('/whatsapp/v1/1/messages', { authorization: 'Bearer sandbox-whatsapp-token' });
    const raw = JSON.stringify(sandbox.control.counters());
    expect(raw).toContain('Bearer <redacted len=22>');
    expect(raw).not.toContain('sandbox-whatsapp-token');
    expect(raw).not.toContain('not-the-key');
  });
});

describe('hmac', () => {
  const sign256 = (ts: string, method: string, path: string, body: string, secret = 'sandbox-hmac-secret') =>
    createHmac('sha256', secret).update(`${ts}\n${method}\n${path}\n${body}`).digest('hex');
  const headers = (ts: string, signature: string) => ({
    'x-api-key': 'sandbox-hmac-key-id',
    'x-timestamp': ts,
    'x-signature': signature,
    'content-type': 'application/json',
  });

  it('accepts a signature over timestamp + method + path + body, relative or full path', async () => {
    const ts = String(Date.now());
    const body = '{"amount":10}';
    const relative = await get(
      '/echo-hmac/v3/orders?side=buy',
      headers(ts, sign256(ts, 'POST', '/v3/orders?side=buy', body)),
      { method: 'POST', body },
    );
    expect(relative.status).toBe(201);
    const seconds = String(Math.floor(Date.now() / 1000));
    const full = await get(
      '/echo-hmac/v3/orders',
      headers(seconds, sign256(seconds, 'POST', '/echo-hmac/v3/orders', body)),
      { method: 'POST', body },
    );
    expect(full.status).toBe(201);
  });

  it('refuses a wrong secret, a tampered body, a stale timestamp and a wrong key id', async () => {
    const ts = String(Date.now());
    const body = '{"amount":10}';
    const good = sign256(ts, 'POST', '/v3/orders', body);
    const cases = [
      get('/echo-hmac/v3/orders', headers(ts, sign256(ts, 'POST', '/v3/orders', body, 'other')), {
        method: 'POST',
        body,
      }),
      get('/echo-hmac/v3/orders', headers(ts, good), { method: 'POST', body: '{"amount":1000}' }),
      get(
        '/echo-hmac/v3/orders',
        headers(String(Date.now() - 3_600_000), sign256(String(Date.now() - 3_600_000), 'POST', '/v3/orders', body)),
        {
          method: 'POST',
          body,
        },
      ),
      get('/echo-hmac/v3/orders', { ...headers(ts, good), 'x-api-key': 'other' }, { method: 'POST', body }),
      get('/echo-hmac/v3/orders', { 'x-api-key': 'sandbox-hmac-key-id' }, { method: 'POST', body }),
    ];
    const results = await Promise.all(cases);
    expect(results.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect(results[2]!.headers.get('x-sandbox-auth-failure')).toBe('timestamp outside the allowed window');
    expect(sandbox.control.counters().created['echo-hmac']).toBeUndefined();
  });
});

describe('jwt', () => {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = () => Math.floor(Date.now() / 1000);
  function hs256(claims: Record<string, unknown>, secret = 'sandbox-jwt-secret', alg = 'HS256'): string {
    const head = `${b64({ alg, typ: 'JWT' })}.${b64(claims)}`;
    return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
  }
  function rs256(claims: Record<string, unknown>, key: KeyObject = rsa.privateKey): string {
    const head = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}`;
    return `${head}.${sign('sha256', Buffer.from(head), key).toString('base64url')}`;
  }

  it('accepts HS256 with the right audience and refuses wrong secret, expiry, audience and alg none', async () => {
    const ok = hs256({ sub: 'merchant', aud: 'rota-sandbox', exp: now() + 300 });
    expect((await get('/echo-jwt/x', { authorization: `Bearer ${ok}` })).status).toBe(200);
    const none = `${b64({ alg: 'none' })}.${b64({ aud: 'rota-sandbox', exp: now() + 300 })}.`;
    const refused = await Promise.all(
      [
        hs256({ aud: 'rota-sandbox', exp: now() + 300 }, 'other'),
        hs256({ aud: 'rota-sandbox', exp: now() - 3600 }),
        hs256({ aud: 'elsewhere', exp: now() + 300 }),
        hs256({ aud: 'rota-sandbox' }),
        none,
      ].map((t) => get('/echo-jwt/x', { authorization: `Bearer ${t}` })),
    );
    expect(refused.map((r) => r.headers.get('x-sandbox-auth-failure'))).toEqual([
      'bad signature',
      'token expired',
      'unexpected audience',
      'exp claim missing',
      'unexpected algorithm',
    ]);
  });

  it('accepts RS256 signed by the configured key and refuses another key or issuer', async () => {
    expect(
      (await get('/jwt-rs/x', { authorization: `Bearer ${rs256({ iss: 'rota', exp: now() + 300 })}` })).status,
    ).toBe(200);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect(
      (await get('/jwt-rs/x', { authorization: `Bearer ${rs256({ iss: 'rota', exp: now() + 300 }, other)}` })).status,
    ).toBe(401);
    expect(
      (await get('/jwt-rs/x', { authorization: `Bearer ${rs256({ iss: 'someone', exp: now() + 300 })}` })).status,
    ).toBe(401);
  });
});

describe('oauth2', () => {
  const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    get(
      '/pkce-app/oauth/token',
      { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      { method: 'POST', body: new URLSearchParams(fields).toString() },
    );

  it('client_credentials: a token that works until it expires; a wrong secret is invalid_client', async () => {
    const bad = await get(
      '/mercadopago/oauth/token',
      { 'content-type': 'application/json' },
      {
        method: 'POST',
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'sandbox-mp-client', client_secret: 'x' }),
      },
    );
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('invalid_client');
    const basic = `Basic ${Buffer.from('sandbox-mp-client:sandbox-mp-secret').toString('base64')}`;
    const issued = await get(
      '/mercadopago/oauth/token',
      { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      { method: 'POST', body: 'grant_type=client_credentials' },
    );
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, access_token: expect.any(String) });
    expect(issued.headers.get('cache-control')).toBe('no-store');
    const bearer = { authorization: `Bearer ${issued.body.access_token}` };
    expect((await get('/mercadopago/v1/payments/search', bearer)).status).toBe(200);
    expect(sandbox.control.expireTokens('mercadopago')).toBe(1);
    const expired = await get('/mercadopago/v1/payments/search', bearer);
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ error: 'unauthorized', status: 401 });
    expect(expired.headers.get('x-sandbox-auth-failure')).toBe('access token expired');
    // A token of one prefix is no good on another.
    const me = await get('/melhorenvio/api/v2/me/orders/x', bearer);
    expect(me.status).toBe(401);
    expect(me.body).toEqual({ message: 'Unauthenticated.' });
    expect(sandbox.control.counters().token_requests).toEqual({ mercadopago: 2 });
  });

  it('authorization_code with PKCE, then refresh_token with rotation', async () => {
    const verifier = 'a-long-random-verifier-string-for-the-pkce-test-0123456789';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: 'app',
      redirect_uri: 'http://127.0.0.1:9/callback',
      state: 'xyz',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'read',
    });
    const auth = await get(`/pkce-app/oauth/authorize?${q}`);
    expect(auth.status).toBe(302);
    const location = new URL(auth.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:9/callback');
    expect(location.searchParams.get('state')).toBe('xyz');
    const code = location.searchParams.get('code')!;

    const exchange = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:9/callback',
      client_id: 'app',
      client_secret: 'app-secret',
    };
    const wrongVerifier = await form({ ...exchange, code_verifier: 'not-it' });
    expect(wrongVerifier.body.error).toBe('invalid_grant');
    // The failed attempt spent the code.
    expect((await form({ ...exchange, code_verifier: verifier })).body.error).toBe('invalid_grant');

    const fresh = new URL((await get(`/pkce-app/oauth/authorize?${q}`)).headers.get('location')!).searchParams.get(
      'code',
    )!;
    const tokens = await form({ ...exchange, code: fresh, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ scope: 'read', expires_in: 600, refresh_token: expect.any(String) });
    expect((await get('/pkce-app/x', { authorization: `Bearer ${tokens.body.access_token}` })).status).toBe(200);

    const refreshed = await form({
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      client_id: 'app',
      client_secret: 'app-secret',
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.body.refresh_token);
    const reused = await form({
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      client_id: 'app',
      client_secret: 'app-secret',
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
  });

  it('refuses an unregistered redirect URI without redirecting, and an unknown scope by redirecting', async () => {
    const base = { response_type: 'code', client_id: 'app', scope: 'read' };
    const foreign = await get(
      `/pkce-app/oauth/authorize?${new URLSearchParams({ ...base, redirect_uri: 'https://evil.example/cb' })}`,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('location')).toBeNull();
    const scope = await get(
      `/pkce-app/oauth/authorize?${new URLSearchParams({ ...base, redirect_uri: 'http://127.0.0.1:9/callback', scope: 'admin' })}`,
    );
    expect(new URL(scope.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });
});

describe('certificate (mTLS)', () => {
  function tlsGet(path: string, client?: 'client' | 'other' | 'rogue'): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${sandbox.tlsUrl}${path}`,
        { ca: pem('ca.crt'), ...(client ? { cert: pem(`${client}.crt`), key: pem(`${client}.key`) } : {}) },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('accepts a client certificate from the CA and refuses none, a self-signed one, or another subject', async () => {
    expect(sandbox.tlsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect((await tlsGet('/echo-certificate/v1/balance', 'client')).status).toBe(200);
    expect((await tlsGet('/cert-named/v1/balance', 'client')).status).toBe(200);
    expect((await tlsGet('/echo-certificate/v1/balance')).status).toBe(403);
    expect((await tlsGet('/echo-certificate/v1/balance', 'rogue')).status).toBe(403);
    expect((await tlsGet('/cert-named/v1/balance', 'other')).status).toBe(403);
    // Plain HTTP carries no certificate at all.
    expect((await get('/echo-certificate/v1/balance')).status).toBe(403);
    expect(sandbox.control.counters().last_credentials['cert-named']).toEqual({
      'tls-client-subject': 'CN=other-client',
    });
  });
});
