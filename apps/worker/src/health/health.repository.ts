import type { EventName, EventPayload, HealthStatus } from '@rota/contracts';
import { newId, Prisma, type PrismaClient } from '@rota/db';

/** Who a stored status speaks for: the deployment, or one project and environment. */
export interface HealthScopeRef {
  key: string;
  orgId: string | null;
  projectId: string | null;
  environment: 'live' | 'test' | null;
}

export const DEPLOYMENT_SCOPE: HealthScopeRef = { key: 'deployment', orgId: null, projectId: null, environment: null };

export function projectScope(orgId: string | null, projectId: string, environment: 'live' | 'test'): HealthScopeRef {
  return { key: `project:${projectId}:${environment}`, orgId, projectId, environment };
}

export interface StoredHealth {
  status: HealthStatus;
  version: bigint;
  since: Date;
}

export interface SnapshotRow {
  id: bigint;
  scope_key: string;
  project_id: string | null;
  environment: 'live' | 'test' | null;
  status: HealthStatus;
  previous_status: HealthStatus | null;
  checks: unknown;
  evaluated_at: Date;
}

type HealthEventName = Extract<EventName, 'system.health.degraded' | 'system.health.recovered'>;

/** The health rollup's SQL: the probes of the deployment-wide and per-project checks, the stored state, snapshots and the outbox. */
export class HealthRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async ping(): Promise<void> {
    await this.prisma.$queryRaw`SELECT 1`;
  }

  /** Pairs stored, how many were fetched before `staleHours` ago, and the oldest fetch. */
  async fxFreshness(staleHours: number): Promise<{ pairs: number; stale: number; oldest: Date | null }> {
    const [row] = await this.prisma.$queryRaw<Array<{ pairs: bigint; stale: bigint; oldest: Date | null }>>(Prisma.sql`
      SELECT count(*) AS pairs,
             count(*) FILTER (WHERE fetched_at < now() - make_interval(hours => ${staleHours})) AS stale,
             min(fetched_at) AS oldest
      FROM fx_rates`);
    return { pairs: Number(row?.pairs ?? 0), stale: Number(row?.stale ?? 0), oldest: row?.oldest ?? null };
  }

  /** Providers the project has connected in this environment. */
  async connectedProviders(projectId: string, environment: 'live' | 'test'): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<Array<{ server_id: string }>>(Prisma.sql`
      SELECT server_id FROM connections
      WHERE project_id = ${projectId} AND environment = ${environment}::environment AND status = 'connected'
      ORDER BY server_id`);
    return rows.map((r) => r.server_id);
  }

  /** Calls of the project and environment that reached a provider within the last `hours`, and the latest of them. */
  async providerAttempts(
    projectId: string,
    environment: 'live' | 'test',
    hours: number,
  ): Promise<{ attempts: number; last: Date | null }> {
    const [row] = await this.prisma.$queryRaw<Array<{ n: bigint; last: Date | null }>>(Prisma.sql`
      SELECT count(*) AS n, max(called_at) AS last FROM session_tool_calls
      WHERE project_id = ${projectId} AND environment = ${environment}::environment
        AND called_at > now() - make_interval(hours => ${hours}) AND attempts > 0`);
    return { attempts: Number(row?.n ?? 0), last: row?.last ?? null };
  }

  /** Every project and environment the scheduled evaluation covers: those with a connection or a stored status. */
  async projectScopes(): Promise<HealthScopeRef[]> {
    const rows = await this.prisma.$queryRaw<
      Array<{ org_id: string; project_id: string; environment: 'live' | 'test' }>
    >(Prisma.sql`
      SELECT p.org_id, s.project_id, s.environment FROM (
        SELECT DISTINCT project_id, environment FROM connections WHERE status = 'connected'
        UNION
        SELECT project_id, environment FROM health_states WHERE project_id IS NOT NULL
      ) s JOIN projects p ON p.id = s.project_id
      ORDER BY s.project_id, s.environment`);
    return rows.map((r) => projectScope(r.org_id, r.project_id, r.environment));
  }

  async orgOf(projectId: string): Promise<string | null> {
    const [row] = await this.prisma.$queryRaw<Array<{ org_id: string }>>(
      Prisma.sql`SELECT org_id FROM projects WHERE id = ${projectId}`,
    );
    return row?.org_id ?? null;
  }

  async stored(scopeKey: string): Promise<StoredHealth | null> {
    const [row] = await this.prisma.$queryRaw<Array<{ status: HealthStatus; version: bigint; since: Date }>>(Prisma.sql`
      SELECT status, version, since FROM health_states WHERE scope_key = ${scopeKey}`);
    return row ?? null;
  }

  /**
   * Moves the stored status of `scope` from what `expected` says (null: no
   * row yet) to `status`, and in the same statement writes the event and a
   * snapshot. A compare-and-set on the row's version: of two replicas that
   * read the same version, one changes it and the other's statement matches
   * no row, so one event is written per change. A first status that is
   * `healthy` creates the row without an event. Returns whether this call
   * made the change.
   */
  async transition(
    scope: HealthScopeRef,
    expected: StoredHealth | null,
    status: HealthStatus,
    event: { type: HealthEventName; payload: EventPayload<HealthEventName> } | null,
    checks: unknown,
  ): Promise<boolean> {
    const eventId = newId('evt');
    const env = scope.environment;
    const payload = JSON.stringify(event?.payload ?? null);
    const changedCte = expected
      ? Prisma.sql`
        UPDATE health_states SET status = ${status}, version = version + 1, since = now(), evaluated_at = now()
        WHERE scope_key = ${scope.key} AND version = ${expected.version} AND status <> ${status}
        RETURNING scope_key`
      : Prisma.sql`
        INSERT INTO health_states (scope_key, org_id, project_id, environment, status)
        VALUES (${scope.key}, ${scope.orgId}, ${scope.projectId}, ${env}::environment, ${status})
        ON CONFLICT (scope_key) DO NOTHING
        RETURNING scope_key`;
    const [row] = await this.prisma.$queryRaw<Array<{ changed: bigint }>>(Prisma.sql`
      WITH changed AS (${changedCte}),
      event AS (
        INSERT INTO events (id, type, org_id, project_id, environment, payload)
        SELECT ${eventId}, ${event?.type ?? ''}, ${scope.orgId}, ${scope.projectId}, ${env}::environment, ${payload}::jsonb
        FROM changed WHERE ${event !== null}
        RETURNING id),
      snapshot AS (
        INSERT INTO health_snapshots (scope_key, project_id, environment, status, previous_status, checks)
        SELECT ${scope.key}, ${scope.projectId}, ${env}::environment, ${status}, ${expected?.status ?? null}, ${JSON.stringify(checks)}::jsonb
        FROM changed
        RETURNING id)
      SELECT count(*) AS changed FROM changed`);
    return Number(row?.changed ?? 0) === 1;
  }

  /** Records an evaluation that changed nothing: bumps `evaluated_at` and, when asked, keeps a snapshot. */
  async unchanged(scope: HealthScopeRef, status: HealthStatus, checks: unknown, snapshot: boolean): Promise<void> {
    await this.prisma.$executeRaw(
      Prisma.sql`UPDATE health_states SET evaluated_at = now() WHERE scope_key = ${scope.key}`,
    );
    if (!snapshot) return;
    await this.prisma.$executeRaw(Prisma.sql`
      INSERT INTO health_snapshots (scope_key, project_id, environment, status, checks)
      VALUES (${scope.key}, ${scope.projectId}, ${scope.environment}::environment, ${status}, ${JSON.stringify(checks)}::jsonb)`);
  }

  /** Snapshots of the given scopes, newest first, below the cursor id. */
  async snapshots(
    scopeKeys: string[],
    opts: { limit: number; beforeId?: bigint; transitionsOnly: boolean },
  ): Promise<SnapshotRow[]> {
    if (scopeKeys.length === 0) return [];
    return this.prisma.$queryRaw<SnapshotRow[]>(Prisma.sql`
      SELECT id, scope_key, project_id, environment, status, previous_status, checks, evaluated_at
      FROM health_snapshots
      WHERE scope_key IN (${Prisma.join(scopeKeys)})
        ${opts.beforeId !== undefined ? Prisma.sql`AND id < ${opts.beforeId}` : Prisma.empty}
        ${opts.transitionsOnly ? Prisma.sql`AND previous_status IS NOT NULL` : Prisma.empty}
      ORDER BY id DESC
      LIMIT ${opts.limit}`);
  }

  /** Drops snapshots older than `days`, except those that record a transition within twice that. */
  pruneSnapshots(days: number): Promise<number> {
    return this.prisma.$executeRaw(Prisma.sql`
      DELETE FROM health_snapshots
      WHERE evaluated_at < now() - make_interval(days => ${days})
        AND (previous_status IS NULL OR evaluated_at < now() - make_interval(days => ${days * 2}))`);
  }
}
