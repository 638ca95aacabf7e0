import { Inject, Injectable } from '@nestjs/common';
import type { Environment } from '@rota/contracts';
import type { PrismaClient } from '@rota/db';
import { PRISMA } from '@rota/service-kit';

/** What the database says about one project's access to the providers the rails name. */
export interface ProviderAccess {
  /** Providers of the rail catalog that exist in the `providers` table. */
  catalog: Array<{ id: string; authType: string; sandboxAvailable: boolean }>;
  /** Providers the project has a usable connection to in this environment. */
  connected: string[];
}

/** Connection statuses under which the provider can be called. */
const USABLE_STATUSES = ['connected', 'not_required'];

/** The router's only database access: providers and a project's connections. */
@Injectable()
export class EligibilityRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async providerAccess(
    projectId: string,
    environment: Environment,
    providerIds: readonly string[],
  ): Promise<ProviderAccess> {
    const [providers, connections] = await Promise.all([
      // The project's own provider of an id shadows the global one; other projects' are never read.
      this.prisma.provider.findMany({
        where: { id: { in: [...providerIds] }, owner: { in: ['', projectId] } },
        select: { id: true, owner: true, authType: true, sandboxAvailable: true },
        orderBy: [{ id: 'asc' }, { owner: 'desc' }],
        distinct: ['id'],
      }),
      this.prisma.connection.findMany({
        where: { projectId, environment, status: { in: USABLE_STATUSES } },
        select: { serverId: true },
      }),
    ]);
    return {
      catalog: providers.map(({ id, authType, sandboxAvailable }) => ({ id, authType, sandboxAvailable })),
      connected: connections.map((c) => c.serverId),
    };
  }
}
