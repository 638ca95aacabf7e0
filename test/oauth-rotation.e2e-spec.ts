import { DEFAULT_CONFIG, startSandbox, type AuthConfig, type Sandbox } from '../apps/sandbox/src';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(120_000);

const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;
const CLIENT = { client_id: 'sandbox-me-client', client_secret: 'sandbox-me-secret' };
const REDIRECT = 'https://shop.example.test/melhorenvio/callback';

/**
 * An authorization-code connection whose provider rotates refresh tokens
 * (the sandbox's Melhor Envio: a used refresh token is dead). The sandbox
 * issues access tokens that live 30 s, inside the adapter's 60 s refresh
 * margin, so every call refreshes: each refresh must spend the refresh
 * token the previous one was given, which Rota must have sealed back into
 * the connection.
 */
describe('OAuth2 refresh token rotation', () => {
  let sandbox: Sandbox;
  let stack: Stack;
  let key: string;
  let session: string;
  const bodies: string[] = [];

  const api = async (method: string, path: string, json?: unknown) => {
    const r = await http(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${key}` }, json });
    bodies.push(r.text);
    return r;
  };
  const tokenRequests = () => sandbox.control.counters().token_requests.melhorenvio ?? 0;
  const sealed = async () =>
    Buffer.from(
      (await stack.db.prisma.connection.findFirstOrThrow({ where: { serverId: 'melhorenvio', environment: 'test' } }))
        .credentialsCiphertext!,
    );

  /** The user's consent, done directly at the sandbox: the authorization code exchanged for a first refresh token. */
  const firstRefreshToken = async (): Promise<string> => {
    const authorize = new URL(`${sandbox.url}/melhorenvio/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: CLIENT.client_id,
      redirect_uri: REDIRECT,
      state: 's',
    }).toString();
    const consent = await fetch(authorize, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
    const token = await fetch(`${sandbox.url}/melhorenvio/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        ...CLIENT,
      }).toString(),
    });
    expect(token.status).toBe(200);
    const body = (await token.json()) as { refresh_token: string };
    expect(body.refresh_token).toMatch(/^sbx_rt_/);
    return body.refresh_token;
  };

  beforeAll(async () => {
    const me = DEFAULT_CONFIG.providers.melhorenvio!;
    sandbox = await startSandbox({
      port: 0,
      config: {
        providers: {
          melhorenvio: {
            ...me,
            auth: { ...(me.auth as Extract<AuthConfig, { type: 'oauth2' }>), token_ttl_seconds: 30 },
          },
        },
      },
    });
    stack = await startStack({
      demoCatalog: true,
      env: {
        ROTA_SANDBOX_URL: sandbox.url,
        ROTA_PROVIDER_TIMEOUT_MS: '1500',
        ROTA_RPC_TIMEOUT_MS: '8000',
        ROTA_LOCAL_EMBEDDER: 'hash',
      },
    });
    key = (await stack.key([...SCOPES], { environment: 'test' })).key;
    const s = await api('POST', '/v1/sessions', { servers: ['melhorenvio'] });
    expect(s.status).toBe(201);
    session = s.json.id;
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
  });

  it('stores each rotated refresh token, sealed, so consecutive refreshes all succeed', async () => {
    const first = await firstRefreshToken();
    const c = await api('POST', '/v1/connections', {
      server_id: 'melhorenvio',
      credentials: { ...CLIENT, refresh_token: first },
    });
    expect(c.status).toBe(201);

    let before = await sealed();
    for (let i = 0; i < 3; i++) {
      const requests = tokenRequests();
      const r = await api('POST', `/v1/sessions/${session}/proxy`, {
        server: 'melhorenvio',
        endpoint: '/api/v2/me/orders/search',
        method: 'GET',
        params: { q: 'ORD-1' },
      });
      expect({ i, status: r.status, upstream: r.json?.status, error: r.json?.error }).toEqual({
        i,
        status: 200,
        upstream: 200,
        error: undefined,
      });
      // One refresh per call (the token is always inside the refresh margin), each one accepted.
      expect(tokenRequests()).toBe(requests + 1);
      const after = await sealed();
      expect(Buffer.compare(after, before)).not.toBe(0);
      before = after;
    }

    // The first refresh token was spent by the first refresh; the sandbox no longer takes it.
    const spent = await fetch(`${sandbox.url}/melhorenvio/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first, ...CLIENT }).toString(),
    });
    expect(spent.status).toBe(400);
    // Sealed at rest, never shown: neither the token nor any issued one is in the row or an answer.
    expect(before.toString('latin1')).not.toContain('sbx_rt_');
    for (const b of bodies) expect(b).not.toMatch(/sbx_(rt|at)_/);
  });

  it('a connection saved again starts over from its new refresh token and keeps rotating', async () => {
    const replaced = await firstRefreshToken();
    await api('POST', '/v1/connections', {
      server_id: 'melhorenvio',
      credentials: { ...CLIENT, refresh_token: replaced },
    });
    const r = await api('POST', `/v1/sessions/${session}/proxy`, {
      server: 'melhorenvio',
      endpoint: '/api/v2/me/orders/search',
      method: 'GET',
      params: { q: 'ORD-1' },
    });
    expect({ status: r.status, upstream: r.json?.status }).toEqual({ status: 200, upstream: 200 });
    const again = await api('POST', `/v1/sessions/${session}/proxy`, {
      server: 'melhorenvio',
      endpoint: '/api/v2/me/orders/search',
      method: 'GET',
      params: { q: 'ORD-1' },
    });
    expect({ status: again.status, upstream: again.json?.status }).toEqual({ status: 200, upstream: 200 });
  });
});
