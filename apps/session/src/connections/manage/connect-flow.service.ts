import {
  AppError,
  CONNECT_CONTEXT_TTL_SECONDS,
  resolveProviderUrl,
  type ConnectionCredentials,
  type Environment,
  type ExecuteFailureCode,
  type ManageConnectFinishData,
  type ManageConnectStartData,
  type OAuthCallbackCommand,
  type OAuthCallbackOutcome,
  type ProviderAuth,
  type Tenant,
} from '@rota/contracts';
import type { ProviderForCall } from '@rota/catalog/repository';
import { newId } from '@rota/db';
import { currentPublicUrl } from '@rota/service-kit';
import { ProviderError, type CallResult, type OAuth2TokenCache } from '@rota/providers';
import type { Keyring } from '../../credentials/keyring';
import type { ProviderClients } from '../clients';
import type { ConnectionsRepository } from '../connections.repository';
import { connectionView, type ConnectionsService } from '../connections.service';
import { checkCredentials, connectMethod, credentialFields } from './fields';
import type { FlowRow, ManageRepository } from './manage.repository';
import {
  hashNonce,
  newNonce,
  pkcePair,
  signState,
  stateTenant,
  STATE_KEY_PURPOSE,
  verifyState,
  type StatePayload,
} from './state';

/** The callback route, under the gateway's public address. */
export const OAUTH_CALLBACK_PATH = '/v1/connections/oauth/callback';

/** An OAuth client registered with a provider. */
export interface OAuthClient {
  client_id: string;
  client_secret: string;
}

export interface ConnectFlowOptions {
  /**
   * Where browsers reach the gateway, without a trailing slash, when the
   * request did not come through a gateway that said so (`ROTA_PUBLIC_URL`).
   * A request from the gateway carries its own public base URL, which wins.
   */
  publicUrl?: string;
  /** The deployment's own OAuth clients, per environment and provider. */
  oauthClients: Partial<Record<Environment, Record<string, OAuthClient>>>;
  now?: () => Date;
}

/** A refusal of a manage action: a `success: false` result. `record: false` writes no call row (nothing happened). */
export interface ManageRefusal {
  ok: false;
  code: ExecuteFailureCode;
  message: string;
  details?: Record<string, unknown>;
  record: boolean;
}

export const refuse = (
  code: ExecuteFailureCode,
  message: string,
  details?: Record<string, unknown>,
  record = true,
): ManageRefusal => ({
  ok: false,
  code,
  message,
  ...(details ? { details } : {}),
  record,
});

/** Largest token endpoint answer parsed. */
const MAX_TOKEN_BODY = 64 * 1024;

/**
 * The id provider calls cache a connection's OAuth2 access token under
 * (see ProviderCallsService.send): one per environment and provider.
 */
export function tokenConnectionId(environment: Environment, serverId: string): string {
  return `${environment}:${serverId}`;
}

const flowAad = (id: string) => `rota/connect-flow/${id}`;

/** RFC 6749 error codes are repeated; anything else a provider writes is not. */
function providerErrorCode(v: unknown): string {
  return typeof v === 'string' && /^[a-z_]{1,64}$/.test(v) ? v : 'unspecified';
}

/**
 * Connect flows: `connect_start` makes a connect context, `connect_finish`
 * completes it with credentials (key-based providers) or reports how the
 * authorization went, and the OAuth2 callback completes an authorization:
 * it verifies the signed state, spends the flow once, exchanges the code
 * with the PKCE verifier, and stores the tokens as the connection's
 * credentials through ConnectionsService, like `POST /v1/connections`.
 */
export class ConnectFlowService {
  private readonly now: () => Date;

  constructor(
    private readonly repo: ManageRepository,
    private readonly connections: ConnectionsService,
    private readonly connectionRows: ConnectionsRepository,
    private readonly keyring: Keyring,
    private readonly clients: ProviderClients,
    private readonly tokens: OAuth2TokenCache,
    private readonly options: ConnectFlowOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  get redirectUri(): string {
    const base = currentPublicUrl()?.replace(/\/+$/, '') ?? this.options.publicUrl;
    if (!base)
      throw new AppError(
        'unavailable',
        'The redirect URI is unknown: set ROTA_PUBLIC_URL to the address browsers reach the gateway at.',
      );
    return `${base}${OAUTH_CALLBACK_PATH}`;
  }

  async start(a: {
    tenant: Tenant;
    sessionId: string | null;
    provider: ProviderForCall;
    returnTo: string | null;
    client: OAuthClient | null;
  }): Promise<ManageConnectStartData | ManageRefusal> {
    const { tenant, provider } = a;
    const auth = provider.http!.auth;
    const method = connectMethod(auth);
    const base = { action: 'connect_start' as const, environment: tenant.environment, server_id: provider.id, method };
    if (method === 'none') {
      return {
        ...base,
        context_id: null,
        fields: [],
        expires_at: null,
        next_step: `${provider.id} needs no credentials: it can be called as it is.`,
      };
    }
    const baseUrl = provider.baseUrls[tenant.environment];
    if (!baseUrl) {
      return refuse(
        'provider_not_callable',
        `The catalog gives ${provider.id} no ${tenant.environment} base URL, so it cannot be connected there.`,
      );
    }
    const expiresAt = new Date(this.now().getTime() + CONNECT_CONTEXT_TTL_SECONDS * 1000);

    if (method === 'credentials') {
      const fields = credentialFields(auth);
      const id = await this.repo.createFlow({
        tenant,
        serverId: provider.id,
        method,
        sessionId: a.sessionId,
        stateNonceHash: null,
        secret: null,
        redirectUri: null,
        authorizationUrl: null,
        returnTo: a.returnTo,
        expiresAt,
      });
      return {
        ...base,
        context_id: id,
        fields,
        expires_at: expiresAt.toISOString(),
        next_step: `Ask the user for ${fields.map((f) => f.name).join(', ')} and call codespar_manage_connections action "connect_finish" with this context_id and them in "credentials". They are stored sealed and never shown again.`,
      };
    }

    // OAuth2 authorization code with PKCE.
    const oauth = auth as Extract<ProviderAuth, { type: 'oauth2' }>;
    const client = a.client ?? this.options.oauthClients[tenant.environment]?.[provider.id] ?? null;
    if (!client) {
      const message = `${provider.id} is connected through its authorization page with an OAuth client, and this deployment has none for it in ${tenant.environment}: send credentials {client_id, client_secret} of your application.`;
      return refuse('invalid_args', message, { issues: [{ path: ['credentials'], message, code: 'custom' }] }, false);
    }
    const id = newId('cfl');
    const nonce = newNonce();
    const pkce = pkcePair();
    const key = this.keyring.derive(STATE_KEY_PURPOSE);
    const payload: StatePayload = {
      v: 1,
      c: id,
      n: nonce,
      o: tenant.org_id,
      p: tenant.project_id,
      e: tenant.environment,
      s: provider.id,
      x: Math.floor(expiresAt.getTime() / 1000),
      k: key.keyId,
    };
    const url = new URL(resolveProviderUrl(oauth.authorize_url!, baseUrl));
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', this.redirectUri);
    if (oauth.scopes.length > 0) url.searchParams.set('scope', oauth.scopes.join(' '));
    url.searchParams.set('state', signState(payload, key.key));
    url.searchParams.set('code_challenge', pkce.challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    const secret = this.keyring.seal(
      Buffer.from(
        JSON.stringify({
          code_verifier: pkce.verifier,
          client_id: client.client_id,
          client_secret: client.client_secret,
        }),
        'utf8',
      ),
      flowAad(id),
    );
    await this.repo.createFlow({
      id,
      tenant,
      serverId: provider.id,
      method,
      sessionId: a.sessionId,
      stateNonceHash: hashNonce(nonce),
      secret,
      redirectUri: this.redirectUri,
      authorizationUrl: url.toString(),
      returnTo: a.returnTo,
      expiresAt,
    });
    return {
      ...base,
      context_id: id,
      authorization_url: url.toString(),
      redirect_uri: this.redirectUri,
      fields: [],
      expires_at: expiresAt.toISOString(),
      next_step: `Send the user to authorization_url to approve access to ${provider.id}. When they are back, call codespar_manage_connections action "connect_finish" with this context_id to confirm.`,
    };
  }

  async finish(a: {
    tenant: Tenant;
    contextId: string;
    credentials: unknown;
  }): Promise<ManageConnectFinishData | ManageRefusal> {
    const flow = await this.repo.flow(a.contextId, a.tenant);
    // Another tenant's flow reads exactly like one that never existed.
    if (!flow)
      return refuse(
        'connect_context_invalid',
        'No connect context with this id here. Start again with connect_start.',
        { context_id: a.contextId },
      );
    return flow.method === 'authorization'
      ? this.authorizationStatus(flow)
      : this.finishWithCredentials(flow, a.credentials);
  }

  private async authorizationStatus(flow: FlowRow): Promise<ManageConnectFinishData | ManageRefusal> {
    if (flow.status === 'connected') return this.finished(flow);
    if (flow.status === 'failed') {
      return refuse(
        'connect_failed',
        `The authorization did not complete (${flow.error ?? 'unspecified'}). Start again with connect_start.`,
        {
          context_id: flow.id,
          reason: flow.error,
        },
      );
    }
    if (flow.expired)
      return refuse(
        'connect_context_invalid',
        'This connect context expired before the user came back. Start again with connect_start.',
        {
          context_id: flow.id,
        },
      );
    return refuse(
      'connect_pending',
      flow.status === 'pending'
        ? 'The user has not come back from the authorization page yet. Send them to authorization_url, then call connect_finish again.'
        : 'The provider’s answer is being exchanged right now; call connect_finish again in a moment.',
      {
        context_id: flow.id,
        ...(flow.status === 'pending' && flow.authorizationUrl ? { authorization_url: flow.authorizationUrl } : {}),
      },
    );
  }

  private async finishWithCredentials(
    flow: FlowRow,
    credentials: unknown,
  ): Promise<ManageConnectFinishData | ManageRefusal> {
    if (flow.status !== 'pending' || flow.expired) {
      return refuse(
        'connect_context_invalid',
        'This connect context was already used or has expired. Start again with connect_start.',
        {
          context_id: flow.id,
        },
      );
    }
    const provider = await this.repo.provider(flow.serverId, flow.tenant.project_id);
    if (!provider?.http)
      return refuse('provider_not_callable', `The catalog no longer says how to call ${flow.serverId}.`);
    const checked = checkCredentials(credentialFields(provider.http.auth), credentials);
    if (!checked.ok)
      return refuse(
        'invalid_args',
        'The credentials do not match the fields this provider takes.',
        { issues: checked.issues },
        false,
      );
    // Spent once: a second connect_finish with the same context (or a concurrent one) gets nothing.
    const claimed = await this.repo.claim(flow.id, flow.tenant, null);
    if (!claimed)
      return refuse(
        'connect_context_invalid',
        'This connect context was already used or has expired. Start again with connect_start.',
        {
          context_id: flow.id,
        },
      );
    const row = await this.storeConnection(claimed, checked.value);
    return this.finished({ ...claimed, status: 'connected', connectionId: row.id });
  }

  private async finished(flow: FlowRow): Promise<ManageConnectFinishData | ManageRefusal> {
    const connections = await this.connectionRows.list(flow.tenant.project_id, flow.tenant.environment);
    const row =
      connections.find((c) => c.id === flow.connectionId) ?? connections.find((c) => c.serverId === flow.serverId);
    if (!row)
      return refuse(
        'connect_context_invalid',
        'The connection this context made has been deleted since. Start again with connect_start.',
        {
          context_id: flow.id,
        },
      );
    return {
      action: 'connect_finish',
      environment: flow.tenant.environment,
      server_id: flow.serverId,
      context_id: flow.id,
      status: 'connected',
      connection: connectionView(row),
    };
  }

  /** Stores the connection for a claimed flow and closes the flow; a failure closes it as failed. */
  private async storeConnection(flow: FlowRow, credentials: ConnectionCredentials) {
    try {
      const [providerRow] = await this.connectionRows.providers([flow.serverId], flow.tenant.project_id);
      if (!providerRow) throw new AppError('unknown_server', `No provider has the id "${flow.serverId}".`);
      const { row } = await this.connections.store(flow.tenant, providerRow, credentials);
      await this.repo.finish(flow.id, { status: 'connected', connectionId: row.id });
      return row;
    } catch (err) {
      await this.repo.finish(flow.id, { status: 'failed', error: 'internal' }).catch(() => undefined);
      throw err;
    }
  }

  /** `GET /v1/connections/oauth/callback`: the state authenticates the request; nothing else is trusted. */
  async callback(cmd: OAuthCallbackCommand): Promise<OAuthCallbackOutcome> {
    const checked = verifyState(
      cmd.state,
      (keyId) => (this.keyring.has(keyId) ? this.keyring.derive(STATE_KEY_PURPOSE, keyId).key : null),
      this.now().getTime() / 1000,
    );
    if (!checked.ok) {
      throw new AppError(
        'oauth_state_invalid',
        checked.reason === 'expired'
          ? 'This authorization link has expired; start the connection again.'
          : 'The state is not one this deployment issued.',
      );
    }
    const p = checked.payload;
    const tenant = stateTenant(p);
    const flow = await this.repo.claim(p.c, tenant, hashNonce(p.n));
    if (!flow || flow.method !== 'authorization' || flow.serverId !== p.s || !flow.secret) {
      throw new AppError(
        'oauth_state_invalid',
        'This authorization was already completed, has expired, or was never started here.',
      );
    }
    const outcome = (
      status: 'connected' | 'failed',
      message: string,
      error?: OAuthCallbackOutcome['error'],
    ): OAuthCallbackOutcome => ({
      status,
      server_id: flow.serverId,
      environment: tenant.environment,
      context_id: flow.id,
      return_to: flow.returnTo,
      ...(error ? { error } : {}),
      message,
    });
    const fail = async (error: NonNullable<OAuthCallbackOutcome['error']>, reason: string, message: string) => {
      await this.repo.finish(flow.id, { status: 'failed', error: reason });
      return outcome('failed', message, error);
    };

    if (cmd.error !== undefined || cmd.code === undefined) {
      const reason = cmd.error !== undefined ? providerErrorCode(cmd.error) : 'no_code';
      return fail(
        'oauth_authorization_failed',
        reason,
        `${flow.serverId} did not authorize the connection (${reason}). Nothing was stored.`,
      );
    }

    let secret: { code_verifier: string; client_id: string; client_secret: string };
    let exchanged: Awaited<ReturnType<ConnectFlowService['exchange']>>;
    try {
      secret = JSON.parse(
        this.keyring.open(flow.secret.ciphertext, flow.secret.keyId, flowAad(flow.id)).toString('utf8'),
      ) as typeof secret;
      exchanged = await this.exchange(flow, secret, cmd.code);
    } catch (err) {
      await this.repo.finish(flow.id, { status: 'failed', error: 'internal' }).catch(() => undefined);
      throw err;
    }
    if (exchanged.kind === 'refused') {
      return fail(
        'oauth_authorization_failed',
        exchanged.error,
        `${flow.serverId} refused the authorization code (${exchanged.error}). Nothing was stored.`,
      );
    }
    if (exchanged.kind === 'failed') {
      return fail(
        'oauth_exchange_failed',
        exchanged.reason,
        `${flow.serverId}'s token endpoint gave no usable token (${exchanged.reason}). Nothing was stored.`,
      );
    }

    // The tokens become the connection's credentials, sealed like any others.
    const credentials: ConnectionCredentials = {
      client_id: secret.client_id,
      client_secret: secret.client_secret,
      ...(exchanged.refreshToken ? { refresh_token: exchanged.refreshToken } : {}),
    };
    await this.storeConnection(flow, credentials);
    // The fresh access token serves the first calls, so they need no token
    // request of their own. Should Redis refuse it, the first call asks the
    // token endpoint itself: the connection is stored either way.
    await this.tokens
      .store(
        { tenant, providerId: flow.serverId, connectionId: tokenConnectionId(tenant.environment, flow.serverId) },
        exchanged.accessToken,
        exchanged.expiresIn,
      )
      .catch(() => undefined);
    return outcome(
      'connected',
      `${flow.serverId} is connected in the ${tenant.environment} environment. You can close this window.`,
    );
  }

  /** The authorization code grant with the PKCE verifier, through the provider's address-checked client. */
  private async exchange(
    flow: FlowRow,
    secret: { code_verifier: string; client_id: string; client_secret: string },
    code: string,
  ): Promise<
    | { kind: 'tokens'; accessToken: string; refreshToken?: string; expiresIn: number }
    | { kind: 'refused'; error: string }
    | { kind: 'failed'; reason: string }
  > {
    const provider = await this.repo.provider(flow.serverId, flow.tenant.project_id);
    const auth = provider?.http?.auth;
    const baseUrl = provider?.baseUrls[flow.tenant.environment];
    if (!auth || auth.type !== 'oauth2' || !baseUrl) return { kind: 'failed', reason: 'provider_not_callable' };
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: flow.redirectUri ?? this.redirectUri,
      code_verifier: secret.code_verifier,
    });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (auth.client_auth === 'client_secret_post') {
      form.set('client_id', secret.client_id);
      form.set('client_secret', secret.client_secret);
    } else {
      // RFC 6749 §2.3.1: both halves are form-encoded before they are joined.
      const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
      headers.authorization = `Basic ${Buffer.from(`${enc(secret.client_id)}:${enc(secret.client_secret)}`).toString('base64')}`;
    }
    const client = flow.tenant.environment === 'test' ? this.clients.test : this.clients.live;
    let result: CallResult;
    try {
      result = await client.call({
        providerId: flow.serverId,
        providerOwner: provider.owner,
        request: { url: resolveProviderUrl(auth.token_url, baseUrl), method: 'POST', headers, body: form.toString() },
        // The request carries its own client authentication; nothing is injected.
        auth: { type: 'none' },
        credentials: {},
        tenant: flow.tenant,
        connectionId: tokenConnectionId(flow.tenant.environment, flow.serverId),
      });
    } catch (err) {
      // The client throws only before anything is sent.
      if (err instanceof ProviderError) return { kind: 'failed', reason: 'not_sent' };
      throw err;
    }
    if (result.kind !== 'response') return { kind: 'failed', reason: result.reason };
    if (result.bytesIn > MAX_TOKEN_BODY) return { kind: 'failed', reason: 'response_too_large' };
    const body = (result.body !== null && typeof result.body === 'object' ? result.body : {}) as Record<
      string,
      unknown
    >;
    if (result.status === 400 || result.status === 401 || result.status === 403)
      return { kind: 'refused', error: providerErrorCode(body.error) };
    const tokenType = body.token_type;
    if (
      result.status < 200 ||
      result.status >= 300 ||
      typeof body.access_token !== 'string' ||
      !body.access_token ||
      (typeof tokenType === 'string' && tokenType.toLowerCase() !== 'bearer')
    ) {
      return { kind: 'failed', reason: `status_${result.status}` };
    }
    const expiresIn = Number(body.expires_in);
    return {
      kind: 'tokens',
      accessToken: body.access_token,
      ...(typeof body.refresh_token === 'string' && body.refresh_token ? { refreshToken: body.refresh_token } : {}),
      expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 300,
    };
  }
}
