import { Inject, Injectable } from '@nestjs/common';
import type { Tenant } from '@rota/contracts';
import { Prisma, type PrismaClient } from '@rota/db';
import { PRISMA } from '@rota/service-kit';

/** What a lookup needs of a call row. */
export interface CallToLookUp {
  id: string;
  tool: string;
  server: string | null;
  state: string;
  providerIdempotencyKey: string | null;
  railId: string | null;
}

/** Reads the call rows the reconcile sweep asks about. */
@Injectable()
export class CallLookupRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** The call, when it belongs to the tenant. */
  async call(id: string, tenant: Tenant): Promise<CallToLookUp | null> {
    const [row] = await this.prisma.$queryRaw<CallToLookUp[]>(Prisma.sql`
      SELECT id, tool, server, state, provider_idempotency_key AS "providerIdempotencyKey", rail_id AS "railId"
      FROM session_tool_calls
      WHERE id = ${id} AND project_id = ${tenant.project_id} AND environment = ${tenant.environment}::environment`);
    return row ?? null;
  }
}
