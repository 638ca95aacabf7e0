import {
  ConnectionCredentials,
  SHOPPER_PROFILE_MAX_BYTES,
  type Environment,
  type ManageConnectionsData,
  type ManageInitiateData,
  type ShopperProfileData,
  type Tenant,
} from '@rota/contracts';
import { providerConnection, type ProviderState } from '../provider-state';
import { REDACTED, SECRET_FIELD } from '../../calls/redact';
import type { ConnectionsRepository } from '../connections.repository';
import { connectionStatus } from '../connections.service';
import { refuse, type ConnectFlowService, type ManageRefusal, type OAuthClient } from './connect-flow.service';
import { connectMethod, credentialFields } from './fields';
import type { ManageRepository } from './manage.repository';

/** Where a `codespar_manage_connections` call runs: the tenant, the session (if any) and the providers callable there. */
export interface ManageContext {
  tenant: Tenant;
  sessionId: string | null;
  servers: readonly string[];
}

/** The call's result; `record: false` writes no call row (an argument refusal that did nothing). */
export interface ManageOutcome {
  success: boolean;
  data: unknown;
  error: string | null;
  record: boolean;
}

const CONSUMER_ID = /^[\x21-\x7e](?:[\x20-\x7e]{0,198}[\x21-\x7e])?$/;

/**
 * The recorded form of a call's input: each credential field's value is
 * replaced, so the call row shows which fields were sent and never what.
 * Applied to the very object execute records.
 */
export function redactCredentialsInPlace(input: Record<string, unknown>): void {
  const c = input.credentials;
  if (c === undefined) return;
  input.credentials =
    c !== null && typeof c === 'object' && !Array.isArray(c)
      ? Object.fromEntries(Object.keys(c as object).map((k) => [k, REDACTED]))
      : REDACTED;
}

type Issue = { path: Array<string | number>; message: string; code: 'custom' };
const issue = (path: Array<string | number>, message: string): Issue => ({ path, message, code: 'custom' });

/** Names of profile fields that look like secrets (cards, passwords, tokens), at any depth. */
function secretPaths(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((v, i) => secretPaths(v, [...path, i]));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    SECRET_FIELD.test(k) ? [[...path, k]] : secretPaths(v, [...path, k]),
  );
}

/** An absolute http(s) URL without user information, or the reason it is not one. */
function returnToProblem(value: string): string | null {
  if (value.length > 2000) return 'must be at most 2000 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an absolute http(s) URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  return null;
}

/**
 * `codespar_manage_connections`, every action:
 * - `list`, `status`: connection state of the project's and the context's providers;
 * - `initiate`: what connecting one provider takes (starts nothing);
 * - `connect_start`, `connect_finish`: the connect flows (ConnectFlowService);
 * - `save_profile`, `get_profile`: a shopper profile per `consumer_id` in the tenant's project and environment.
 */
export class ManageConnectionsService {
  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly repo: ManageRepository,
    private readonly flows: ConnectFlowService,
  ) {}

  async run(input: Record<string, unknown>, ctx: ManageContext): Promise<ManageOutcome> {
    const action = typeof input.action === 'string' ? input.action : 'list';
    const result = await this.dispatch(action, input, ctx);
    if ('ok' in result) {
      return {
        success: false,
        data: { code: result.code, message: result.message, ...(result.details ?? {}) },
        error: result.message,
        record: result.record,
      };
    }
    return { success: true, data: result, error: null, record: true };
  }

  private dispatch(
    action: string,
    input: Record<string, unknown>,
    ctx: ManageContext,
  ): Promise<object | ManageRefusal> {
    switch (action) {
      case 'status':
      case 'list':
        return this.listOrStatus(action, input, ctx);
      case 'initiate':
        return this.initiate(input, ctx);
      case 'connect_start':
        return this.connectStart(input, ctx);
      case 'connect_finish':
        return this.connectFinish(input, ctx);
      case 'save_profile':
        return this.saveProfile(input, ctx);
      case 'get_profile':
        return this.getProfile(input, ctx);
      default:
        // The published enum already refused anything else.
        return Promise.resolve(
          refuse(
            'invalid_args',
            `Unknown action "${action}".`,
            { issues: [issue(['action'], 'is not an action of this tool')] },
            false,
          ),
        );
    }
  }

  private async listOrStatus(
    action: 'list' | 'status',
    input: Record<string, unknown>,
    ctx: ManageContext,
  ): Promise<ManageConnectionsData | ManageRefusal> {
    // Only the key's own environment gets this far (execute refuses the other one).
    const environment = ctx.tenant.environment;
    const serverId = typeof input.server_id === 'string' ? input.server_id : undefined;
    let providers: ProviderState[];
    if (action === 'status' && serverId) {
      providers = await this.providerStates(ctx.tenant, [serverId]);
      if (providers.length === 0)
        return refuse('unknown_server', `No provider has the id "${serverId}".`, { server_id: serverId });
    } else if (action === 'status') {
      providers = await this.providerStates(ctx.tenant, ctx.servers);
    } else {
      const [connected, named] = await Promise.all([
        this.providerStates(ctx.tenant, null),
        this.providerStates(ctx.tenant, ctx.servers),
      ]);
      const byId = new Map([...connected, ...named].map((p) => [p.id, p]));
      providers = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
    }
    return { action, environment, connections: providers.map(providerConnection) };
  }

  private async providerStates(tenant: Tenant, ids: readonly string[] | null): Promise<ProviderState[]> {
    const rows = await this.connections.providerStates(tenant.project_id, tenant.environment, ids);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      category: r.category,
      authType: r.authType,
      status: connectionStatus(r.authType, r.connectedAt !== null),
      connectedAt: r.connectedAt,
    }));
  }

  /** The provider `server_id` names, callable by the catalog, or why not. */
  private async provider(input: Record<string, unknown>, ctx: ManageContext) {
    const serverId = typeof input.server_id === 'string' ? input.server_id : '';
    if (!serverId)
      return refuse(
        'invalid_args',
        'server_id is required for this action.',
        { issues: [issue(['server_id'], 'is required')] },
        false,
      );
    const provider = await this.repo.provider(serverId, ctx.tenant.project_id);
    if (!provider) return refuse('unknown_server', `No provider has the id "${serverId}".`, { server_id: serverId });
    if (!provider.http) {
      return refuse(
        'provider_not_callable',
        `The catalog does not say how ${serverId} authenticates, so it cannot be connected from here; store its credentials with POST /v1/connections.`,
        { server_id: serverId },
      );
    }
    return provider;
  }

  private async initiate(
    input: Record<string, unknown>,
    ctx: ManageContext,
  ): Promise<ManageInitiateData | ManageRefusal> {
    const provider = await this.provider(input, ctx);
    if ('ok' in provider) return provider;
    const auth = provider.http!.auth;
    const method = connectMethod(auth);
    const [state] = await this.providerStates(ctx.tenant, [provider.id]);
    const status = connectionStatus(provider.authType, state?.connectedAt != null);
    const again =
      status === 'connected' ? ' It is connected already; connecting again replaces the stored credentials.' : '';
    const next: Record<typeof method, string> = {
      none: `${provider.id} needs no credentials: it can be called as it is.`,
      authorization: `Call codespar_manage_connections action "connect_start" with server_id "${provider.id}" to get the page where the user approves access.${again}`,
      credentials: `Call codespar_manage_connections action "connect_start" with server_id "${provider.id}", then "connect_finish" with the fields listed here.${again}`,
    };
    return {
      action: 'initiate',
      environment: ctx.tenant.environment,
      server_id: provider.id,
      name: state?.name ?? provider.id,
      auth_type: provider.authType,
      status,
      method,
      fields: method === 'credentials' ? credentialFields(auth) : [],
      next_step: next[method],
    };
  }

  private async connectStart(input: Record<string, unknown>, ctx: ManageContext) {
    const returnTo = typeof input.return_to === 'string' ? input.return_to : null;
    const problem = returnTo === null ? null : returnToProblem(returnTo);
    if (problem)
      return refuse('invalid_args', `return_to ${problem}.`, { issues: [issue(['return_to'], problem)] }, false);
    let client: OAuthClient | null = null;
    if (input.credentials !== undefined) {
      const c = ConnectionCredentials.safeParse(input.credentials);
      const keys = c.success ? Object.keys(c.data).sort() : [];
      if (!c.success || keys.join(',') !== 'client_id,client_secret') {
        const message =
          'with connect_start, credentials holds only the OAuth client of your application: client_id and client_secret, both strings';
        return refuse('invalid_args', message, { issues: [issue(['credentials'], message)] }, false);
      }
      client = { client_id: c.data.client_id!, client_secret: c.data.client_secret! };
    }
    const provider = await this.provider(input, ctx);
    if ('ok' in provider) return provider;
    return this.flows.start({ tenant: ctx.tenant, sessionId: ctx.sessionId, provider, returnTo, client });
  }

  private async connectFinish(input: Record<string, unknown>, ctx: ManageContext) {
    const contextId = typeof input.context_id === 'string' ? input.context_id : '';
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(contextId)) {
      return refuse(
        'invalid_args',
        'context_id is required: the one connect_start returned.',
        { issues: [issue(['context_id'], 'is required')] },
        false,
      );
    }
    return this.flows.finish({ tenant: ctx.tenant, contextId, credentials: input.credentials });
  }

  private consumerId(input: Record<string, unknown>): string | ManageRefusal {
    const id = input.consumer_id;
    if (typeof id === 'string' && CONSUMER_ID.test(id)) return id;
    const message = 'consumer_id is required: 1 to 200 printable characters naming the shopper';
    return refuse('invalid_args', message, { issues: [issue(['consumer_id'], message)] }, false);
  }

  private async saveProfile(
    input: Record<string, unknown>,
    ctx: ManageContext,
  ): Promise<ShopperProfileData | ManageRefusal> {
    const consumerId = this.consumerId(input);
    if (typeof consumerId !== 'string') return consumerId;
    const profile = input.profile;
    if (
      profile === undefined ||
      profile === null ||
      typeof profile !== 'object' ||
      Array.isArray(profile) ||
      Object.keys(profile).length === 0
    ) {
      return refuse(
        'invalid_args',
        'profile is required: the fields to save.',
        { issues: [issue(['profile'], 'must be an object with at least one field')] },
        false,
      );
    }
    // A profile is read back by any key of the project: it holds no secrets.
    const secrets = secretPaths(profile);
    if (secrets.length > 0) {
      return refuse(
        'invalid_args',
        'A profile holds no secrets (card numbers, passwords, tokens, keys); leave those fields out.',
        { issues: secrets.map((p) => issue(['profile', ...p], 'looks like a secret and is not stored')) },
        false,
      );
    }
    if (Buffer.byteLength(JSON.stringify(profile)) > SHOPPER_PROFILE_MAX_BYTES) {
      return refuse(
        'invalid_args',
        `profile may hold at most ${SHOPPER_PROFILE_MAX_BYTES} bytes of JSON.`,
        { issues: [issue(['profile'], 'is too large')] },
        false,
      );
    }
    const saved = await this.repo.mergeProfile(
      ctx.tenant.project_id,
      ctx.tenant.environment,
      consumerId,
      profile as Record<string, unknown>,
      SHOPPER_PROFILE_MAX_BYTES,
    );
    if (!saved) {
      return refuse(
        'invalid_args',
        `The saved profile would exceed ${SHOPPER_PROFILE_MAX_BYTES} bytes of JSON; remove fields first.`,
        {
          issues: [issue(['profile'], 'makes the profile too large')],
        },
        false,
      );
    }
    return this.profileData('save_profile', ctx.tenant.environment, consumerId, saved);
  }

  private async getProfile(
    input: Record<string, unknown>,
    ctx: ManageContext,
  ): Promise<ShopperProfileData | ManageRefusal> {
    const consumerId = this.consumerId(input);
    if (typeof consumerId !== 'string') return consumerId;
    const found = await this.repo.profile(ctx.tenant.project_id, ctx.tenant.environment, consumerId);
    return this.profileData('get_profile', ctx.tenant.environment, consumerId, found);
  }

  private profileData(
    action: ShopperProfileData['action'],
    environment: Environment,
    consumerId: string,
    found: { profile: Record<string, unknown>; updatedAt: Date } | null,
  ): ShopperProfileData {
    return {
      action,
      environment,
      consumer_id: consumerId,
      profile: found?.profile ?? null,
      updated_at: found?.updatedAt.toISOString() ?? null,
    };
  }
}
