import { DEFAULT_CONFIG, loadEnv, mergeConfig, validateConfig } from './config';

describe('sandbox environment', () => {
  it('defaults to 127.0.0.1:4010 without TLS', () => {
    expect(loadEnv({})).toEqual({ port: 4010, host: '127.0.0.1', control: null, ignoreIdempotencyKeys: false });
    expect(loadEnv({ SANDBOX_CONTROL_TOKEN: 'a-control-token-1234' }).control).toEqual({
      port: 4011,
      token: 'a-control-token-1234',
    });
    expect(loadEnv({ SANDBOX_CONTROL_TOKEN: 'x'.repeat(20), SANDBOX_CONTROL_PORT: '0' }).control).toEqual({
      port: 0,
      token: 'x'.repeat(20),
    });
    expect(() => loadEnv({ SANDBOX_CONTROL_TOKEN: 'short' })).toThrow('SANDBOX_CONTROL_TOKEN');
    expect(loadEnv({ SANDBOX_IGNORE_IDEMPOTENCY_KEYS: 'true' }).ignoreIdempotencyKeys).toBe(true);
    expect(() => loadEnv({ SANDBOX_IGNORE_IDEMPOTENCY_KEYS: 'yes' })).toThrow('SANDBOX_IGNORE_IDEMPOTENCY_KEYS');
  });

  it('refuses a bad port and a TLS listener with only some of its files', () => {
    expect(() => loadEnv({ SANDBOX_PORT: 'http' })).toThrow('SANDBOX_PORT');
    expect(() => loadEnv({ SANDBOX_TLS_CERT: '/c.pem' })).toThrow('SANDBOX_TLS_KEY');
    expect(loadEnv({ SANDBOX_TLS_CERT: 'c', SANDBOX_TLS_KEY: 'k', SANDBOX_TLS_CA: 'a' }).tls).toEqual({
      port: 4443,
      certPath: 'c',
      keyPath: 'k',
      caPath: 'a',
    });
  });
});

describe('sandbox config', () => {
  it('lays a file over the defaults, keeping the other prefixes', () => {
    const merged = mergeConfig({ providers: { asaas: { kind: 'asaas', auth: { type: 'bearer', token: 't' } } } });
    expect(merged.providers.asaas!.auth).toEqual({ type: 'bearer', token: 't' });
    expect(merged.providers.mercadopago).toEqual(DEFAULT_CONFIG.providers.mercadopago);
  });

  it('names the first bad field', () => {
    expect(() => validateConfig({ providers: { x: { kind: 'stripe', auth: { type: 'none' } } } })).toThrow(
      'providers.x: kind',
    );
    expect(() =>
      validateConfig({
        providers: { x: { kind: 'echo', auth: { type: 'api_key', in: 'cookie', name: 'k', value: 'v' } } },
      }),
    ).toThrow('auth.in');
    expect(() =>
      validateConfig({ providers: { x: { kind: 'echo', auth: { type: 'two_header', headers: { a: '1' } } } } }),
    ).toThrow('exactly two');
    expect(() =>
      validateConfig({ providers: { x: { kind: 'echo', auth: { type: 'jwt', algorithm: 'RS256' } } } }),
    ).toThrow('public_key');
    expect(() => validateConfig({ providers: { Bad: { kind: 'echo', auth: { type: 'none' } } } })).toThrow('lowercase');
  });

  it('lowercases header names so they match what Node receives', () => {
    const c = validateConfig({
      providers: {
        x: {
          kind: 'echo',
          auth: { type: 'two_header', headers: { 'Key-Id': '1', 'Key-Secret': '2' } },
          idempotency_header: 'X-Idem',
        },
      },
    });
    expect(c.providers.x).toEqual({
      kind: 'echo',
      auth: { type: 'two_header', headers: { 'key-id': '1', 'key-secret': '2' } },
      idempotency_header: 'x-idem',
    });
  });
});
