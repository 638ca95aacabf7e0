import { Inject, Injectable } from '@nestjs/common';
import { namedStatement, newId, Prisma, type PrismaClient, type SqlPool } from '@rota/db';
import { PRISMA, SQL_POOL } from '@rota/service-kit';

export interface MockRow {
  id: string;
  tool: string;
  times: number;
  remaining: number;
}

/** What one raw tool call finds among its session's mocks. */
export interface MockTake {
  /** The answer it consumed, or null when none was left. */
  taken: { id: string; response: unknown } | null;
  /** The session has at least one mock of a raw catalog tool (`server/tool`), used up or not. */
  sessionHasMocks: boolean;
  /** The session has at least one mock of this tool, used up or not. */
  toolHasMocks: boolean;
}

/**
 * $1 session, $2 tool. Takes one answer from the oldest mock of the tool that
 * has any left, in one conditional UPDATE: two replicas racing for the last
 * answer serialise on the row, and the loser moves on to the next mock or
 * finds none. The same statement says whether the session has mocks of raw
 * tools at all (callable names hold a `/`, meta-tool names never do).
 */
const TAKE = namedStatement(`
  WITH taken AS (
    UPDATE session_mocks SET remaining = remaining - 1
    WHERE id = (
      SELECT id FROM session_mocks WHERE session_id = $1::text AND tool = $2::text AND remaining > 0
      ORDER BY seq LIMIT 1 FOR UPDATE
    ) AND remaining > 0
    RETURNING id, response
  )
  SELECT t.id, t.response,
         EXISTS (SELECT 1 FROM session_mocks WHERE session_id = $1::text AND strpos(tool, '/') > 0) AS session_has_mocks,
         EXISTS (SELECT 1 FROM session_mocks WHERE session_id = $1::text AND tool = $2::text) AS tool_has_mocks
  FROM (SELECT 1) one LEFT JOIN taken t ON true`);

/** The session's mocks: the only code that reads or writes `session_mocks`. */
@Injectable()
export class MocksRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(SQL_POOL) private readonly sql: SqlPool,
  ) {}

  /** Adds a mock with all its answers left; null when the session already holds `max` mocks. */
  async create(input: {
    sessionId: string;
    tool: string;
    response: unknown;
    times: number;
    max: number;
  }): Promise<MockRow | null> {
    const rows = await this.prisma.$queryRaw<MockRow[]>(Prisma.sql`
      INSERT INTO session_mocks (id, session_id, tool, response, times, remaining)
      SELECT ${newId('mck')}, ${input.sessionId}, ${input.tool}, ${JSON.stringify(input.response)}::jsonb, ${input.times}::int, ${input.times}::int
      WHERE (SELECT count(*) FROM session_mocks WHERE session_id = ${input.sessionId}) < ${input.max}
      RETURNING id, tool, times, remaining`);
    return rows[0] ?? null;
  }

  /** The session's mocks in the order they answer. */
  list(sessionId: string): Promise<MockRow[]> {
    return this.prisma.$queryRaw<MockRow[]>(Prisma.sql`
      SELECT id, tool, times, remaining FROM session_mocks WHERE session_id = ${sessionId} ORDER BY seq`);
  }

  /** Consumes one answer of a tool's mocks, if any is left (see `TAKE`). */
  async take(sessionId: string, tool: string): Promise<MockTake> {
    // On every raw tool call of a test session: a named statement, planned once per connection.
    const { rows } = await this.sql.query<{
      id: string | null;
      response: unknown;
      session_has_mocks: boolean;
      tool_has_mocks: boolean;
    }>({
      ...TAKE,
      values: [sessionId, tool],
    });
    const r = rows[0]!;
    return {
      taken: r.id === null ? null : { id: r.id, response: r.response },
      sessionHasMocks: r.session_has_mocks,
      toolHasMocks: r.tool_has_mocks,
    };
  }
}
