import { Prisma, type PrismaClient } from '@rota/db';

/** SQL the maintenance jobs run against sessions. */
export class SessionsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Expires active sessions idle for longer than `idleMinutes`; returns how many. */
  expireIdle(idleMinutes: number): Promise<number> {
    return this.prisma.$executeRaw(Prisma.sql`
      UPDATE sessions SET status = 'expired'
      WHERE status = 'active' AND last_active_at < now() - make_interval(mins => ${idleMinutes})`);
  }

  /**
   * Marks provider calls still `pending` after `afterSeconds` as
   * `outcome_unknown`, and their callers' idempotency keys `unknown` with an
   * execute answer saying so. The provider may or may not have acted; the
   * row stays for an operator to reconcile with the provider by its
   * idempotency key. Returns how many calls.
   */
  async reconcilePending(afterSeconds: number): Promise<number> {
    const rows = await this.prisma.$queryRaw<Array<{ n: bigint }>>(Prisma.sql`
      WITH stale AS (
        UPDATE session_tool_calls
        SET state = 'outcome_unknown',
            error = 'The call was sent, or about to be, when the service stopped; its outcome is unknown.',
            output = jsonb_build_object('code', 'outcome_unknown')
        WHERE state = 'pending' AND called_at < now() - make_interval(secs => ${afterSeconds})
        RETURNING id, tool, server, called_at),
      keys AS (
        UPDATE idempotency_keys k
        SET state = 'unknown',
            response = jsonb_build_object(
              'success', false,
              'data', jsonb_build_object('code', 'outcome_unknown', 'message', 'The call may have reached the provider; its outcome is unknown.'),
              'error', 'The call may have reached the provider; its outcome is unknown.',
              'duration', 0, 'server', s.server, 'tool', s.tool, 'tool_call_id', s.id,
              'called_at', to_char(s.called_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        FROM stale s
        WHERE k.tool_call_id = s.id AND k.state = 'running'
        RETURNING 1)
      SELECT count(*) AS n FROM stale`);
    return Number(rows[0]?.n ?? 0);
  }
}
