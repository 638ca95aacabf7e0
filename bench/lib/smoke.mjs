// `pnpm bench --smoke`: every suite at a tiny size, so CI proves each one
// still runs end to end (its figures mean nothing at these sizes). Imported
// first by run.mjs: the suites read their sizes when their modules load.
// A variable already set wins, so one suite can still be sized by hand.
export const SMOKE = process.argv.includes('--smoke');

const SIZES = {
  BENCH_SECONDS: '1',
  BENCH_ROUNDS: '1',
  BENCH_CATALOG_TOOLS: '300',
  BENCH_CATALOG_LOCAL_TOOLS: '200',
  BENCH_CATALOG_LOCAL_REPLICAS: '1',
  BENCH_DISCOVER_TOOLS: '500',
  BENCH_DISCOVER_ROUNDS: '1',
  BENCH_DISCOVER_EF: '80',
  BENCH_DISCOVER_POSTGRES: 'shared',
  BENCH_HEALTH_CYCLES: '3',
  BENCH_LOGS_ROUNDS: '1',
  BENCH_LOGS_PER_ROUND: '10',
  BENCH_LOGS_DELIVERIES: '10',
  BENCH_OAUTH_CALLS: '20',
  BENCH_OAUTH_SECONDS: '1',
  BENCH_POLICY_CONNECTIONS: '4',
  BENCH_POLICY_ITERATIONS: '200',
  BENCH_PROVIDER_CALLS: '10',
  BENCH_RAIL_CALLS: '10',
  BENCH_SESSIONS_CONNECTIONS: '2',
  BENCH_WORK_REQUESTS: '50',
  BENCH_WORK_ITERATIONS: '1000',
};

if (SMOKE) for (const [name, value] of Object.entries(SIZES)) process.env[name] ??= value;
