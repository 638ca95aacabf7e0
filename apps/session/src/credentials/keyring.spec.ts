import { randomBytes } from 'node:crypto';
import { DEV_KEY_ID, KeyringError, keyringFromEnv } from './keyring';

const b64 = () => randomBytes(32).toString('base64');

describe('credentials keyring', () => {
  const plain = Buffer.from(JSON.stringify({ api_key: 'sk_live_very_secret' }));

  it('seals with AES-256-GCM and opens with the same key and row binding', () => {
    const ring = keyringFromEnv({ ROTA_CREDENTIALS_KEY: b64() });
    const { ciphertext, keyId } = ring.seal(plain, 'row-a');
    expect(keyId).toBe('primary');
    expect(ciphertext.includes(Buffer.from('very_secret'))).toBe(false);
    expect(ciphertext.length).toBe(1 + 12 + 16 + plain.length);
    expect(ring.open(ciphertext, keyId, 'row-a')).toEqual(plain);
  });

  it('uses a fresh IV each time, so equal credentials never give equal blobs', () => {
    const ring = keyringFromEnv({ ROTA_CREDENTIALS_KEY: b64() });
    expect(ring.seal(plain, 'r').ciphertext.equals(ring.seal(plain, 'r').ciphertext)).toBe(false);
  });

  it('refuses a blob moved to another row, a flipped bit and an unknown key id', () => {
    const ring = keyringFromEnv({ ROTA_CREDENTIALS_KEY: b64() });
    const { ciphertext, keyId } = ring.seal(plain, 'row-a');
    expect(() => ring.open(ciphertext, keyId, 'row-b')).toThrow(KeyringError);
    const tampered = Buffer.from(ciphertext);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => ring.open(tampered, keyId, 'row-a')).toThrow(KeyringError);
    expect(() => ring.open(ciphertext, 'old', 'row-a')).toThrow(/not in the keyring/);
  });

  it('rotates: new blobs use the current key, old blobs still open while their key stays in the ring', () => {
    const k1 = b64();
    const k2 = b64();
    const before = keyringFromEnv({ ROTA_CREDENTIALS_KEYS: `k1:${k1}`, ROTA_CREDENTIALS_KEY_ID: 'k1' });
    const old = before.seal(plain, 'row');
    const after = keyringFromEnv({ ROTA_CREDENTIALS_KEYS: `k1:${k1},k2:${k2}`, ROTA_CREDENTIALS_KEY_ID: 'k2' });
    expect(after.currentKeyId).toBe('k2');
    expect(after.open(old.ciphertext, 'k1', 'row')).toEqual(plain);
    const fresh = after.seal(plain, 'row');
    expect(fresh.keyId).toBe('k2');
    expect(() => before.open(fresh.ciphertext, fresh.keyId, 'row')).toThrow(KeyringError);
  });

  it('derives a separate key per purpose, stable per key id and readable after a rotation', () => {
    const k1 = b64();
    const ring = keyringFromEnv({ ROTA_CREDENTIALS_KEYS: `k1:${k1}`, ROTA_CREDENTIALS_KEY_ID: 'k1' });
    const a = ring.derive('oauth-state');
    expect(a.keyId).toBe('k1');
    expect(a.key).toHaveLength(32);
    expect(a.key.equals(Buffer.from(k1, 'base64'))).toBe(false);
    expect(ring.derive('other').key.equals(a.key)).toBe(false);
    const rotated = keyringFromEnv({ ROTA_CREDENTIALS_KEYS: `k1:${k1},k2:${b64()}`, ROTA_CREDENTIALS_KEY_ID: 'k2' });
    expect(rotated.derive('oauth-state').keyId).toBe('k2');
    expect(rotated.derive('oauth-state', 'k1').key.equals(a.key)).toBe(true);
    expect(() => rotated.derive('oauth-state', 'gone')).toThrow(KeyringError);
  });

  it.each([
    ['a key that is not 32 bytes', { ROTA_CREDENTIALS_KEY: randomBytes(16).toString('base64') }, /exactly 32 bytes/],
    ['a key that is not base64', { ROTA_CREDENTIALS_KEY: '!'.repeat(44) }, /base64/],
    ['both variables', { ROTA_CREDENTIALS_KEY: b64(), ROTA_CREDENTIALS_KEYS: `a:${b64()}` }, /not both/],
    ['several keys and no current id', { ROTA_CREDENTIALS_KEYS: `a:${b64()},b:${b64()}` }, /must name the current key/],
    [
      'a current id outside the ring',
      { ROTA_CREDENTIALS_KEYS: `a:${b64()}`, ROTA_CREDENTIALS_KEY_ID: 'z' },
      /not in the keyring/,
    ],
    ['a malformed ring entry', { ROTA_CREDENTIALS_KEYS: b64() }, /id:base64/],
    ['a repeated id', { ROTA_CREDENTIALS_KEYS: `a:${b64()},a:${b64()}`, ROTA_CREDENTIALS_KEY_ID: 'a' }, /twice/],
    ['no key in production', { NODE_ENV: 'production' }, /required when NODE_ENV=production/],
  ])('refuses to start with %s', (_label, env, message) => {
    expect(() => keyringFromEnv(env)).toThrow(message);
  });

  it('uses a fixed, clearly marked development key only in explicit development mode', () => {
    const a = keyringFromEnv({ NODE_ENV: 'development', ROTA_DEV_MODE: true });
    const b = keyringFromEnv({ ROTA_DEV_MODE: true });
    expect(a.insecure).toBe(true);
    expect(a.currentKeyId).toBe(DEV_KEY_ID);
    const sealed = a.seal(plain, 'row');
    expect(b.open(sealed.ciphertext, sealed.keyId, 'row')).toEqual(plain);
    expect(keyringFromEnv({ ROTA_CREDENTIALS_KEY: b64(), ROTA_DEV_MODE: true }).insecure).toBe(false);
  });

  it.each([
    ['no key at all', {}],
    ['no key outside production', { NODE_ENV: 'development' }],
    ['no key and development mode off', { NODE_ENV: 'test', ROTA_DEV_MODE: false }],
    ['an empty key', { ROTA_CREDENTIALS_KEY: '  ' }],
  ])('refuses the built-in key with %s', (_label, env) => {
    expect(() => keyringFromEnv(env)).toThrow(KeyringError);
    expect(() => keyringFromEnv(env)).toThrow(/ROTA_DEV_MODE/);
  });

  it('refuses the built-in key in production even in development mode', () => {
    expect(() => keyringFromEnv({ NODE_ENV: 'production', ROTA_DEV_MODE: true })).toThrow(
      /required when NODE_ENV=production/,
    );
  });
});
