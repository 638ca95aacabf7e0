import type { PrismaClient } from './client';

export const DEV_ORG_ID = 'org_dev';
export const DEV_PROJECT_ID = 'proj_dev';

export interface SeedResult {
  orgId: string;
  projectId: string;
}

/**
 * Development data. Safe to run any number of times: everything is an upsert
 * on a fixed id, and existing rows are left as they are.
 */
export interface SeedOptions {
  /**
   * Loads the provider catalog. The catalog package depends on this one, so
   * it cannot be imported here: callers that want the demo catalog pass
   * `seedDemoCatalog` from `@rota/catalog` (as `rota catalog seed` does).
   */
  providerCatalog?: (prisma: PrismaClient) => Promise<unknown>;
}

export async function seed(prisma: PrismaClient, opts: SeedOptions = {}): Promise<SeedResult> {
  await prisma.org.upsert({
    where: { id: DEV_ORG_ID },
    create: { id: DEV_ORG_ID, name: 'Dev org' },
    update: {},
  });
  // One project serves both environments: `live` and `test` are not separate
  // projects but a column on api_keys, sessions and connections, so a key
  // created for either environment of proj_dev works against this row.
  await prisma.project.upsert({
    where: { id: DEV_PROJECT_ID },
    create: { id: DEV_PROJECT_ID, orgId: DEV_ORG_ID, name: 'Dev project' },
    update: {},
  });

  await seedProviderCatalog(prisma, opts.providerCatalog);

  return { orgId: DEV_ORG_ID, projectId: DEV_PROJECT_ID };
}

/**
 * Hook for the provider catalog: providers and their mcp_tools rows. The
 * loader (normally `seedDemoCatalog` from `@rota/catalog`) must stay
 * idempotent like the rest of this file; it upserts providers by id and tools
 * by server_id + tool_name with a NULL project_id.
 */
export async function seedProviderCatalog(
  prisma: PrismaClient,
  load?: (prisma: PrismaClient) => Promise<unknown>,
): Promise<void> {
  if (load) await load(prisma);
}
