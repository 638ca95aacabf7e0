import { Inject, Injectable } from '@nestjs/common';
import { Prisma, type PrismaClient } from '@rota/db';
import { PRISMA } from '@rota/service-kit';

/** The one fact the dashboard cookie needs from the database: whether its key still works. */
@Injectable()
export class DashboardRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async keyActive(keyId: string): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<unknown[]>(Prisma.sql`SELECT 1 FROM api_keys WHERE id = ${keyId} AND revoked_at IS NULL`);
    return rows.length > 0;
  }
}
