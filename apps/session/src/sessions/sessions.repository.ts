import { Inject, Injectable } from '@nestjs/common';
import type { Environment, SessionStatus } from '@rota/contracts';
import { namedStatement, newId, Prisma, type PrismaClient, type SqlPool } from '@rota/db';
import { PRISMA, SQL_POOL } from '@rota/service-kit';

export interface SessionRow {
  id: string;
  projectId: string;
  environment: Environment;
  userId: string | null;
  servers: string[];
  metadata: Record<string, unknown> | null;
  status: SessionStatus;
  createdAt: Date;
  lastActiveAt: Date;
  closedAt: Date | null;
}

interface RawSession {
  id: string;
  project_id: string;
  environment: Environment;
  user_id: string | null;
  servers: string[];
  metadata: Record<string, unknown> | null;
  status: SessionStatus;
  created_at: Date;
  last_active_at: Date;
  closed_at: Date | null;
}

const toRow = (r: RawSession): SessionRow => ({
  id: r.id,
  projectId: r.project_id,
  environment: r.environment,
  userId: r.user_id,
  servers: r.servers,
  metadata: r.metadata,
  status: r.status,
  createdAt: r.created_at,
  lastActiveAt: r.last_active_at,
  closedAt: r.closed_at,
});

const COLUMN_LIST =
  'id, project_id, environment, user_id, servers, metadata, status, created_at, last_active_at, closed_at';
const COLUMNS = Prisma.raw(COLUMN_LIST);

/** $1 id, $2 project, $3 environment, $4 idle minutes, $5 touch, $6 touch interval in seconds. */
const FIND = namedStatement(`
  WITH target AS (
    SELECT id, status, last_active_at < now() - make_interval(mins => $4::int) AS idle
    FROM sessions WHERE id = $1::text AND project_id = $2::text AND environment = $3::environment
  ),
  expired AS (
    UPDATE sessions SET status = 'expired'
    WHERE id IN (SELECT id FROM target WHERE status = 'active' AND idle) AND status = 'active'
    RETURNING ${COLUMN_LIST}
  ),
  touched AS (
    UPDATE sessions SET last_active_at = now()
    WHERE $5::boolean AND id IN (SELECT id FROM target WHERE status = 'active' AND NOT idle) AND status = 'active'
      AND last_active_at <= now() - make_interval(secs => $6::float8)
    RETURNING ${COLUMN_LIST}
  )
  SELECT ${COLUMN_LIST} FROM expired
  UNION ALL
  SELECT ${COLUMN_LIST} FROM touched
  UNION ALL
  SELECT ${COLUMN_LIST} FROM sessions
  WHERE id IN (SELECT id FROM target) AND NOT EXISTS (SELECT 1 FROM expired) AND NOT EXISTS (SELECT 1 FROM touched)`);

/**
 * Sessions, always looked up together with the caller's project and
 * environment so that another tenant's session is simply not found.
 *
 * Idle expiry is applied in the same statement as the read: an active
 * session whose `last_active_at` is older than the idle time comes back
 * `expired` (and is stored so), which keeps the worker's `sessions.expire`
 * sweep (same column, same rule) a tidy-up rather than the only guard.
 */
@Injectable()
export class SessionsRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(SQL_POOL) private readonly sql: SqlPool,
  ) {}

  async create(input: {
    projectId: string;
    environment: Environment;
    userId: string | null;
    servers: string[];
    metadata: Record<string, unknown> | null;
  }): Promise<SessionRow> {
    const metadata = input.metadata === null ? null : JSON.stringify(input.metadata);
    const rows = await this.prisma.$queryRaw<RawSession[]>(Prisma.sql`
      INSERT INTO sessions (id, project_id, environment, user_id, servers, metadata)
      VALUES (${newId('ses')}, ${input.projectId}, ${input.environment}::environment, ${input.userId}, ${input.servers}::text[], ${metadata}::jsonb)
      RETURNING ${COLUMNS}`);
    return toRow(rows[0]!);
  }

  /**
   * The session if it belongs to this project and environment, expiring it
   * first when idle too long. With `touch`, an active session's idle clock
   * restarts in the same statement (execute counts as activity; reads do not),
   * unless it was restarted less than `touchAfterSeconds` ago: back-to-back
   * calls then read the row without rewriting it (and without a WAL flush).
   */
  async find(
    id: string,
    projectId: string,
    environment: Environment,
    idleMinutes: number,
    touch = false,
    touchAfterSeconds = 0,
  ): Promise<SessionRow | null> {
    // On every execute: a named statement, so the server plans it once per connection.
    const { rows } = await this.sql.query<RawSession>({
      ...FIND,
      values: [id, projectId, environment, idleMinutes, touch, touchAfterSeconds],
    });
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** Closes the session; a session already closed keeps its first `closed_at`. */
  async close(id: string, projectId: string, environment: Environment): Promise<SessionRow | null> {
    const rows = await this.prisma.$queryRaw<RawSession[]>(Prisma.sql`
      UPDATE sessions SET status = 'closed', closed_at = COALESCE(closed_at, now())
      WHERE id = ${id} AND project_id = ${projectId} AND environment = ${environment}::environment
      RETURNING ${COLUMNS}`);
    return rows[0] ? toRow(rows[0]) : null;
  }
}
