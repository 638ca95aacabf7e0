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
export async function seed(prisma: PrismaClient): Promise<SeedResult> {
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

  await seedProviderCatalog(prisma);

  return { orgId: DEV_ORG_ID, projectId: DEV_PROJECT_ID };
}

/**
 * Hook for the provider catalog: providers and their mcp_tools rows.
 * Intentionally empty for now; the catalog seed plugs in here and must stay
 * idempotent like the rest of this file (upsert providers by id, tools by
 * server_id + tool_name with a NULL project_id).
 */
export async function seedProviderCatalog(_prisma: PrismaClient): Promise<void> {}
