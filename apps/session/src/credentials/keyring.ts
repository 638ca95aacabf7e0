import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Sealing of provider credentials at rest with AES-256-GCM.
 *
 * A sealed blob is `version (1 byte) | iv (12) | tag (16) | ciphertext`. The
 * id of the key that sealed it is stored beside the blob (never inside it), so
 * keys can rotate: new credentials are sealed with the current key, and older
 * blobs stay readable for as long as their key is still in the keyring.
 *
 * The additional authenticated data binds a blob to the row it was written
 * for (project, environment, provider): a blob copied onto another connection
 * fails to open instead of handing one tenant's credentials to another.
 */

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Id of the built-in key, used only in explicit development mode (`ROTA_DEV_MODE`). */
export const DEV_KEY_ID = 'dev-insecure';

export class KeyringError extends Error {}

export interface Keyring {
  /** Id stored with every newly sealed blob. */
  readonly currentKeyId: string;
  /** True when running on the built-in development key. */
  readonly insecure: boolean;
  seal(plain: Buffer, aad: string): { ciphertext: Buffer; keyId: string };
  /** Throws `KeyringError` on an unknown key id or a blob that does not authenticate. */
  open(ciphertext: Buffer, keyId: string, aad: string): Buffer;
  has(keyId: string): boolean;
  /**
   * A 32-byte key for one other purpose (`purpose` names it, e.g. signing
   * OAuth2 states), derived with HKDF-SHA256 from the current key, or from
   * `keyId` to check something made before a rotation. Never the sealing key itself.
   */
  derive(purpose: string, keyId?: string): { keyId: string; key: Buffer };
}

function decodeKey(id: string, b64: string): Buffer {
  if (!KEY_ID.test(id)) throw new KeyringError(`credentials key id "${id}" must be 1-64 characters of A-Za-z0-9._-`);
  const key = Buffer.from(b64.trim(), 'base64');
  // Buffer.from ignores junk silently; a round trip proves the text was base64.
  if (key.length !== KEY_BYTES || key.toString('base64').replace(/=+$/, '') !== b64.trim().replace(/=+$/, '')) {
    throw new KeyringError(`credentials key "${id}" must be the base64 encoding of exactly ${KEY_BYTES} bytes`);
  }
  return key;
}

export function createKeyring(keys: Map<string, Buffer>, currentKeyId: string, insecure = false): Keyring {
  const current = keys.get(currentKeyId);
  if (!current) throw new KeyringError(`the current credentials key "${currentKeyId}" is not in the keyring`);
  const get = (id: string) => {
    const k = keys.get(id);
    if (!k) throw new KeyringError(`credentials were sealed with key "${id}", which is not in the keyring`);
    return k;
  };
  return {
    currentKeyId,
    insecure,
    has: (id) => keys.has(id),
    derive(purpose, keyId = currentKeyId) {
      return { keyId, key: Buffer.from(hkdfSync('sha256', get(keyId), Buffer.alloc(0), `rota/${purpose}`, KEY_BYTES)) };
    },
    seal(plain, aad) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return {
        ciphertext: Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]),
        keyId: currentKeyId,
      };
    },
    open(blob, keyId, aad) {
      const key = get(keyId);
      if (blob.length < 1 + IV_BYTES + TAG_BYTES || blob[0] !== VERSION)
        throw new KeyringError('sealed credentials are malformed');
      const iv = blob.subarray(1, 1 + IV_BYTES);
      const tag = blob.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(blob.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
      } catch {
        throw new KeyringError('sealed credentials do not authenticate (wrong key or tampered row)');
      }
    },
  };
}

export interface KeyringEnv {
  NODE_ENV?: string;
  ROTA_CREDENTIALS_KEY?: string;
  ROTA_CREDENTIALS_KEYS?: string;
  ROTA_CREDENTIALS_KEY_ID?: string;
  /** Explicit development mode: the only case where the built-in key is accepted. */
  ROTA_DEV_MODE?: boolean;
}

/**
 * Builds the keyring from the environment:
 * - `ROTA_CREDENTIALS_KEYS=id:base64,id:base64` with `ROTA_CREDENTIALS_KEY_ID`
 *   naming the current one (required when there is more than one);
 * - or a single `ROTA_CREDENTIALS_KEY` (its id is `ROTA_CREDENTIALS_KEY_ID`, default `primary`);
 * - or, only with `ROTA_DEV_MODE` and never when NODE_ENV is `production`,
 *   a fixed development key derived from a public string. It protects
 *   nothing (anyone can read it here), so it must be asked for explicitly:
 *   a service that merely forgot its key refuses to boot rather than seal
 *   real credentials with it.
 */
export function keyringFromEnv(env: KeyringEnv): Keyring {
  const single = env.ROTA_CREDENTIALS_KEY?.trim();
  const ring = env.ROTA_CREDENTIALS_KEYS?.trim();
  const wanted = env.ROTA_CREDENTIALS_KEY_ID?.trim() || undefined;
  if (single && ring) throw new KeyringError('set either ROTA_CREDENTIALS_KEY or ROTA_CREDENTIALS_KEYS, not both');
  if (ring) {
    const keys = new Map<string, Buffer>();
    for (const entry of ring
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const at = entry.indexOf(':');
      if (at <= 0) throw new KeyringError('ROTA_CREDENTIALS_KEYS entries look like id:base64');
      const id = entry.slice(0, at);
      if (keys.has(id)) throw new KeyringError(`credentials key id "${id}" appears twice in ROTA_CREDENTIALS_KEYS`);
      keys.set(id, decodeKey(id, entry.slice(at + 1)));
    }
    if (keys.size === 0) throw new KeyringError('ROTA_CREDENTIALS_KEYS holds no key');
    if (!wanted && keys.size > 1)
      throw new KeyringError(
        'ROTA_CREDENTIALS_KEY_ID must name the current key when ROTA_CREDENTIALS_KEYS holds several',
      );
    return createKeyring(keys, wanted ?? [...keys.keys()][0]!);
  }
  if (single) {
    const id = wanted ?? 'primary';
    return createKeyring(new Map([[id, decodeKey(id, single)]]), id);
  }
  if (env.NODE_ENV === 'production') {
    throw new KeyringError('ROTA_CREDENTIALS_KEY (or ROTA_CREDENTIALS_KEYS) is required when NODE_ENV=production');
  }
  if (!env.ROTA_DEV_MODE) {
    throw new KeyringError(
      'ROTA_CREDENTIALS_KEY is not set: set it to the base64 of 32 random bytes (`openssl rand -base64 32`; scripts/up.sh writes one into .env), or set ROTA_DEV_MODE=true to use the public development key on a machine that holds no real credentials',
    );
  }
  const devKey = createHash('sha256')
    .update('rota development credentials key: not a secret, never use in production')
    .digest();
  return createKeyring(new Map([[DEV_KEY_ID, devKey]]), DEV_KEY_ID, true);
}
