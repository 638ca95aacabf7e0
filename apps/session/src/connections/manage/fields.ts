import { ConnectionCredentials, type ConnectField, type ConnectMethod, type ProviderAuth } from '@rota/contracts';

/**
 * What connecting a provider takes, read from how the catalog says it is
 * called (`http.auth`). Pure: the catalog entry is the whole input.
 */

/** `authorization` when the provider has an authorization page, `none` when it needs nothing, else `credentials`. */
export function connectMethod(auth: ProviderAuth): ConnectMethod {
  if (auth.type === 'none') return 'none';
  if (auth.type === 'oauth2' && auth.authorize_url) return 'authorization';
  return 'credentials';
}

const field = (name: string, description: string, required = true): ConnectField => ({ name, description, required });

/** The credential fields a key-based provider needs, named as the adapter reads them (see catalog format v2). */
export function credentialFields(auth: ProviderAuth): ConnectField[] {
  switch (auth.type) {
    case 'none':
      return [];
    case 'api_key':
      return [
        field(
          auth.credential,
          `The API key, sent in the ${auth.in === 'header' ? 'header' : 'query parameter'} ${auth.name}.`,
        ),
      ];
    case 'bearer':
      return [field(auth.credential, 'The access token, sent as a bearer token.')];
    case 'basic':
      return [
        field('username', 'The user name of HTTP basic authentication.'),
        field('password', 'The password of HTTP basic authentication (may be empty).'),
      ];
    case 'two_header':
      return auth.headers.map((h) => field(h.credential, `Sent in the header ${h.name}.`));
    case 'oauth2':
      return [
        field('client_id', 'The OAuth client id of your application at the provider.'),
        field('client_secret', 'The OAuth client secret of that application.'),
        ...(auth.grant === 'authorization_code'
          ? [field('refresh_token', 'A refresh token the provider issued to that application.')]
          : []),
      ];
    case 'hmac':
      return [
        field('secret', 'The key requests are signed with.'),
        ...(auth.key_header ? [field('key_id', `The key id, sent in the header ${auth.key_header}.`)] : []),
      ];
    case 'jwt':
      return auth.algorithm.startsWith('HS')
        ? [field('secret', `The shared secret ${auth.algorithm} tokens are signed with.`)]
        : [field('private_key', `The PEM private key ${auth.algorithm} tokens are signed with.`)];
    case 'certificate':
      return [
        field('certificate', 'The client certificate (PEM).'),
        field('private_key', 'Its private key (PEM).'),
        field(
          'ca',
          'The CA chain the provider’s server certificate is checked against (PEM), when it is not a public one.',
          false,
        ),
      ];
  }
}

export type CredentialsCheck =
  | { ok: true; value: ConnectionCredentials }
  | { ok: false; issues: Array<{ path: Array<string | number>; message: string }> };

/**
 * The credentials `connect_finish` received, held to the fields the connect
 * context named: every required one present, nothing else, strings only.
 * Issues name fields, never values.
 */
export function checkCredentials(fields: readonly ConnectField[], given: unknown): CredentialsCheck {
  if (given === undefined || given === null || typeof given !== 'object' || Array.isArray(given)) {
    return {
      ok: false,
      issues: [{ path: ['credentials'], message: `send credentials with ${fields.map((f) => f.name).join(', ')}` }],
    };
  }
  const issues: Array<{ path: Array<string | number>; message: string }> = [];
  const known = new Set(fields.map((f) => f.name));
  const values = given as Record<string, unknown>;
  for (const f of fields) {
    const v = values[f.name];
    // A basic-auth password may be empty; every other required field needs a value.
    const empty = v === undefined || (v === '' && f.name !== 'password');
    if (f.required && empty) issues.push({ path: ['credentials', f.name], message: 'is required' });
    else if (v !== undefined && typeof v !== 'string')
      issues.push({ path: ['credentials', f.name], message: 'must be a string' });
  }
  for (const name of Object.keys(values))
    if (!known.has(name)) issues.push({ path: ['credentials', name], message: 'is not a field this provider takes' });
  if (issues.length > 0) return { ok: false, issues };
  const parsed = ConnectionCredentials.safeParse(
    Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)),
  );
  if (!parsed.success)
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => ({ path: ['credentials', ...i.path.map(String)], message: i.message })),
    };
  return { ok: true, value: parsed.data };
}
