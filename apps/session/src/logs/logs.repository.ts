import { Inject, Injectable } from '@nestjs/common';
import type { LogOutcome, Tenant } from '@rota/contracts';
import { Prisma, type PrismaClient } from '@rota/db';
import { PRISMA } from '@rota/service-kit';
import { LOG_ROW_COLUMNS, type CallLogRow } from '../calls/call-log';

export interface LogFilter {
  sessionId?: string;
  tool?: string;
  server?: string;
  outcome?: LogOutcome;
  from?: Date;
  to?: Date;
  /** The last record of the previous page: this page starts just before it. */
  before?: { calledAt: Date; id: string };
  limit: number;
}

const OUTCOME: Record<LogOutcome, Prisma.Sql> = {
  success: Prisma.sql`state = 'done' AND success`,
  error: Prisma.sql`state = 'done' AND NOT success`,
  outcome_unknown: Prisma.sql`state = 'outcome_unknown'`,
  pending: Prisma.sql`state = 'pending'`,
};

/** Reads call records (`session_tool_calls`) of one project and environment. */
@Injectable()
export class LogsRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** Finished calls (`done` or `outcome_unknown`) among `ids`, whatever their project. */
  settled(ids: readonly string[]): Promise<CallLogRow[]> {
    return this.prisma.$queryRaw<CallLogRow[]>(Prisma.sql`
      SELECT ${Prisma.raw(LOG_ROW_COLUMNS)} FROM session_tool_calls
      WHERE id = ANY(${[...ids]}::text[]) AND state <> 'pending'
      ORDER BY called_at, id`);
  }

  /**
   * Newest first, by `(called_at, id)`, which the index on
   * `(project_id, environment, called_at, id)` walks backwards.
   */
  list(tenant: Tenant, f: LogFilter): Promise<CallLogRow[]> {
    const and = (cond: Prisma.Sql | false | undefined) => (cond ? Prisma.sql` AND ${cond}` : Prisma.empty);
    return this.prisma.$queryRaw<CallLogRow[]>(Prisma.sql`
      SELECT ${Prisma.raw(LOG_ROW_COLUMNS)} FROM session_tool_calls
      WHERE project_id = ${tenant.project_id} AND environment = ${tenant.environment}::environment
      ${and(f.sessionId !== undefined && Prisma.sql`session_id = ${f.sessionId}`)}
      ${and(f.tool !== undefined && Prisma.sql`tool = ${f.tool}`)}
      ${and(f.server !== undefined && Prisma.sql`server = ${f.server}`)}
      ${and(f.outcome && OUTCOME[f.outcome])}
      ${and(f.from && Prisma.sql`called_at >= ${f.from}`)}
      ${and(f.to && Prisma.sql`called_at < ${f.to}`)}
      ${and(f.before && Prisma.sql`(called_at, id) < (${f.before.calledAt}::timestamptz, ${f.before.id})`)}
      ORDER BY called_at DESC, id DESC
      LIMIT ${f.limit}`);
  }
}
