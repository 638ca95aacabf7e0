import { Inject, Injectable } from '@nestjs/common';
import type { Environment, Tenant } from '@rota/contracts';
import { CatalogRepository, type ProviderForCall } from '@rota/catalog/repository';
import { newId, Prisma, type PrismaClient } from '@rota/db';
import { PRISMA } from '@rota/service-kit';

export type FlowMethod = 'authorization' | 'credentials';
export type FlowStatus = 'pending' | 'exchanging' | 'connected' | 'failed';

/** One connect flow (`connect_flows`), as the services need it. */
export interface FlowRow {
  id: string;
  tenant: Tenant;
  serverId: string;
  method: FlowMethod;
  status: FlowStatus;
  /** Sealed `{code_verifier, client_id, client_secret}`, authorization flows only. */
  secret: { ciphertext: Buffer; keyId: string } | null;
  redirectUri: string | null;
  authorizationUrl: string | null;
  returnTo: string | null;
  error: string | null;
  connectionId: string | null;
  expiresAt: Date;
  expired: boolean;
}

interface RawFlow {
  id: string;
  org_id: string;
  project_id: string;
  environment: Environment;
  server_id: string;
  method: FlowMethod;
  status: FlowStatus;
  secret_ciphertext: Buffer | null;
  secret_key_id: string | null;
  redirect_uri: string | null;
  authorization_url: string | null;
  return_to: string | null;
  error: string | null;
  connection_id: string | null;
  expires_at: Date;
  expired: boolean;
}

const FLOW_COLUMNS = Prisma.sql`id, org_id, project_id, environment, server_id, method, status, secret_ciphertext, secret_key_id, redirect_uri,
  authorization_url, return_to, error, connection_id, expires_at, expires_at <= now() AS expired`;

const toFlow = (r: RawFlow): FlowRow => ({
  id: r.id,
  tenant: { org_id: r.org_id, project_id: r.project_id, environment: r.environment },
  serverId: r.server_id,
  method: r.method,
  status: r.status,
  secret:
    r.secret_ciphertext && r.secret_key_id
      ? { ciphertext: Buffer.from(r.secret_ciphertext), keyId: r.secret_key_id }
      : null,
  redirectUri: r.redirect_uri,
  authorizationUrl: r.authorization_url,
  returnTo: r.return_to,
  error: r.error,
  connectionId: r.connection_id,
  expiresAt: r.expires_at,
  expired: r.expired,
});

/** Flows past their expiry by more than this are deleted when the project starts another. */
const KEEP_EXPIRED = Prisma.sql`interval '1 day'`;

/** A tenant's own rows only: every flow lookup is scoped by org, project and environment. */
const ofTenant = (t: Tenant) =>
  Prisma.sql`org_id = ${t.org_id} AND project_id = ${t.project_id} AND environment = ${t.environment}::environment`;

/** Connect flows, shopper profiles and the catalog facts connecting needs. The only code that touches them. */
@Injectable()
export class ManageRepository {
  private readonly catalog: CatalogRepository;

  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {
    this.catalog = new CatalogRepository(prisma);
  }

  /** The provider a project means by an id, with how it is called. */
  provider(serverId: string, projectId: string): Promise<ProviderForCall | null> {
    return this.catalog.providerForCall(serverId, projectId);
  }

  async createFlow(f: {
    tenant: Tenant;
    serverId: string;
    method: FlowMethod;
    sessionId: string | null;
    stateNonceHash: string | null;
    secret: { ciphertext: Buffer; keyId: string } | null;
    redirectUri: string | null;
    authorizationUrl: string | null;
    returnTo: string | null;
    expiresAt: Date;
    id?: string;
  }): Promise<string> {
    const id = f.id ?? newId('cfl');
    const t = f.tenant;
    await this.prisma.$transaction([
      // Long-expired flows of the project go as new ones arrive; nothing else reads them.
      this.prisma.$executeRaw(
        Prisma.sql`DELETE FROM connect_flows WHERE project_id = ${t.project_id} AND expires_at < now() - ${KEEP_EXPIRED}`,
      ),
      this.prisma.$executeRaw(Prisma.sql`
        INSERT INTO connect_flows (id, org_id, project_id, environment, server_id, method, session_id, state_nonce_hash,
                                   secret_ciphertext, secret_key_id, redirect_uri, authorization_url, return_to, expires_at)
        VALUES (${id}, ${t.org_id}, ${t.project_id}, ${t.environment}::environment, ${f.serverId}, ${f.method}, ${f.sessionId}, ${f.stateNonceHash},
                ${f.secret?.ciphertext ?? null}, ${f.secret?.keyId ?? null}, ${f.redirectUri}, ${f.authorizationUrl}, ${f.returnTo}, ${f.expiresAt})`),
    ]);
    return id;
  }

  /** A flow of this tenant, whatever its status; null when the id names none of its flows. */
  async flow(id: string, tenant: Tenant): Promise<FlowRow | null> {
    const rows = await this.prisma.$queryRaw<RawFlow[]>(
      Prisma.sql`SELECT ${FLOW_COLUMNS} FROM connect_flows WHERE id = ${id} AND ${ofTenant(tenant)}`,
    );
    return rows[0] ? toFlow(rows[0]) : null;
  }

  /**
   * Spends a pending, unexpired flow: pending → exchanging in one
   * conditional UPDATE, so of two callers (two replicas, a replayed state)
   * exactly one gets the row. For authorization flows the nonce's hash must
   * match too.
   */
  async claim(id: string, tenant: Tenant, stateNonceHash: string | null): Promise<FlowRow | null> {
    const nonce = stateNonceHash === null ? Prisma.sql`true` : Prisma.sql`state_nonce_hash = ${stateNonceHash}`;
    const rows = await this.prisma.$queryRaw<RawFlow[]>(Prisma.sql`
      UPDATE connect_flows SET status = 'exchanging'
      WHERE id = ${id} AND ${ofTenant(tenant)} AND status = 'pending' AND expires_at > now() AND ${nonce}
      RETURNING ${FLOW_COLUMNS}`);
    return rows[0] ? toFlow(rows[0]) : null;
  }

  /** The end of a claimed flow. */
  async finish(
    id: string,
    outcome: { status: 'connected'; connectionId: string } | { status: 'failed'; error: string },
  ): Promise<void> {
    const connectionId = outcome.status === 'connected' ? outcome.connectionId : null;
    const error = outcome.status === 'failed' ? outcome.error : null;
    await this.prisma.$executeRaw(Prisma.sql`
      UPDATE connect_flows SET status = ${outcome.status}, connection_id = ${connectionId}, error = ${error}, completed_at = now(),
             secret_ciphertext = NULL, secret_key_id = NULL
      WHERE id = ${id} AND status = 'exchanging'`);
  }

  async profile(
    projectId: string,
    environment: Environment,
    consumerId: string,
  ): Promise<{ profile: Record<string, unknown>; updatedAt: Date } | null> {
    const rows = await this.prisma.$queryRaw<Array<{ profile: Record<string, unknown>; updated_at: Date }>>(Prisma.sql`
      SELECT profile, updated_at FROM shopper_profiles
      WHERE project_id = ${projectId} AND environment = ${environment}::environment AND consumer_id = ${consumerId}`);
    return rows[0] ? { profile: rows[0].profile, updatedAt: rows[0].updated_at } : null;
  }

  /**
   * Merges `patch` into a consumer's profile in one statement (top-level
   * fields replace, a null removes one), so concurrent saves never lose each
   * other's fields. Null when the merged profile would exceed `maxBytes`.
   */
  async mergeProfile(
    projectId: string,
    environment: Environment,
    consumerId: string,
    patch: Record<string, unknown>,
    maxBytes: number,
  ): Promise<{ profile: Record<string, unknown>; updatedAt: Date } | null> {
    const json = JSON.stringify(patch);
    const rows = await this.prisma.$queryRaw<Array<{ profile: Record<string, unknown>; updated_at: Date }>>(Prisma.sql`
      INSERT INTO shopper_profiles (project_id, environment, consumer_id, profile)
      VALUES (${projectId}, ${environment}::environment, ${consumerId}, jsonb_strip_nulls(${json}::jsonb))
      ON CONFLICT (project_id, environment, consumer_id) DO UPDATE
        SET profile = jsonb_strip_nulls(shopper_profiles.profile || ${json}::jsonb), updated_at = now()
        WHERE octet_length((shopper_profiles.profile || ${json}::jsonb)::text) <= ${maxBytes}
      RETURNING profile, updated_at`);
    return rows[0] ? { profile: rows[0].profile, updatedAt: rows[0].updated_at } : null;
  }
}
