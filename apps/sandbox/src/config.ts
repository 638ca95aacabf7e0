import { readFileSync } from 'node:fs';

/**
 * How a provider prefix wants its callers to authenticate. One shape per
 * auth type the catalog describes; the values are what the sandbox accepts,
 * so they double as the test credentials a connection stores.
 */
export type AuthConfig =
  | { type: 'none' }
  /** A key in a header (`access_token: …`, `Authorization: Token …`) or in the query string. */
  | { type: 'api_key'; in: 'header' | 'query'; name: string; prefix?: string; value: string }
  /** `Authorization: Bearer <token>` with a fixed token. */
  | { type: 'bearer'; token: string }
  /** `Authorization: Basic base64(username:password)`. */
  | { type: 'basic'; username: string; password: string }
  /** Two headers that must both carry their value (key id and secret). */
  | { type: 'two_header'; headers: Record<string, string> }
  /**
   * Bearer tokens issued by the prefix's own token endpoint
   * (`/<provider>/oauth/token`, `/<provider>/oauth/authorize`).
   */
  | {
      type: 'oauth2';
      client_id: string;
      client_secret: string;
      /** Where /authorize may send the code back; empty means any http(s) URL. */
      redirect_uris?: string[];
      scopes?: string[];
      token_ttl_seconds?: number;
    }
  /**
   * An HMAC of `timestamp + METHOD + path + body` in a signature header, with
   * the timestamp (Unix seconds or milliseconds) in its own header.
   */
  | {
      type: 'hmac';
      secret: string;
      algorithm?: 'sha256' | 'sha512';
      signature_header?: string;
      timestamp_header?: string;
      /** When set, this header must carry `key_id` (the public half of the pair). */
      key_id_header?: string;
      key_id?: string;
      skew_seconds?: number;
    }
  /** A JWT bearer signed with HS256 (shared secret) or RS256 (the caller's key; the sandbox holds the public half). */
  | {
      type: 'jwt';
      algorithm: 'HS256' | 'RS256';
      secret?: string;
      public_key?: string;
      issuer?: string;
      audience?: string;
      leeway_seconds?: number;
    }
  /** A client certificate on the TLS listener, signed by its CA; optionally only these subject CNs. */
  | { type: 'certificate'; subjects?: string[] };

export type AuthType = AuthConfig['type'];

/** Which modelled API a prefix speaks. `echo` answers any path with what it received (minus credentials). */
export const PROVIDER_KINDS = [
  'asaas',
  'mercadopago',
  'nfse',
  'whatsapp',
  'melhorenvio',
  'vtex',
  'circle',
  'idwall',
  'blnk',
  'pomelo',
  'inter',
  'openpay',
  'wise',
  'wompi',
  'transbank',
  'culqi',
  'facturapi',
  'envia',
  'zenvia',
  'echo',
] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface ProviderConfig {
  kind: ProviderKind;
  auth: AuthConfig;
  /** Header read as the idempotency key; each kind has its provider's default. */
  idempotency_header?: string;
  /** WhatsApp only: the phone number ids the account owns. */
  phone_number_ids?: string[];
}

export interface SandboxConfig {
  providers: Record<string, ProviderConfig>;
}

/**
 * The documented test credentials. They protect nothing: they exist so that
 * a client of the sandbox exercises the same credential injection it would
 * use against the real provider.
 */
export const DEFAULT_CONFIG: SandboxConfig = {
  providers: {
    asaas: { kind: 'asaas', auth: { type: 'api_key', in: 'header', name: 'access_token', value: 'sandbox-asaas-key' } },
    mercadopago: {
      kind: 'mercadopago',
      auth: {
        type: 'oauth2',
        client_id: 'sandbox-mp-client',
        client_secret: 'sandbox-mp-secret',
        scopes: ['read', 'write', 'offline_access'],
      },
    },
    nfse: { kind: 'nfse', auth: { type: 'basic', username: 'sandbox-nfse-token', password: '' } },
    whatsapp: {
      kind: 'whatsapp',
      auth: { type: 'bearer', token: 'sandbox-whatsapp-token' },
      phone_number_ids: ['100000000000001'],
    },
    melhorenvio: {
      kind: 'melhorenvio',
      auth: {
        type: 'oauth2',
        client_id: 'sandbox-me-client',
        client_secret: 'sandbox-me-secret',
        scopes: [
          'cart-read',
          'cart-write',
          'shipping-calculate',
          'shipping-checkout',
          'shipping-generate',
          'shipping-tracking',
        ],
      },
    },
    vtex: {
      kind: 'vtex',
      auth: {
        type: 'two_header',
        headers: { 'x-vtex-api-appkey': 'sandbox-vtex-appkey', 'x-vtex-api-apptoken': 'sandbox-vtex-apptoken' },
      },
    },
    circle: { kind: 'circle', auth: { type: 'bearer', token: 'sandbox-circle-key' } },
    idwall: {
      kind: 'idwall',
      auth: { type: 'api_key', in: 'header', name: 'authorization', value: 'sandbox-idwall-token' },
    },
    blnk: { kind: 'blnk', auth: { type: 'api_key', in: 'header', name: 'x-blnk-key', value: 'sandbox-blnk-key' } },
    pomelo: {
      kind: 'pomelo',
      auth: { type: 'oauth2', client_id: 'sandbox-pomelo-client', client_secret: 'sandbox-pomelo-secret' },
    },
    inter: {
      kind: 'inter',
      auth: {
        type: 'oauth2',
        client_id: 'sandbox-inter-client',
        client_secret: 'sandbox-inter-secret',
        scopes: ['pagamento-pix.write', 'pagamento-pix.read', 'extrato.read'],
      },
    },
    openpay: { kind: 'openpay', auth: { type: 'basic', username: 'sandbox-openpay-key', password: '' } },
    wise: { kind: 'wise', auth: { type: 'bearer', token: 'sandbox-wise-token' } },
    wompi: { kind: 'wompi', auth: { type: 'bearer', token: 'sandbox-wompi-private-key' } },
    transbank: {
      kind: 'transbank',
      auth: {
        type: 'two_header',
        headers: { 'tbk-api-key-id': 'sandbox-tbk-commerce', 'tbk-api-key-secret': 'sandbox-tbk-secret' },
      },
    },
    culqi: { kind: 'culqi', auth: { type: 'bearer', token: 'sandbox-culqi-secret-key' } },
    facturapi: { kind: 'facturapi', auth: { type: 'bearer', token: 'sandbox-facturapi-key' } },
    envia: { kind: 'envia', auth: { type: 'bearer', token: 'sandbox-envia-token' } },
    zenvia: {
      kind: 'zenvia',
      auth: { type: 'api_key', in: 'header', name: 'x-api-token', value: 'sandbox-zenvia-token' },
    },
    'echo-api-key-query': {
      kind: 'echo',
      auth: { type: 'api_key', in: 'query', name: 'api_key', value: 'sandbox-query-key' },
    },
    'echo-two-header': {
      kind: 'echo',
      auth: {
        type: 'two_header',
        headers: { 'tbk-api-key-id': 'sandbox-key-id', 'tbk-api-key-secret': 'sandbox-key-secret' },
      },
    },
    'echo-hmac': {
      kind: 'echo',
      auth: { type: 'hmac', secret: 'sandbox-hmac-secret', key_id_header: 'x-api-key', key_id: 'sandbox-hmac-key-id' },
    },
    'echo-jwt': {
      kind: 'echo',
      auth: { type: 'jwt', algorithm: 'HS256', secret: 'sandbox-jwt-secret', audience: 'rota-sandbox' },
    },
    'echo-certificate': { kind: 'echo', auth: { type: 'certificate' } },
  },
};

const AUTH_TYPES: readonly AuthType[] = [
  'none',
  'api_key',
  'bearer',
  'basic',
  'two_header',
  'oauth2',
  'hmac',
  'jwt',
  'certificate',
];

function fail(where: string, message: string): never {
  throw new Error(`sandbox config: ${where}: ${message}`);
}

function requireString(value: unknown, where: string, field: string, allowEmpty = false): void {
  if (typeof value !== 'string' || (!allowEmpty && value.length === 0))
    fail(where, `${field} must be a ${allowEmpty ? '' : 'non-empty '}string`);
}

function checkAuth(auth: unknown, where: string): AuthConfig {
  if (typeof auth !== 'object' || auth === null) fail(where, 'auth must be an object');
  const a = auth as Record<string, unknown>;
  if (!AUTH_TYPES.includes(a.type as AuthType)) fail(where, `auth.type must be one of ${AUTH_TYPES.join(', ')}`);
  const type = a.type as AuthType;
  switch (type) {
    case 'none':
    case 'certificate':
      break;
    case 'api_key':
      if (a.in !== 'header' && a.in !== 'query') fail(where, 'auth.in must be header or query');
      requireString(a.name, where, 'auth.name');
      requireString(a.value, where, 'auth.value');
      if (a.prefix !== undefined) requireString(a.prefix, where, 'auth.prefix', true);
      break;
    case 'bearer':
      requireString(a.token, where, 'auth.token');
      break;
    case 'basic':
      requireString(a.username, where, 'auth.username');
      requireString(a.password, where, 'auth.password', true);
      break;
    case 'two_header': {
      const headers = a.headers as Record<string, unknown> | undefined;
      if (!headers || typeof headers !== 'object' || Object.keys(headers).length !== 2)
        fail(where, 'auth.headers must name exactly two headers');
      for (const [k, v] of Object.entries(headers)) requireString(v, where, `auth.headers.${k}`);
      // Header names arrive lowercased from Node.
      a.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
      break;
    }
    case 'oauth2':
      requireString(a.client_id, where, 'auth.client_id');
      requireString(a.client_secret, where, 'auth.client_secret');
      break;
    case 'hmac':
      requireString(a.secret, where, 'auth.secret');
      if (a.algorithm !== undefined && a.algorithm !== 'sha256' && a.algorithm !== 'sha512')
        fail(where, 'auth.algorithm must be sha256 or sha512');
      if ((a.key_id_header === undefined) !== (a.key_id === undefined))
        fail(where, 'auth.key_id_header and auth.key_id go together');
      break;
    case 'jwt':
      if (a.algorithm === 'HS256') requireString(a.secret, where, 'auth.secret');
      else if (a.algorithm === 'RS256') requireString(a.public_key, where, 'auth.public_key');
      else fail(where, 'auth.algorithm must be HS256 or RS256');
      break;
  }
  return a as AuthConfig;
}

/** Checks a parsed config and throws an Error naming the first bad field. */
export function validateConfig(input: unknown): SandboxConfig {
  if (typeof input !== 'object' || input === null) fail('root', 'must be an object');
  const providers = (input as { providers?: unknown }).providers;
  if (typeof providers !== 'object' || providers === null) fail('root', 'providers must be an object');
  const out: Record<string, ProviderConfig> = {};
  for (const [id, raw] of Object.entries(providers)) {
    const where = `providers.${id}`;
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(id)) fail(where, 'a provider id is lowercase letters, digits, - and _');
    if (id.startsWith('_')) fail(where, 'ids starting with _ are reserved');
    if (typeof raw !== 'object' || raw === null) fail(where, 'must be an object');
    const p = raw as Record<string, unknown>;
    if (!PROVIDER_KINDS.includes(p.kind as ProviderKind))
      fail(where, `kind must be one of ${PROVIDER_KINDS.join(', ')}`);
    if (p.idempotency_header !== undefined) requireString(p.idempotency_header, where, 'idempotency_header');
    out[id] = {
      kind: p.kind as ProviderKind,
      auth: checkAuth(p.auth, where),
      ...(p.idempotency_header !== undefined
        ? { idempotency_header: (p.idempotency_header as string).toLowerCase() }
        : {}),
      ...(Array.isArray(p.phone_number_ids) ? { phone_number_ids: p.phone_number_ids.map(String) } : {}),
    };
  }
  return { providers: out };
}

/**
 * The defaults with a file's providers laid over them: a file that only
 * changes how `asaas` authenticates keeps every other prefix as documented.
 */
export function mergeConfig(override: SandboxConfig | undefined): SandboxConfig {
  const base = validateConfig(structuredClone(DEFAULT_CONFIG));
  if (!override) return base;
  const checked = validateConfig(structuredClone(override));
  return { providers: { ...base.providers, ...checked.providers } };
}

export interface SandboxEnv {
  port: number;
  host: string;
  /** The control API's listener (`SANDBOX_CONTROL_PORT`, default 4011) and token (`SANDBOX_CONTROL_TOKEN`); null without a token: no control API. */
  control: { port: number; token: string } | null;
  configPath?: string;
  tls?: { port: number; certPath: string; keyPath: string; caPath: string };
  /** `SANDBOX_IGNORE_IDEMPOTENCY_KEYS`: repeats of a key run again (see `SandboxOptions.ignoreIdempotencyKeys`). */
  ignoreIdempotencyKeys: boolean;
}

function parsePort(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`${name} must be a port number (0..65535), got "${raw}"`);
  return n;
}

/**
 * Reads the sandbox's environment. Written by hand rather than with the
 * workspace's Zod config loader so the app has no dependency at all and
 * starts from a bare checkout.
 */
export function loadEnv(env: NodeJS.ProcessEnv = process.env): SandboxEnv {
  const port = parsePort('SANDBOX_PORT', env.SANDBOX_PORT, 4010);
  const host = env.SANDBOX_HOST || '127.0.0.1';
  const controlPort = parsePort('SANDBOX_CONTROL_PORT', env.SANDBOX_CONTROL_PORT, 4011);
  const token = env.SANDBOX_CONTROL_TOKEN ?? '';
  if (token !== '' && (token.length < 16 || /\s/.test(token)))
    throw new Error('SANDBOX_CONTROL_TOKEN must be at least 16 characters without spaces');
  const tlsVars = ['SANDBOX_TLS_CERT', 'SANDBOX_TLS_KEY', 'SANDBOX_TLS_CA'] as const;
  const set = tlsVars.filter((v) => env[v]);
  if (set.length > 0 && set.length < tlsVars.length)
    throw new Error(`the TLS listener needs all of ${tlsVars.join(', ')}`);
  const ignore = env.SANDBOX_IGNORE_IDEMPOTENCY_KEYS ?? '';
  if (!['', 'true', 'false'].includes(ignore))
    throw new Error(`SANDBOX_IGNORE_IDEMPOTENCY_KEYS must be true or false, got "${ignore}"`);
  return {
    port,
    host,
    control: token ? { port: controlPort, token } : null,
    ignoreIdempotencyKeys: ignore === 'true',
    ...(env.SANDBOX_CONFIG ? { configPath: env.SANDBOX_CONFIG } : {}),
    ...(set.length === tlsVars.length
      ? {
          tls: {
            port: parsePort('SANDBOX_TLS_PORT', env.SANDBOX_TLS_PORT, 4443),
            certPath: env.SANDBOX_TLS_CERT!,
            keyPath: env.SANDBOX_TLS_KEY!,
            caPath: env.SANDBOX_TLS_CA!,
          },
        }
      : {}),
  };
}

/** Reads and checks a config file. */
export function readConfigFile(path: string): SandboxConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`sandbox config: cannot read ${path}: ${(err as Error).message}`);
  }
  return validateConfig(parsed);
}
