import { z } from 'zod';

/**
 * How Rota reaches a provider over HTTP (catalog format v2): where each kind
 * of credential goes, the provider's idempotency header, and, per tool,
 * which inputs fill the path, the query, the headers and the body. The
 * catalog import validates these, the adapter layer executes them; the
 * credentials themselves come from the connection (sealed at rest) and name
 * their fields as below.
 */

const HeaderName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'must be an HTTP header name');
const CredentialField = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a credential field name such as api_key');

/** `api_key`: one secret in a header or the query string, optionally prefixed. Credential field `api_key` unless named. */
export const ApiKeyAuth = z.strictObject({
  type: z.literal('api_key'),
  in: z.enum(['header', 'query']).default('header'),
  /** Header or query parameter name. */
  name: z.string().min(1).max(100),
  /** Written before the key, e.g. `Token ` (with its space). */
  prefix: z.string().max(40).default(''),
  credential: CredentialField.default('api_key'),
});

/** `bearer`: `Authorization: Bearer <token>`. Credential field `token` unless named. */
export const BearerAuth = z.strictObject({ type: z.literal('bearer'), credential: CredentialField.default('token') });

/** `basic`: `Authorization: Basic base64(username:password)` from the credential fields `username` and `password`. */
export const BasicAuth = z.strictObject({ type: z.literal('basic') });

/** `two_header`: two headers, each filled from a credential field (e.g. client id and secret). */
export const TwoHeaderAuth = z.strictObject({
  type: z.literal('two_header'),
  headers: z.tuple([
    z.strictObject({ name: HeaderName, credential: CredentialField }),
    z.strictObject({ name: HeaderName, credential: CredentialField }),
  ]),
});

/**
 * An absolute http(s) URL, or a path starting with `/` that is appended to
 * the provider's base URL for the environment being called. The relative
 * form lets one catalog entry serve a live and a test authorization server
 * (a sandbox under a path prefix included).
 */
export const ProviderUrl = z.union([
  z.url({ protocol: /^https?$/ }),
  z
    .string()
    .regex(/^\/(?!\/)[^\s?#]*$/, 'must be an http(s) URL or a path starting with "/"')
    .max(2000),
]);

/** `url` as called for an environment whose base URL is `baseUrl`: absolute URLs as they are, paths appended to the base URL's path. */
export function resolveProviderUrl(url: string, baseUrl: string): string {
  if (!url.startsWith('/')) return url;
  return `${baseUrl.replace(/\/+$/, '')}${url}`;
}

/**
 * `oauth2`: an access token from `token_url`, sent as a bearer token. Client
 * credentials use the credential fields `client_id` and `client_secret`; the
 * authorization code grant adds a `refresh_token` obtained when connecting.
 */
export const OAuth2Auth = z.strictObject({
  type: z.literal('oauth2'),
  grant: z.enum(['client_credentials', 'authorization_code']),
  /** Absolute, or a path (`/oauth/token`) under the base URL of the call's environment: see {@link resolveProviderUrl}. */
  token_url: ProviderUrl,
  authorize_url: ProviderUrl.optional(),
  scopes: z.array(z.string().min(1).max(200)).max(50).default([]),
  /** How the client authenticates at the token endpoint (RFC 6749 §2.3.1). */
  client_auth: z.enum(['client_secret_basic', 'client_secret_post']).default('client_secret_basic'),
});

/**
 * `hmac`: a signature header over a canonical string. `signed` lists the
 * parts joined with `\n`: `timestamp`, `method`, `path` (with query) and
 * `body`. The key is the credential field `secret`; `key_id` (optional)
 * goes in `key_header` when set.
 */
export const HmacAuth = z.strictObject({
  type: z.literal('hmac'),
  algorithm: z.enum(['sha256', 'sha512']).default('sha256'),
  header: HeaderName,
  encoding: z.enum(['hex', 'base64']).default('hex'),
  signed: z
    .array(z.enum(['timestamp', 'method', 'path', 'body']))
    .min(1)
    .default(['timestamp', 'method', 'path', 'body']),
  timestamp_header: HeaderName.optional(),
  key_header: HeaderName.optional(),
});

/**
 * `jwt`: a short-lived token signed by Rota with the connection's key
 * (credential field `secret` for HMAC algorithms, `private_key` PEM for RSA and EC ones), sent as
 * a bearer token.
 */
export const JwtAuth = z.strictObject({
  type: z.literal('jwt'),
  algorithm: z.enum(['HS256', 'HS512', 'RS256', 'ES256']),
  /** Fixed claims; `iat`, `exp` and `jti` are added per token. */
  claims: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  lifetime_s: z.number().int().min(10).max(3600).default(300),
});

/** `certificate`: mutual TLS with the connection's `certificate` and `private_key` (PEM), optional `ca`. */
export const CertificateAuth = z.strictObject({ type: z.literal('certificate') });

/** `none`: nothing to inject. */
export const NoAuth = z.strictObject({ type: z.literal('none') });

/** Where a provider's credentials go. */
export const ProviderAuth = z.discriminatedUnion('type', [
  ApiKeyAuth,
  BearerAuth,
  BasicAuth,
  TwoHeaderAuth,
  OAuth2Auth,
  HmacAuth,
  JwtAuth,
  CertificateAuth,
  NoAuth,
]);
export type ProviderAuth = z.infer<typeof ProviderAuth>;
export type ProviderAuthType = ProviderAuth['type'];

/**
 * How to ask a provider what became of a request sent with an idempotency
 * key: `endpoint_template` is a path under the environment's base URL with
 * an `{idempotency_key}` placeholder (in the path or the query), filled with
 * the key Rota sent. A 2xx answer is the resource that request made; a 404
 * means the provider holds nothing under that key. The reconcile sweep asks
 * this before it gives a call left `pending` up as `outcome_unknown`.
 */
export const IdempotencyLookup = z.strictObject({
  method: z.literal('GET').default('GET'),
  endpoint_template: z
    .string()
    .max(2000)
    .regex(/^\/(?!\/)[^\s#]*$/, 'must be a path starting with "/"')
    .refine((t) => t.includes('{idempotency_key}'), 'must contain the {idempotency_key} placeholder'),
});
export type IdempotencyLookup = z.infer<typeof IdempotencyLookup>;

/** A provider's HTTP facts beyond its base URLs. */
export const ProviderHttp = z.strictObject({
  auth: ProviderAuth,
  /** The header the provider reads an idempotency key from, when it has one. */
  idempotency_header: HeaderName.optional(),
  /** Where the provider answers "what did the request with this key make?", when it can. */
  lookup_by_idempotency_key: IdempotencyLookup.optional(),
});
export type ProviderHttp = z.infer<typeof ProviderHttp>;

/**
 * Which tool inputs go where. Inputs named in `endpoint_template`'s
 * `{placeholders}` fill the path; `query` and `headers` name inputs sent
 * there (`headers` maps an input to a header name); `body` is `rest` (every
 * input not used elsewhere, the default for methods with a body), `none`, or
 * the list of inputs to send.
 */
export const ToolParameterMap = z.strictObject({
  query: z.array(z.string().min(1).max(100)).max(100).default([]),
  headers: z.record(z.string().min(1).max(100), HeaderName).default({}),
  body: z.union([z.enum(['rest', 'none']), z.array(z.string().min(1).max(100)).max(200)]).default('rest'),
});
export type ToolParameterMap = z.infer<typeof ToolParameterMap>;
