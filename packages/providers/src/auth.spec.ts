import { createHmac, generateKeyPairSync } from 'node:crypto';
import type { ProviderAuth } from '@rota/contracts';
import { ProviderAuth as ProviderAuthSchema } from '@rota/contracts';
import { injectAuth, type Credentials } from './auth';
import { CredentialError } from './errors';
import type { ProviderRequest } from './request';

const request: ProviderRequest = {
  url: 'https://api.example.com/v3/payments?x=1',
  method: 'POST',
  headers: { accept: 'application/json', 'content-type': 'application/json' },
  body: '{"value":10}',
};
const auth = (raw: unknown): ProviderAuth => ProviderAuthSchema.parse(raw);
const NOW = 1_700_000_000_000;

async function refusal(a: ProviderAuth, creds: Credentials): Promise<CredentialError> {
  try {
    await injectAuth(a, creds, request, { now: () => NOW });
  } catch (err) {
    expect(err).toBeInstanceOf(CredentialError);
    return err as CredentialError;
  }
  throw new Error('expected injectAuth to refuse');
}

describe('injectAuth', () => {
  it('api_key in a header with a prefix, and in the query', async () => {
    const h = await injectAuth(
      auth({ type: 'api_key', name: 'Authorization', prefix: 'Token ' }),
      { api_key: 'k-123' },
      request,
    );
    expect(h.request.headers.authorization).toBe('Token k-123');
    const q = await injectAuth(
      auth({ type: 'api_key', in: 'query', name: 'access_token', credential: 'token' }),
      { token: 't 9' },
      request,
    );
    const url = new URL(q.request.url);
    expect(url.searchParams.get('access_token')).toBe('t 9');
    expect(url.searchParams.get('x')).toBe('1');
    expect(request.url).toBe('https://api.example.com/v3/payments?x=1');
  });

  it('bearer, basic and two_header', async () => {
    expect((await injectAuth(auth({ type: 'bearer' }), { token: 'tok' }, request)).request.headers.authorization).toBe(
      'Bearer tok',
    );
    const basic = await injectAuth(auth({ type: 'basic' }), { username: 'ana', password: 'p:w' }, request);
    expect(Buffer.from(basic.request.headers.authorization!.replace('Basic ', ''), 'base64').toString()).toBe(
      'ana:p:w',
    );
    // A token as the user with an empty password is a complete credential; a missing password is not.
    const tokenOnly = await injectAuth(auth({ type: 'basic' }), { username: 'tok', password: '' }, request);
    expect(Buffer.from(tokenOnly.request.headers.authorization!.replace('Basic ', ''), 'base64').toString()).toBe(
      'tok:',
    );
    expect((await refusal(auth({ type: 'basic' }), { username: 'tok' })).details.field).toBe('password');
    const two = await injectAuth(
      auth({
        type: 'two_header',
        headers: [
          { name: 'X-Client-Id', credential: 'client_id' },
          { name: 'X-Client-Secret', credential: 'client_secret' },
        ],
      }),
      { client_id: 'id-1', client_secret: 'sec-1' },
      request,
    );
    expect(two.request.headers['x-client-id']).toBe('id-1');
    expect(two.request.headers['x-client-secret']).toBe('sec-1');
  });

  it('hmac signs the listed parts joined by newlines, with timestamp and key id headers', async () => {
    const a = auth({ type: 'hmac', header: 'X-Signature', timestamp_header: 'X-Timestamp', key_header: 'X-Key-Id' });
    const out = await injectAuth(a, { secret: 's3cret', key_id: 'kid-1' }, request, { now: () => NOW });
    const ts = String(NOW / 1000);
    const expected = createHmac('sha256', 's3cret').update(`${ts}\nPOST\n/v3/payments?x=1\n{"value":10}`).digest('hex');
    expect(out.request.headers['x-signature']).toBe(expected);
    expect(out.request.headers['x-timestamp']).toBe(ts);
    expect(out.request.headers['x-key-id']).toBe('kid-1');

    const b64 = await injectAuth(
      auth({ type: 'hmac', header: 'Sig', algorithm: 'sha512', encoding: 'base64', signed: ['method', 'body'] }),
      { secret: 'k' },
      request,
    );
    expect(b64.request.headers.sig).toBe(createHmac('sha512', 'k').update('POST\n{"value":10}').digest('base64'));
  });

  it('jwt signs HS256 from the secret with the configured claims plus iat, exp and jti', async () => {
    const { jwtVerify } = await import('jose');
    const a = auth({ type: 'jwt', algorithm: 'HS256', claims: { iss: 'rota', aud: 'prov' }, lifetime_s: 120 });
    const secret = 'a-shared-secret-of-decent-length';
    const first = await injectAuth(a, { secret }, request);
    const second = await injectAuth(a, { secret }, request);
    const token = first.request.headers.authorization!.replace('Bearer ', '');
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(secret), {
      issuer: 'rota',
      audience: 'prov',
    });
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload.exp! - payload.iat!).toBe(120);
    expect(typeof payload.jti).toBe('string');
    expect(second.request.headers.authorization).not.toBe(first.request.headers.authorization);
  });

  it.each([
    ['RS256', () => generateKeyPairSync('rsa', { modulusLength: 2048 })],
    ['ES256', () => generateKeyPairSync('ec', { namedCurve: 'P-256' })],
  ] as const)('jwt signs %s from a PEM private key', async (algorithm, pair) => {
    const { jwtVerify } = await import('jose');
    const { privateKey, publicKey } = pair();
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const out = await injectAuth(
      auth({ type: 'jwt', algorithm, claims: { sub: 'acct' } }),
      { private_key: pem },
      request,
    );
    const { payload } = await jwtVerify(out.request.headers.authorization!.replace('Bearer ', ''), publicKey);
    expect(payload.sub).toBe('acct');
  });

  it('certificate returns the TLS identity and leaves the request alone', async () => {
    const err = await refusal(auth({ type: 'certificate' }), { certificate: 'not a pem', private_key: 'nor this' });
    expect(err.code).toBe('credential_invalid');
    expect((await refusal(auth({ type: 'certificate' }), { private_key: 'x' })).details.field).toBe('certificate');
  });

  it('oauth2 uses the token source it is given', async () => {
    const out = await injectAuth(
      auth({ type: 'oauth2', grant: 'client_credentials', token_url: 'https://auth.example.com/token' }),
      {},
      request,
      {
        oauth2Token: async () => 'at-1',
      },
    );
    expect(out.request.headers.authorization).toBe('Bearer at-1');
  });

  it('none changes nothing', async () => {
    expect((await injectAuth(auth({ type: 'none' }), {}, request)).request).toBe(request);
  });

  it.each([
    [{ type: 'api_key', name: 'X-Key' }, 'api_key'],
    [{ type: 'bearer' }, 'token'],
    [{ type: 'basic' }, 'username'],
    [{ type: 'hmac', header: 'X-Sig' }, 'secret'],
    [{ type: 'jwt', algorithm: 'HS256' }, 'secret'],
    [{ type: 'jwt', algorithm: 'RS256' }, 'private_key'],
    [{ type: 'certificate' }, 'certificate'],
  ])('a missing credential is a typed error naming the field (%j)', async (raw, field) => {
    const err = await refusal(auth(raw), { unrelated: 'value-that-must-not-leak' });
    expect(err.code).toBe('credential_missing');
    expect(err.details.field).toBe(field);
    expect(err.message).toContain(field);
  });

  it('refuses credentials that would split a header, and keys that cannot sign, without quoting them', async () => {
    const split = await refusal(auth({ type: 'bearer' }), { token: 'abc\r\nX-Evil: 1' });
    expect(split.code).toBe('credential_invalid');
    expect(split.message).not.toContain('abc');
    const bad = await refusal(auth({ type: 'jwt', algorithm: 'ES256' }), { private_key: 'garbage-key-material' });
    expect(bad.code).toBe('credential_invalid');
    expect(bad.message).not.toContain('garbage');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    expect((await refusal(auth({ type: 'jwt', algorithm: 'ES256' }), { private_key: rsa })).code).toBe(
      'credential_invalid',
    );
  });
});
