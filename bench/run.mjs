// `pnpm bench [--smoke] [suite]`: runs the benchmarks in order and prints their figures.
// Needs a build (`pnpm build`), Postgres and Redis (scripts/up.sh gives all three).
// --smoke runs each suite at a tiny size (CI runs it so no suite can rot unnoticed).
import { SMOKE } from './lib/smoke.mjs';
import { cpus } from 'node:os';
import { catalog } from './catalog.mjs';
import { cliBench } from './cli.mjs';
import { discoverBench } from './discover.mjs';
import { pathA } from './path-a.mjs';
import { pathC } from './path-c.mjs';
import { policyBench } from './policy.mjs';
import { sessionsBench } from './sessions.mjs';
import { providersBench } from './providers.mjs';
import { railsBench } from './rails.mjs';
import { oauthReuseBench } from './oauth-reuse.mjs';
import { logsBench } from './logs.mjs';
import { healthWebhooksBench } from './health-webhooks.mjs';
import { replicas, roundTrip } from './transport.mjs';

const suites = {
  transport: async () => {
    await roundTrip();
    await replicas();
  },
  'path-a': pathA,
  'path-c': pathC,
  catalog,
  discover: discoverBench,
  sessions: sessionsBench,
  providers: providersBench,
  rails: railsBench,
  oauth: oauthReuseBench,
  policy: policyBench,
  logs: logsBench,
  health: healthWebhooksBench,
  cli: cliBench,
};
const only = process.argv.slice(2).find((a) => !a.startsWith('--'));
if (only && !suites[only]) {
  console.error(`unknown suite ${only}; one of: ${Object.keys(suites).join(', ')}`);
  process.exit(2);
}
console.log(
  `Rota benchmarks on ${cpus().length} cores, node ${process.version}${SMOKE ? ' (smoke sizes: the figures mean nothing)' : ''}`,
);
for (const [name, fn] of Object.entries(suites)) if (!only || only === name) await fn();
process.exit(0);
