/** `pnpm db:seed`: loads development data into the database named by DATABASE_URL. */
import { DEFAULT_DATABASE_URL, redactUrl } from './admin';
import { createPrisma } from './client';
import { seed } from './seed';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const prisma = createPrisma(url, { poolMax: 2 });
  try {
    const result = await seed(prisma);
    console.log(`seeded ${redactUrl(url)}: org ${result.orgId}, project ${result.projectId}`);
  } finally {
    await prisma.$disconnect();
  }
}

main().catch((err: unknown) => {
  console.error(`seed failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
