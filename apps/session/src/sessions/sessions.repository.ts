import type { Environment, SessionStatus } from '@rota/contracts';
import { newId, Prisma, type PrismaClient } from '@rota/db';

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

const COLUMNS = Prisma.sql`id, project_id, environment, user_id, servers, metadata, status, created_at, last_active_at, closed_at`;

/**
 * Sessions, always looked up together with the caller's project and
 * environment so that another tenant's session is simply not found.
 *
 * Idle expiry is applied in the same statement as the read: an active
 * session whose `last_active_at` is older than the idle time comes back
 * `expired` (and is stored so), which keeps the worker's `sessions.expire`
 * sweep (same column, same rule) a tidy-up rather than the only guard.
 */
export class SessionsRepository {
  constructor(private readonly prisma: PrismaClient) {}

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
   * restarts in the same statement (execute counts as activity; reads do not).
   */
  async find(id: string, projectId: string, environment: Environment, idleMinutes: number, touch = false): Promise<SessionRow | null> {
    const rows = await this.prisma.$queryRaw<RawSession[]>(Prisma.sql`
      WITH target AS (
        SELECT id, status, last_active_at < now() - make_interval(mins => ${idleMinutes}) AS idle
        FROM sessions WHERE id = ${id} AND project_id = ${projectId} AND environment = ${environment}::environment
      ),
      expired AS (
        UPDATE sessions SET status = 'expired'
        WHERE id IN (SELECT id FROM target WHERE status = 'active' AND idle) AND status = 'active'
        RETURNING ${COLUMNS}
      ),
      touched AS (
        UPDATE sessions SET last_active_at = now()
        WHERE ${touch}::boolean AND id IN (SELECT id FROM target WHERE status = 'active' AND NOT idle) AND status = 'active'
        RETURNING ${COLUMNS}
      )
      SELECT ${COLUMNS} FROM expired
      UNION ALL
      SELECT ${COLUMNS} FROM touched
      UNION ALL
      SELECT ${COLUMNS} FROM sessions
      WHERE id IN (SELECT id FROM target) AND NOT EXISTS (SELECT 1 FROM expired) AND NOT EXISTS (SELECT 1 FROM touched)`);
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
