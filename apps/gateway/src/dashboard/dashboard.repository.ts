import { Inject, Injectable } from '@nestjs/common';
import { Prisma, type PrismaClient } from '@rota/db';
import { PRISMA } from '@rota/service-kit';

/** The one fact the dashboard cookie needs from the database: whether its key still works. */
@Injectable()
export class DashboardRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async keyActive(keyId: string): Promise<boolean> {
    // Active as the API's key lookup decides it: not revoked, not expired, and neither is the key that minted it.
    const rows = await this.prisma.$queryRaw<unknown[]>(
      Prisma.sql`
        SELECT 1
          FROM api_keys k
          LEFT JOIN api_keys parent ON parent.id = k.parent_id
         WHERE k.id = ${keyId}
           AND k.revoked_at IS NULL
           AND (k.expires_at IS NULL OR k.expires_at > now())
           AND (k.parent_id IS NULL OR (parent.revoked_at IS NULL AND (parent.expires_at IS NULL OR parent.expires_at > now())))`,
    );
    return rows.length > 0;
  }
}
