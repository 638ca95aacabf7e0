// Foundation benchmark.
// 1. Gateway round trip through the Redis Streams transport versus the same
//    handler answered inside the gateway (1 and 50 concurrent).
// 2. One versus two replicas of a CPU-bound handler: share and throughput.
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, benchPrefix, fmt, forkReplica, freePort, load, startProcess, stop, table } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const { RedisStreamsClient } = require(join(ROOT, 'packages/service-kit/dist/transport/client.js'));
const { firstValueFrom } = require('rxjs');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function roundTrip() {
  const prefix = benchPrefix('rt');
  const port = await freePort();
  const env = { ROTA_REDIS_PREFIX: prefix, PORT: String(port), REDIS_URL };
  const base = `http://127.0.0.1:${port}`;
  const search = await startProcess(join(ROOT, 'apps/search/dist/main.js'), env, async () => true);
  const gateway = await startProcess(
    join(ROOT, 'bench/lib/gateway-child.cjs'),
    env,
    async () => (await fetch(`${base}/bench/transport`)).ok,
  );
  const rows = [];
  const results = {};
  try {
    for (const c of [1, 50]) {
      const local = await load({ url: `${base}/bench/local`, connections: c, seconds: SECONDS });
      const rpc = await load({ url: `${base}/bench/transport`, connections: c, seconds: SECONDS });
      results[c] = { local, rpc };
      rows.push({
        concurrency: c,
        route: 'inside gateway',
        'req/s': fmt(local.rps, 0),
        'p50 ms': local.p50,
        'p99 ms': local.p99,
        ratio: '1.00',
      });
      rows.push({
        concurrency: c,
        route: 'via transport',
        'req/s': fmt(rpc.rps, 0),
        'p50 ms': rpc.p50,
        'p99 ms': rpc.p99,
        ratio: fmt(rpc.rps / local.rps, 2),
      });
    }
  } finally {
    await stop(gateway);
    await stop(search);
  }
  console.log('\n## Gateway round trip: transport vs handler inside the gateway');
  table(rows);
  return results;
}

async function driveWork(client, total, concurrency, iterations) {
  const byReplica = {};
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const r = await firstValueFrom(
          client.send('fixture.work', { payload: { iterations }, requestId: 'bench', timeoutMs: 30_000 }),
        );
        byReplica[r.replica] = (byReplica[r.replica] ?? 0) + 1;
      }
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, byReplica };
}

export async function replicas() {
  const total = Number(process.env.BENCH_WORK_REQUESTS ?? 1500);
  const iterations = Number(process.env.BENCH_WORK_ITERATIONS ?? 300_000);
  const rows = [];
  const out = {};
  for (const n of [1, 2]) {
    const prefix = benchPrefix('rep');
    const procs = [];
    for (let i = 0; i < n; i++) procs.push(await forkReplica(`r${i + 1}`, { REDIS_URL, ROTA_REDIS_PREFIX: prefix }));
    const client = new RedisStreamsClient({ url: REDIS_URL, prefix, timeoutMs: 30_000 });
    await client.connect();
    try {
      await driveWork(client, 50, 8, iterations);
      const r = await driveWork(client, total, 16, iterations);
      out[n] = { rps: total / r.seconds, byReplica: r.byReplica };
      const share = Object.entries(r.byReplica)
        .sort()
        .map(([k, v]) => `${k}=${fmt((100 * v) / total, 0)}%`)
        .join(' ');
      rows.push({
        replicas: n,
        requests: total,
        'req/s': fmt(out[n].rps, 0),
        share,
        'vs 1 replica': fmt(out[n].rps / out[1].rps, 2),
      });
    } finally {
      await client.close();
      for (const p of procs) await stop(p);
    }
  }
  console.log(`\n## CPU-bound handler (${iterations} iterations per request): 1 vs 2 replicas`);
  table(rows);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await roundTrip();
  await replicas();
  process.exit(0);
}
