import {
  AppError,
  type SessionClosed,
  type SessionCreateCommand,
  type SessionRecord,
  type SessionRefCommand,
  type Tenant,
} from '@rota/contracts';
import { beforeDeadline, currentTenant } from '@rota/service-kit';
import type { ConnectionsRepository } from '../connections/connections.repository';
import type { SessionRow, SessionsRepository } from './sessions.repository';

/** The one 404 for a session that does not exist and for one that belongs to someone else. */
export const sessionNotFound = () => new AppError('session_not_found', 'No session with this id.');

export function sessionRecord(row: SessionRow, idleMinutes: number): SessionRecord {
  return {
    id: row.id,
    user_id: row.userId,
    servers: row.servers,
    status: row.status,
    environment: row.environment,
    created_at: row.createdAt.toISOString(),
    metadata: row.metadata,
    last_active_at: row.lastActiveAt.toISOString(),
    expires_at:
      row.status === 'active' ? new Date(row.lastActiveAt.getTime() + idleMinutes * 60_000).toISOString() : null,
    closed_at: row.closedAt?.toISOString() ?? null,
  };
}

/** Opening, reading and closing sessions. */
export class SessionsService {
  private readonly touchAfterSeconds: number;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly providers: ConnectionsRepository,
    private readonly idleMinutes: number,
    /** An execute restarts the idle clock only when it was last restarted at least this long ago. */
    touchAfterSeconds = 0,
  ) {
    // Never coarser than a quarter of the idle time, or a busy session could expire.
    this.touchAfterSeconds = Math.min(touchAfterSeconds, (idleMinutes * 60) / 4);
  }

  /** Opens a session for the request's tenant. */
  async create({ body }: SessionCreateCommand): Promise<SessionRecord> {
    const tenant = currentTenant();
    // A user-bound key opens sessions for its own user only.
    if (tenant.user_id !== undefined && body.user_id != null && body.user_id !== tenant.user_id) {
      throw new AppError('forbidden', 'This key is bound to another user: it opens sessions only for its own user.');
    }
    const found = new Set((await this.providers.providers(body.servers, tenant.project_id)).map((p) => p.id));
    const unknown = body.servers.filter((id) => !found.has(id));
    if (unknown.length) {
      const list = unknown.map((u) => `"${u}"`).join(', ');
      throw new AppError('unknown_servers', `No provider has the id ${list}.`, { unknown });
    }
    // A caller who has given up gets no session opened behind its back.
    beforeDeadline();
    const row = await this.sessions.create({
      projectId: tenant.project_id,
      environment: tenant.environment,
      userId: tenant.user_id ?? body.user_id ?? null,
      servers: body.servers,
      metadata: body.metadata ?? null,
    });
    return sessionRecord(row, this.idleMinutes);
  }

  async get({ session_id }: SessionRefCommand): Promise<SessionRecord> {
    return sessionRecord(await this.find(currentTenant(), session_id), this.idleMinutes);
  }

  async close({ session_id }: SessionRefCommand): Promise<SessionClosed> {
    const tenant = currentTenant();
    // Another user's session is as unknown to a user-bound key as a session that does not exist.
    if (tenant.user_id !== undefined) await this.find(tenant, session_id);
    const row = await this.sessions.close(session_id, tenant.project_id, tenant.environment);
    if (!row) throw sessionNotFound();
    return { id: row.id, status: 'closed', closed_at: row.closedAt!.toISOString() };
  }

  /** The session, visible to this tenant, with idle expiry applied; 404 otherwise. */
  async find(tenant: Tenant, id: string, touch = false): Promise<SessionRow> {
    const row = await this.sessions.find(
      id,
      tenant.project_id,
      tenant.environment,
      this.idleMinutes,
      touch,
      this.touchAfterSeconds,
    );
    if (!row || (tenant.user_id !== undefined && row.userId !== tenant.user_id)) throw sessionNotFound();
    return row;
  }

  /**
   * The session if it can run tools now, its idle clock restarted; 409
   * `session_not_active` with the real status otherwise.
   */
  async requireActive(tenant: Tenant, id: string): Promise<SessionRow> {
    const row = await this.find(tenant, id, true);
    if (row.status !== 'active') {
      throw new AppError('session_not_active', `The session is ${row.status}; open a new session to run tools.`, {
        status: row.status,
      });
    }
    return row;
  }
}
