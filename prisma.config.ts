// Prisma CLI configuration. DATABASE_URL is read from the environment with a
// local default, because `env()` from prisma/config throws when it is unset
// and `prisma generate` does not need a database at all.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: {
    path: 'prisma/migrations',
    seed: 'node packages/db/dist/seed-cli.js',
  },
  datasource: {
    url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/rota',
  },
});
