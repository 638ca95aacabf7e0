// A private copy of everything the stack needs: its own Postgres cluster
// (initdb into a temporary directory, on its own port), its own redis-server,
// and the five built apps as child processes whose output is kept in log
// files. Faults are injected into these processes only; the machine's shared
// Postgres and Redis are never touched.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { ROOT, freePort, sleep } from '../../bench/lib/common.mjs';

const require = createRequire(import.meta.url);
const execFileAsync = promisify(execFile);
const PG_BIN = process.env.RELIABILITY_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const NODE = process.execPath;

const live = new Set();
const clusters = new Set();
// Ctrl-C and SIGTERM end the run through the same clean-up as a normal exit.
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130));
process.on('exit', () => {
  for (const pg of clusters) pg.stop();
  for (const p of live) {
    try {
      p.kill('SIGCONT');
      p.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
});

/** initdb refuses to run as root: a root run hands the cluster to the `postgres` user. */
function asPostgres(cmd, args, opts = {}) {
  const root = process.getuid?.() === 0;
  return root ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], opts) : execFileSync(cmd, args, opts);
}

export class OwnPostgres {
  constructor(dir, port) {
    this.dir = dir;
    this.port = port;
    this.data = join(dir, 'data');
  }

  get url() {
    return `postgresql://postgres@127.0.0.1:${this.port}/rota`;
  }

  static async start(dir) {
    const pg = new OwnPostgres(dir, await freePort());
    clusters.add(pg);
    if (process.getuid?.() === 0)
      chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), -1);
    asPostgres(join(PG_BIN, 'initdb'), ['-D', pg.data, '-A', 'trust', '-U', 'postgres', '--no-sync'], {
      stdio: 'ignore',
    });
    pg.ctl('start');
    execFileSync(
      join(PG_BIN, 'psql'),
      ['-h', '127.0.0.1', '-p', String(pg.port), '-U', 'postgres', '-qc', 'CREATE DATABASE rota'],
      { stdio: 'ignore' },
    );
    return pg;
  }

  ctl(action, mode = 'fast') {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300`;
    const args = ['-D', this.data, '-l', join(this.dir, 'postgres.log'), '-w', '-t', '60'];
    if (action === 'stop') args.push('-m', mode);
    if (action === 'restart') args.push('-m', mode, '-o', opts);
    if (action === 'start') args.push('-o', opts);
    asPostgres(join(PG_BIN, 'pg_ctl'), [...args, action], { stdio: 'ignore' });
  }

  /** Restarts the cluster without blocking the event loop (the load keeps running meanwhile). */
  async restart() {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300`;
    const args = [
      '-D',
      this.data,
      '-l',
      join(this.dir, 'postgres.log'),
      '-w',
      '-t',
      '60',
      '-m',
      'fast',
      '-o',
      opts,
      'restart',
    ];
    const root = process.getuid?.() === 0;
    await execFileAsync(
      root ? 'runuser' : join(PG_BIN, 'pg_ctl'),
      root ? ['-u', 'postgres', '--', join(PG_BIN, 'pg_ctl'), ...args] : args,
    );
  }

  stop() {
    try {
      this.ctl('stop', 'immediate');
    } catch {
      /* not running */
    }
  }
}

export class OwnRedis {
  constructor(port) {
    this.port = port;
  }

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start() {
    const r = new OwnRedis(await freePort());
    await r.start();
    return r;
  }

  async start() {
    this.proc = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    live.add(this.proc);
    for (let i = 0; i < 200; i++) {
      try {
        await execFileAsync('redis-cli', ['-p', String(this.port), 'ping']);
        return;
      } catch {
        await sleep(25);
      }
    }
    throw new Error(`redis-server did not start on port ${this.port}`);
  }

  signal(sig) {
    this.proc?.kill(sig);
  }

  async kill() {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise((resolve) => {
      p.once('exit', resolve);
      p.kill('SIGCONT');
      p.kill('SIGKILL');
    });
    live.delete(p);
  }
}

/** One built app as a child process, its stdout and stderr appended to `<logs>/<name>.log`. */
export class App {
  constructor(name, app, env, logDir) {
    this.name = name;
    this.app = app;
    this.env = env;
    this.log = join(logDir, `${name}.log`);
  }

  start() {
    const fd = openSync(this.log, 'a');
    this.proc = spawn(NODE, [join(ROOT, `apps/${this.app}/dist/main.js`)], {
      env: this.env,
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    live.add(this.proc);
    this.proc.once('exit', () => live.delete(this.proc));
    return this;
  }

  get pid() {
    return this.proc?.pid;
  }

  get running() {
    return this.proc && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  signal(sig) {
    this.proc?.kill(sig);
  }

  /** Resolves with the exit code (or signal) once the process is gone. */
  exited() {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return Promise.resolve(p?.exitCode ?? p?.signalCode);
    return new Promise((resolve) => p.once('exit', (code, sig) => resolve(code ?? sig)));
  }

  async stop(timeoutMs = 15_000) {
    if (!this.running) return;
    const gone = this.exited();
    this.proc.kill('SIGTERM');
    const t = setTimeout(() => this.proc.kill('SIGKILL'), timeoutMs);
    await gone;
    clearTimeout(t);
  }

  /** Resident set size in MiB, from /proc. */
  rssMiB() {
    try {
      const line = readFileSync(`/proc/${this.pid}/status`, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('VmRSS:'));
      return Number(line.split(/\s+/)[1]) / 1024;
    } catch {
      return NaN;
    }
  }
}

const dist = (p) => require(join(ROOT, p));

/**
 * The whole private stack. `replicas` says how many processes of each service
 * to start (the gateway is always one, on its own port).
 */
export async function startStack({ replicas = { search: 1, session: 2, router: 1, worker: 1 }, env: extra = {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'rota-reliability-'));
  const logs = join(dir, 'logs');
  execFileSync('mkdir', ['-p', logs]);
  const pg = await OwnPostgres.start(mkdtempSync(join(tmpdir(), 'rota-reliability-pg-')));
  const redis = await OwnRedis.start();
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    ROTA_REDIS_PREFIX: 'rel',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    ROTA_CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    ROTA_PUBLIC_URL: `http://127.0.0.1:${port}`,
    // The fuzzer sends bad keys by the thousand from one address; the limit
    // itself is measured by the attack part with its own settings.
    ROTA_AUTH_FAIL_LIMIT: '0',
    ANTHROPIC_API_KEY: '',
    OPENAI_API_KEY: '',
    ROTA_EMBEDDER: 'local',
    // The faults measure exactly-once embedding across a kill, not the model: the
    // hashing model keeps the re-embedding window short and the same on every
    // machine (the neural model's speed is a catalog benchmark figure).
    ROTA_LOCAL_EMBEDDER: 'hash',
    // The sandbox's providers, and the two local operator entries the tenant attacks call.
    ROTA_PRIVATE_PROVIDERS: [...dist('apps/session/dist/config.js').SANDBOX_PROVIDERS, 'zzrelecho', 'zzrelmoving'].join(
      ',',
    ),
    ...extra,
  };
  const run = (script, args = []) =>
    execFileSync(NODE, [join(ROOT, script), ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  run('packages/db/dist/migrate-cli.js');
  run('packages/db/dist/seed-cli.js');
  // The demo catalog gives sessions real providers to name; a tree whose
  // catalog cannot be seeded still runs everything else, and says so.
  const problems = [];
  try {
    run('packages/cli/dist/main.js', ['catalog', 'seed']);
  } catch (err) {
    problems.push(
      `catalog seed failed: ${String(err.stderr ?? err.message)
        .trim()
        .split('\n')
        .pop()}`,
    );
  }

  const apps = [];
  for (const [app, n] of Object.entries(replicas))
    for (let i = 1; i <= n; i++) apps.push(new App(`${app}-${i}`, app, env, logs).start());
  const gateway = new App('gateway', 'gateway', env, logs).start();
  apps.push(gateway);
  const stack = {
    dir,
    logs,
    problems,
    pg,
    redis,
    env,
    apps,
    gateway,
    base: `http://127.0.0.1:${port}`,
    byApp: (name) => apps.filter((a) => a.app === name),
    /** Waits until `/health/ready` answers 200; returns the time it took in ms. */
    async ready(timeoutMs = 60_000) {
      const t0 = Date.now();
      while (Date.now() - t0 < timeoutMs) {
        try {
          const r = await fetch(`${this.base}/health/ready`, { signal: AbortSignal.timeout(2000) });
          if (r.status === 200) return Date.now() - t0;
        } catch {
          /* not yet */
        }
        await sleep(100);
      }
      throw new Error(`stack not ready after ${timeoutMs} ms; logs in ${logs}`);
    },
    /** Replaces a dead app with a fresh process of the same name. */
    restart(app) {
      app.start();
    },
    async close({ keep = false } = {}) {
      for (const a of apps) {
        a.signal('SIGCONT');
        await a.stop(5000);
      }
      await redis.kill();
      pg.stop();
      if (!keep) {
        rmSync(dir, { recursive: true, force: true });
        rmSync(pg.dir, { recursive: true, force: true });
      }
    },
  };
  await stack.ready(90_000);
  return stack;
}

/** A pg client on the private database; the caller ends it. */
export async function pgClient(url) {
  const pg = require(join(ROOT, 'bench/node_modules/pg'));
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

/** Every subset of `xs` but the empty one. */
export function subsets(xs) {
  const out = [];
  for (let m = 1; m < 1 << xs.length; m++) out.push(xs.filter((_, i) => m & (1 << i)));
  return out;
}

/**
 * API keys for the run: a key for every combination of project scopes in the
 * dev project (live), the same in a second project and in the test
 * environment for isolation checks, operator keys when the deployment has
 * them, and one revoked key. Every plain key is remembered for the secrets grep.
 */
export async function makeKeys(stack) {
  const db = dist('packages/db/dist/index.js');
  const contracts = dist('packages/contracts/dist/index.js');
  const prisma = db.createPrisma(stack.env.DATABASE_URL, { poolMax: 2 });
  const keys = new db.ApiKeyRepository(prisma);
  const projects = new db.ProjectRepository(prisma);
  const projectScopes = contracts.PROJECT_SCOPES ?? contracts.SCOPES;
  const plain = [];
  const mk = async (input) => {
    const k = await keys.create(input);
    plain.push(k.key);
    return { ...k, scopes: [...input.scopes] };
  };
  try {
    const other = await projects.create({ orgId: db.DEV_ORG_ID, name: 'reliability-other' });
    const combos = [];
    for (const scopes of subsets([...projectScopes]))
      combos.push(await mk({ projectId: db.DEV_PROJECT_ID, environment: 'live', scopes }));
    const all = [...projectScopes];
    const operator = [];
    if (contracts.OPERATOR_SCOPES) {
      for (const scopes of subsets([...contracts.OPERATOR_SCOPES]).filter((s) => s.includes('admin')))
        operator.push(await mk({ operator: true, scopes }));
    }
    const revoked = await mk({ projectId: db.DEV_PROJECT_ID, environment: 'live', scopes: all });
    await keys.revoke(revoked.id);
    return {
      scopes: [...contracts.SCOPES],
      projectScopes: all,
      combos,
      operator,
      full: combos.find((k) => k.scopes.length === all.length),
      test: await mk({ projectId: db.DEV_PROJECT_ID, environment: 'test', scopes: all }),
      otherProject: await mk({ projectId: other.id, environment: 'live', scopes: all }),
      revoked: revoked.key,
      plain,
    };
  } finally {
    await prisma.$disconnect();
  }
}

/** Table names of the private database (Prisma's migration bookkeeping excluded). */
export async function tableCounts(client, skip = []) {
  const { rows } = await client.query(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_%' ORDER BY 1",
  );
  const out = {};
  for (const { table_name: t } of rows) {
    if (skip.includes(t)) continue;
    out[t] = Number((await client.query(`SELECT count(*)::int AS n FROM "${t}"`)).rows[0].n);
  }
  return out;
}

export function readLogs(stack) {
  if (!existsSync(stack.logs)) return [];
  return readdirSync(stack.logs).map((f) => ({ name: f, text: readFileSync(join(stack.logs, f), 'utf8') }));
}

/** The demo catalog with its sandbox placeholder filled in, as the seed does (the import refuses it otherwise). */
export function demoCatalogText() {
  const { substituteSandboxUrl, sandboxUrlFromEnv } = require(join(ROOT, 'packages/catalog/dist/index.js'));
  return substituteSandboxUrl(
    readFileSync(join(ROOT, 'packages/catalog/data/demo-catalog.json'), 'utf8'),
    sandboxUrlFromEnv(),
  );
}
