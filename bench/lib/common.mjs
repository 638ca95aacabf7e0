// Helpers shared by the benchmark scripts: child processes, load, formatting.
import { fork, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The shared data folder beside the checkout; `ROTA_SHARED_DIR` points elsewhere (a worktree kept in another folder). */
export const SHARED = process.env.ROTA_SHARED_DIR ?? join(ROOT, '..', 'shared');
const require = createRequire(import.meta.url);

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export function benchPrefix(label) {
  return `rota-bench-${label}-${process.pid}-${Math.random().toString(36).slice(2, 7)}`;
}

/** Starts a compiled app (`apps/<name>/dist/main.js`) or any script; resolves when `ready()` says so. */
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

export async function startProcess(script, env, ready) {
  // BENCH_CHILD_ARGS passes Node flags to every app a benchmark starts (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const flags = process.env.BENCH_CHILD_ARGS ? process.env.BENCH_CHILD_ARGS.split(' ').filter(Boolean) : [];
  const proc = spawn(process.execPath, [...flags, script], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(proc);
  proc.once('exit', () => children.delete(proc));
  const t0 = Date.now();
  while (Date.now() - t0 < 30_000) {
    if (proc.exitCode !== null) throw new Error(`${script} exited with ${proc.exitCode}`);
    if (await ready().catch(() => false)) return proc;
    await sleep(100);
  }
  proc.kill('SIGKILL');
  throw new Error(`${script} did not become ready`);
}

export function forkReplica(name, env) {
  return new Promise((resolve, reject) => {
    const proc = fork(join(ROOT, 'packages/service-kit/dist/testing/replica-main.js'), [], {
      env: { ...process.env, ...env, REPLICA_NAME: name, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.add(proc);
    proc.once('exit', () => children.delete(proc));
    proc.on('message', (m) => m.ready && resolve(proc));
    proc.once('exit', (c) => reject(new Error(`replica exited ${c}`)));
  });
}

export async function stop(proc) {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  await new Promise((resolve) => {
    proc.once('exit', resolve);
    proc.kill('SIGTERM');
    setTimeout(() => proc.kill('SIGKILL'), 5000).unref();
  });
}

/** Calls `fn(i)` one at a time (20 warm-up calls, then `n` timed ones) and returns p50 and p95 in ms. */
export async function sequential(fn, n) {
  return (await interleaved([fn], n))[0];
}

/**
 * Times several calls taking turns: each round runs every function once, in
 * order, after 20 untimed rounds. Returns p50 and p95 per function.
 */
export async function interleaved(fns, n) {
  for (let i = 0; i < 20; i++) for (const fn of fns) await fn(i);
  const ms = fns.map(() => []);
  for (let i = 0; i < n; i++) {
    for (const [k, fn] of fns.entries()) {
      const t0 = performance.now();
      await fn(i);
      ms[k].push(performance.now() - t0);
    }
  }
  return ms.map((xs) => {
    xs.sort((a, b) => a - b);
    return { p50: xs[Math.floor(n * 0.5)], p95: xs[Math.floor(n * 0.95)] };
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs autocannon; returns requests/s and latency percentiles in ms. */
export async function load({ url, method = 'GET', body, headers = {}, connections, seconds }) {
  const opts = { url, method, connections, duration: seconds, headers: { ...headers }, pipelining: 1 };
  if (body !== undefined) {
    opts.body = typeof body === 'string' ? body : JSON.stringify(body);
    opts.headers['content-type'] = 'application/json';
  }
  // Warm up JIT and connection pools before measuring.
  await autocannon({ ...opts, duration: 1 });
  const r = await autocannon(opts);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx answers and ${r.errors} errors`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total };
}

export const fmt = (n, d = 1) => (typeof n === 'number' ? n.toFixed(d) : String(n));

export function table(rows) {
  const cols = Object.keys(rows[0]);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (vals) => vals.map((v, i) => String(v).padEnd(widths[i])).join('  ');
  console.log(line(cols));
  for (const r of rows) console.log(line(cols.map((c) => r[c])));
}

/**
 * The sandbox provider server and a test database seeded with the demo
 * catalog pointing at it, a test key able to connect and execute, and the
 * environment the apps run with (gateway on `port`). `services` are started
 * from their dist, then the gateway through bench/lib/gateway-child.cjs.
 * `close()` stops everything it started.
 */
export async function sandboxStack(label, services) {
  const { createTestDatabase, seed, ApiKeyRepository } = require(join(ROOT, 'packages/db/dist/index.js'));
  const { seedDemoCatalog } = require(join(ROOT, 'packages/catalog/dist/index.js'));
  const { startSandbox } = require(join(ROOT, 'apps/sandbox/dist/index.js'));
  const sandbox = await startSandbox({ port: 0 });
  const db = await createTestDatabase();
  const procs = [];
  const close = async () => {
    for (const p of procs.reverse()) await stop(p);
    await db.drop();
    await sandbox.close();
  };
  try {
    await seed(db.prisma, { providerCatalog: (p) => seedDemoCatalog(p, { sandboxUrl: sandbox.url }) });
    const { key } = await new ApiKeyRepository(db.prisma).create({
      projectId: 'proj_dev',
      environment: 'test',
      scopes: ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'],
    });
    const port = await freePort();
    const env = appEnv(label, db.url, port, { ROTA_LOCAL_EMBEDDER: 'hash' });
    const base = await startApps(services, env, procs);
    return { sandbox, db, key, env, base, procs, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * What the apps of a benchmark run with: its own database and Redis prefix,
 * the gateway on `port`, no LLM, warnings only, and development mode (a
 * throwaway database, so the built-in credentials key will do); `extra` adds
 * or overrides.
 */
export function appEnv(label, databaseUrl, port, extra = {}) {
  return {
    DATABASE_URL: databaseUrl,
    ROTA_REDIS_PREFIX: benchPrefix(label),
    PORT: String(port),
    HOST: '127.0.0.1',
    ANTHROPIC_API_KEY: '',
    LOG_LEVEL: 'warn',
    ROTA_DEV_MODE: 'true',
    ...extra,
  };
}

/**
 * Starts `services` from their dist, then the gateway (bench/lib/gateway-child.cjs,
 * ready once a request crosses the transport), pushing each process onto
 * `procs` for the caller to stop. Returns the gateway's base URL.
 */
export async function startApps(services, env, procs) {
  const base = `http://127.0.0.1:${env.PORT}`;
  for (const app of services)
    procs.push(await startProcess(join(ROOT, `apps/${app}/dist/main.js`), env, async () => true));
  procs.push(
    await startProcess(
      join(ROOT, 'bench/lib/gateway-child.cjs'),
      env,
      async () => (await fetch(`${base}/bench/transport`)).ok,
    ),
  );
  return base;
}
