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
}
