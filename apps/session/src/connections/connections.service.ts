import {
  AppError,
  type ConnectionCredentials,
  type ConnectionDeleted,
  type ConnectionList,
  type ConnectionSaveCommand,
  type ConnectionSaved,
  type ConnectionStatus,
  type ConnectionView,
  type Environment,
  type Tenant,
} from '@rota/contracts';
import { currentTenant } from '@rota/service-kit';
import type { Keyring } from '../credentials/keyring';
import type { ConnectionRow, ConnectionsRepository, ProviderRow } from './connections.repository';
import type { EligibilityNotifier } from './eligibility-notifier';

/** Binds sealed credentials to the row they belong to (see keyring.ts). */
export function credentialsAad(projectId: string, environment: Environment, serverId: string): string {
  return `rota/connection/${projectId}/${environment}/${serverId}`;
}

/**
 * The origin (scheme, host and port) of a base URL, as the URL standard
 * writes it; null when there is no usable URL. A connection's credentials
 * are injected only into requests to the origin it was stored for.
 */
export function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** A provider's status for a project: stored credentials win, then auth `none`, else disconnected. */
export function connectionStatus(authType: string, connected: boolean): ConnectionStatus {
  if (authType === 'none') return 'not_required';
  return connected ? 'connected' : 'disconnected';
}

/** A connection as every answer shows it: never its credentials. */
export function connectionView(row: ConnectionRow): ConnectionView {
  return {
    id: row.id,
    server_id: row.serverId,
    environment: row.environment,
    status: connectionStatus(row.authType, true),
    auth_type: row.authType,
    has_credentials: row.hasCredentials,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * Stores, lists and removes provider connections of the request's tenant.
 * Credentials are sealed here, before anything reaches the database, and no
 * method ever returns them. Every write tells the router before it answers,
 * so routing never works from connections that no longer exist.
 */
export class ConnectionsService {
  constructor(
    private readonly repo: ConnectionsRepository,
    private readonly keyring: Keyring,
    private readonly eligibility: EligibilityNotifier,
  ) {}

  async save({ body }: ConnectionSaveCommand): Promise<ConnectionSaved> {
    const scope = currentTenant();
    const [provider] = await this.repo.providers([body.server_id], scope.project_id);
    if (!provider) {
      throw new AppError('unknown_servers', `No provider has the id "${body.server_id}".`, {
        unknown: [body.server_id],
      });
    }
    const { row, created } = await this.store(scope, provider, body.credentials);
    return { connection: connectionView(row), created };
  }

  /**
   * Seals and stores a provider's credentials for `tenant` (replacing any
   * earlier ones), then refreshes the router's eligibility. The one way a
   * connection is written: `POST /v1/connections` and the connect flows of
   * `codespar_manage_connections` both come through here.
   */
  async store(
    tenant: Tenant,
    provider: ProviderRow,
    credentials: ConnectionCredentials | undefined,
  ): Promise<{ row: ConnectionRow; created: boolean }> {
    const sealed = this.sealFor(provider, tenant, credentials);
    const saved = await this.repo.upsert({
      projectId: tenant.project_id,
      environment: tenant.environment,
      serverId: provider.id,
      ciphertext: sealed?.ciphertext ?? null,
      keyId: sealed?.keyId ?? null,
      origin: originOf(provider.baseUrls?.[tenant.environment]),
    });
    await this.eligibility.connectionsChanged(tenant);
    return saved;
  }

  async list(): Promise<ConnectionList> {
    const scope = currentTenant();
    const rows = await this.repo.list(scope.project_id, scope.environment);
    return { environment: scope.environment, connections: rows.map(connectionView) };
  }

  async delete({ connection_id }: { connection_id: string }): Promise<ConnectionDeleted> {
    const scope = currentTenant();
    const row = await this.repo.delete(connection_id, scope.project_id, scope.environment);
    if (!row) throw new AppError('connection_not_found', 'No connection with this id.');
    await this.eligibility.connectionsChanged(scope);
    return { id: row.id, server_id: row.serverId, environment: row.environment, status: 'disconnected', deleted: true };
  }

  /** The plain credentials of a connection, for the executors that call providers. Never returned to a client. */
  async credentialsFor(
    projectId: string,
    environment: Environment,
    serverId: string,
  ): Promise<ConnectionCredentials | null> {
    return (await this.connectionFor(projectId, environment, serverId))?.credentials ?? null;
  }

  /**
   * The plain credentials of a connection and the origin they were stored
   * for (null for a connection stored before origins were kept and whose
   * provider had no base URL then). Executors inject them only into
   * requests to that origin.
   */
  async connectionFor(
    projectId: string,
    environment: Environment,
    serverId: string,
  ): Promise<{ credentials: ConnectionCredentials; origin: string | null } | null> {
    const sealed = await this.repo.sealed(projectId, environment, serverId);
    if (!sealed) return null;
    const plain = this.keyring.open(sealed.ciphertext, sealed.keyId, credentialsAad(projectId, environment, serverId));
    return {
      credentials: JSON.parse(plain.toString('utf8')) as ConnectionCredentials,
      origin: originOf(sealed.origin),
    };
  }

  /**
   * Stores the refresh token a provider rotated in place of the one just
   * spent (the OAuth2 token cache calls this after a refresh). Only when the
   * connection still holds `previous`: a connection replaced or deleted in
   * the meantime keeps its own credentials. Nothing else about the
   * connection changes, so the router is not told.
   */
  async rotateRefreshToken(
    tenant: Tenant,
    serverId: string,
    refreshToken: string,
    previous: string | undefined,
  ): Promise<'stored' | 'superseded'> {
    const { project_id: projectId, environment } = tenant;
    const sealed = await this.repo.sealed(projectId, environment, serverId);
    if (!sealed) return 'superseded';
    const aad = credentialsAad(projectId, environment, serverId);
    const current = JSON.parse(
      this.keyring.open(sealed.ciphertext, sealed.keyId, aad).toString('utf8'),
    ) as ConnectionCredentials;
    if (current.refresh_token !== previous) return 'superseded';
    const next = this.keyring.seal(
      Buffer.from(JSON.stringify({ ...current, refresh_token: refreshToken }), 'utf8'),
      aad,
    );
    return (await this.repo.replaceSealed(projectId, environment, serverId, sealed.ciphertext, next))
      ? 'stored'
      : 'superseded';
  }

  private sealFor(provider: ProviderRow, scope: Tenant, credentials: ConnectionCredentials | undefined) {
    const given = credentials && Object.keys(credentials).length > 0 ? credentials : undefined;
    if (!given) {
      if (provider.authType === 'none') return null;
      throw new AppError('invalid_body', 'The request body is invalid.', {
        issues: [
          {
            path: ['credentials'],
            message: `${provider.id} authenticates with ${provider.authType}; send its credentials.`,
            code: 'custom',
          },
        ],
      });
    }
    return this.keyring.seal(
      Buffer.from(JSON.stringify(given), 'utf8'),
      credentialsAad(scope.project_id, scope.environment, provider.id),
    );
  }
}
