import { Inject, Injectable } from '@nestjs/common';
import type { Environment } from '@rota/contracts';
import { namedStatement, newId, Prisma, type PrismaClient, type SqlPool } from '@rota/db';
import { PRISMA, SQL_POOL } from '@rota/service-kit';

const SEALED_CREDENTIALS = namedStatement(
  'SELECT credentials_ciphertext, credentials_key_id, origin FROM connections WHERE project_id = $1 AND environment = $2::environment AND server_id = $3',
);

/** The provider facts the session service needs. */
export interface ProviderRow {
  id: string;
  name: string;
  category: string;
  authType: string;
  selfServeAuth: boolean;
  /** The base URL per environment; a connection is bound to the origin of its environment's one. */
  baseUrls: { live?: string | null; test?: string | null } | null;
}

/** A connection row without its sealed credentials. */
export interface ConnectionRow {
  id: string;
  projectId: string;
  environment: Environment;
  serverId: string;
  authType: string;
  hasCredentials: boolean;
  createdAt: Date;
  updatedAt: Date;
}

interface RawConnection {
  id: string;
  project_id: string;
  environment: Environment;
  server_id: string;
  auth_type: string;
  has_credentials: boolean;
  created_at: Date;
  updated_at: Date;
}

const toRow = (r: RawConnection): ConnectionRow => ({
  id: r.id,
  projectId: r.project_id,
  environment: r.environment,
  serverId: r.server_id,
  authType: r.auth_type,
  hasCredentials: r.has_credentials,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * The provider a project means by an id: its own when it has one, else the
 * global one; never another project's. Put after `FROM`/`JOIN LATERAL` with
 * the project's id expression; one probe of the providers' primary key.
 */
const providerOf = (id: Prisma.Sql, projectId: Prisma.Sql): Prisma.Sql =>
  Prisma.sql`(SELECT * FROM providers pv WHERE pv.id = ${id} AND pv.owner IN ('', ${projectId}) ORDER BY pv.owner DESC LIMIT 1)`;

/** Providers and connections. The only code that reads or writes them for the session service. */
@Injectable()
export class ConnectionsRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(SQL_POOL) private readonly sql: SqlPool,
  ) {}

  /** The providers among `ids` the project sees (its own, else the global ones), in no particular order. */
  async providers(ids: readonly string[], projectId: string): Promise<ProviderRow[]> {
    if (ids.length === 0) return [];
    // Raw SQL: on this hot path the query builder costs several times the query.
    const rows = await this.prisma.$queryRaw<
      Array<{
        id: string;
        name: string;
        category: string;
        auth_type: string;
        self_serve_auth: boolean;
        base_urls: ProviderRow['baseUrls'];
      }>
    >(Prisma.sql`
      SELECT DISTINCT ON (id) id, name, category, auth_type, self_serve_auth, base_urls FROM providers
      WHERE id IN (${Prisma.join([...ids])}) AND owner IN ('', ${projectId})
      ORDER BY id, owner DESC`);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      category: r.category,
      authType: r.auth_type,
      selfServeAuth: r.self_serve_auth,
      baseUrls: r.base_urls,
    }));
  }

  /**
   * Inserts the connection, or replaces the sealed credentials of the existing
   * one for the same project, environment and provider, in one statement.
   * `created` tells the two apart (a fresh row has `xmax = 0`).
   */
  async upsert(input: {
    projectId: string;
    environment: Environment;
    serverId: string;
    ciphertext: Buffer | null;
    keyId: string | null;
    /** The origin of the provider's base URL the credentials are for. */
    origin: string | null;
  }): Promise<{ row: ConnectionRow; created: boolean }> {
    const rows = await this.prisma.$queryRaw<Array<RawConnection & { created: boolean }>>(Prisma.sql`
      WITH saved AS (
        INSERT INTO connections (id, project_id, environment, server_id, credentials_ciphertext, credentials_key_id, origin, status, updated_at)
        VALUES (${newId('conn')}, ${input.projectId}, ${input.environment}::environment, ${input.serverId},
                ${input.ciphertext}, ${input.keyId}, ${input.origin}, 'connected', now())
        ON CONFLICT (project_id, environment, server_id) DO UPDATE
          SET credentials_ciphertext = EXCLUDED.credentials_ciphertext,
              credentials_key_id = EXCLUDED.credentials_key_id,
              origin = EXCLUDED.origin,
              status = 'connected',
              updated_at = now()
        RETURNING id, project_id, environment, server_id, credentials_ciphertext IS NOT NULL AS has_credentials,
                  created_at, updated_at, (xmax = 0) AS created
      )
      SELECT saved.*, p.auth_type FROM saved JOIN LATERAL ${providerOf(Prisma.sql`saved.server_id`, Prisma.sql`saved.project_id`)} p ON true`);
    const r = rows[0]!;
    return { row: toRow(r), created: r.created };
  }

  /** The connections of one project and environment, oldest first. */
  async list(projectId: string, environment: Environment): Promise<ConnectionRow[]> {
    const rows = await this.prisma.$queryRaw<RawConnection[]>(Prisma.sql`
      SELECT c.id, c.project_id, c.environment, c.server_id, p.auth_type,
             c.credentials_ciphertext IS NOT NULL AS has_credentials, c.created_at, c.updated_at
      FROM connections c JOIN LATERAL ${providerOf(Prisma.sql`c.server_id`, Prisma.sql`c.project_id`)} p ON true
      WHERE c.project_id = ${projectId} AND c.environment = ${environment}::environment AND c.status = 'connected'
      ORDER BY c.created_at, c.id`);
    return rows.map(toRow);
  }

  /** Deletes a connection of this project and environment; null when there is none by that id. */
  async delete(id: string, projectId: string, environment: Environment): Promise<ConnectionRow | null> {
    const rows = await this.prisma.$queryRaw<RawConnection[]>(Prisma.sql`
      WITH gone AS (
        DELETE FROM connections
        WHERE id = ${id} AND project_id = ${projectId} AND environment = ${environment}::environment
        RETURNING id, project_id, environment, server_id, credentials_ciphertext IS NOT NULL AS has_credentials, created_at, updated_at
      )
      SELECT gone.*, p.auth_type FROM gone JOIN LATERAL ${providerOf(Prisma.sql`gone.server_id`, Prisma.sql`gone.project_id`)} p ON true`);
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** Every provider with its name and whether this project has a connection to it, for the given ids (all connected ones when `ids` is null). */
  async providerStates(
    projectId: string,
    environment: Environment,
    ids: readonly string[] | null,
  ): Promise<Array<ProviderRow & { connectedAt: Date | null }>> {
    const filter =
      ids === null
        ? Prisma.sql`c.id IS NOT NULL`
        : ids.length
          ? Prisma.sql`p.id IN (${Prisma.join([...ids])})`
          : Prisma.sql`false`;
    const rows = await this.prisma.$queryRaw<
      Array<{
        id: string;
        name: string;
        category: string;
        auth_type: string;
        self_serve_auth: boolean;
        base_urls: ProviderRow['baseUrls'];
        connected_at: Date | null;
      }>
    >(Prisma.sql`
      SELECT p.id, p.name, p.category, p.auth_type, p.self_serve_auth, p.base_urls, c.created_at AS connected_at
      FROM (SELECT DISTINCT ON (id) * FROM providers WHERE owner IN ('', ${projectId}) ORDER BY id, owner DESC) p
      LEFT JOIN connections c
        ON c.server_id = p.id AND c.project_id = ${projectId} AND c.environment = ${environment}::environment AND c.status = 'connected'
      WHERE ${filter}
      ORDER BY p.id`);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      category: r.category,
      authType: r.auth_type,
      selfServeAuth: r.self_serve_auth,
      baseUrls: r.base_urls,
      connectedAt: r.connected_at,
    }));
  }

  /**
   * Replaces a connection's sealed credentials only if they are still
   * `previous` (compare-and-set): a connection saved again or deleted since
   * they were read keeps what it has. Says whether the row was written.
   */
  async replaceSealed(
    projectId: string,
    environment: Environment,
    serverId: string,
    previous: Buffer,
    next: { ciphertext: Buffer; keyId: string },
  ): Promise<boolean> {
    const written = await this.prisma.$executeRaw(Prisma.sql`
      UPDATE connections SET credentials_ciphertext = ${next.ciphertext}, credentials_key_id = ${next.keyId}, updated_at = now()
      WHERE project_id = ${projectId} AND environment = ${environment}::environment AND server_id = ${serverId}
        AND credentials_ciphertext = ${previous}`);
    return written === 1;
  }

  /** The sealed credentials of one connection and the origin they are bound to, for executors. */
  async sealed(
    projectId: string,
    environment: Environment,
    serverId: string,
  ): Promise<{ ciphertext: Buffer; keyId: string; origin: string | null } | null> {
    // Every provider call reads this: a prepared statement on the plain pool, not the query builder.
    const r = await this.sql.query<{
      credentials_ciphertext: Buffer | null;
      credentials_key_id: string | null;
      origin: string | null;
    }>({
      ...SEALED_CREDENTIALS,
      values: [projectId, environment, serverId],
    });
    const row = r.rows[0];
    if (!row?.credentials_ciphertext || !row.credentials_key_id) return null;
    return { ciphertext: Buffer.from(row.credentials_ciphertext), keyId: row.credentials_key_id, origin: row.origin };
  }
}
