// `pnpm bench`: runs every benchmark in order and prints its figures.
// Needs a build (`pnpm build`) and the machine's Postgres and Redis.
import { roundTrip, replicas } from './transport.mjs';

const only = process.argv[2];
const suites = { transport: async () => { await roundTrip(); await replicas(); } };
console.log(`Rota benchmarks on ${(await import('node:os')).cpus().length} cores, node ${process.version}`);
for (const [name, fn] of Object.entries(suites)) {
  if (only && only !== name) continue;
  await fn();
}
process.exit(0);
