import { ProviderAuth } from '@rota/contracts';
import { checkCredentials, connectMethod, credentialFields } from './fields';

const auth = (a: unknown) => ProviderAuth.parse(a);

describe('what connecting a provider takes', () => {
  it('sends OAuth2 providers with an authorization page through it, and the rest through fields', () => {
    expect(
      connectMethod(
        auth({
          type: 'oauth2',
          grant: 'client_credentials',
          token_url: '/oauth/token',
          authorize_url: '/oauth/authorize',
        }),
      ),
    ).toBe('authorization');
    expect(connectMethod(auth({ type: 'oauth2', grant: 'client_credentials', token_url: '/oauth/token' }))).toBe(
      'credentials',
    );
    expect(connectMethod(auth({ type: 'api_key', name: 'access_token' }))).toBe('credentials');
    expect(connectMethod(auth({ type: 'none' }))).toBe('none');
  });

  it('names the fields the adapter reads, per auth type', () => {
    const names = (a: unknown) => credentialFields(auth(a)).map((f) => `${f.name}${f.required ? '' : '?'}`);
    expect(names({ type: 'api_key', name: 'access_token' })).toEqual(['api_key']);
    expect(names({ type: 'api_key', name: 'x-key', credential: 'key' })).toEqual(['key']);
    expect(names({ type: 'bearer' })).toEqual(['token']);
    expect(names({ type: 'basic' })).toEqual(['username', 'password']);
    expect(
      names({
        type: 'two_header',
        headers: [
          { name: 'A', credential: 'id' },
          { name: 'B', credential: 'secret' },
        ],
      }),
    ).toEqual(['id', 'secret']);
    expect(names({ type: 'oauth2', grant: 'authorization_code', token_url: '/t' })).toEqual([
      'client_id',
      'client_secret',
      'refresh_token',
    ]);
    expect(names({ type: 'hmac', header: 'X-Signature', key_header: 'X-Api-Key' })).toEqual(['secret', 'key_id']);
    expect(names({ type: 'jwt', algorithm: 'RS256' })).toEqual(['private_key']);
    expect(names({ type: 'certificate' })).toEqual(['certificate', 'private_key', 'ca?']);
  });

  it('takes exactly the named fields, as strings, and says which ones are wrong without repeating values', () => {
    const fields = credentialFields(auth({ type: 'basic' }));
    expect(checkCredentials(fields, { username: 'u', password: '' })).toEqual({
      ok: true,
      value: { username: 'u', password: '' },
    });
    const bad = checkCredentials(fields, { password: 7, extra: 'sk_live_secret' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.issues.map((i) => i.path.join('.'))).toEqual([
        'credentials.username',
        'credentials.password',
        'credentials.extra',
      ]);
      expect(JSON.stringify(bad.issues)).not.toContain('sk_live_secret');
    }
    expect(checkCredentials(fields, undefined).ok).toBe(false);
    expect(checkCredentials(fields, ['u', 'p']).ok).toBe(false);
  });
});
