import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentEmbeddingModel, seedDemoCatalog } from '@rota/catalog';
import { createPrisma, migrate, seed, type PrismaClient } from '@rota/db';
import { createLogger, loadConfig } from '@rota/service-kit';
import { testPrefix } from '@rota/service-kit/testing/redis-server';
import { CanaryController } from '../apps/session/src/credentials/canary.controller';
import { CanaryRepository } from '../apps/session/src/credentials/canary.repository';
import { keyringFromEnv } from '../apps/session/src/credentials/keyring';
import { WorkerConfig } from '../apps/worker/src/config';
import { createHealthService } from '../apps/worker/src/health/create';
import { createJobRunner } from '../apps/worker/src/jobs/create-runner';
import type { JobRunner } from '../apps/worker/src/jobs/runner';

jest.setTimeout(180_000);

const PG_BIN = process.env.RELIABILITY_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const root = process.getuid?.() === 0;
/** initdb and pg_ctl refuse to run as root: a root run hands the cluster to `postgres`. */
const asPostgres = (cmd: string, args: string[]) =>
  execFileSync(root ? 'runuser' : cmd, root ? ['-u', 'postgres', '--', cmd, ...args] : args, { stdio: 'ignore' });

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A Postgres cluster of this test's own, so stopping it touches nobody else. */
class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get url() {
    return `postgresql://postgres@127.0.0.1:${this.port}/rota`;
  }

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'rota-health-pg-'));
    if (root) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), -1);
    const pg = new PrivatePostgres(dir, await freePort());
    asPostgres(join(PG_BIN, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
    pg.ctl('start');
    execFileSync(
      join(PG_BIN, 'psql'),
      ['-h', '127.0.0.1', '-p', String(pg.port), '-U', 'postgres', '-qc', 'CREATE DATABASE rota'],
      { stdio: 'ignore' },
    );
    return pg;
  }

  ctl(action: 'start' | 'stop') {
    const args = ['-D', join(this.dir, 'data'), '-l', join(this.dir, 'postgres.log'), '-w', '-t', '60'];
    if (action === 'start')
      args.push('-o', `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`);
    else args.push('-m', 'immediate');
    asPostgres(join(PG_BIN, 'pg_ctl'), [...args, action]);
  }

  remove() {
    try {
      this.ctl('stop');
    } catch {
      /* already stopped */
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('health rollup across a database outage (a private Postgres stopped and started)', () => {
  let pg: PrivatePostgres;
  let prisma: PrismaClient;
  let runner: JobRunner;

  beforeAll(async () => {
    pg = await PrivatePostgres.start();
    await migrate(pg.url);
    prisma = createPrisma(pg.url, { poolMax: 4 });
    const env = {
      ...process.env,
      DATABASE_URL: pg.url,
      ROTA_REDIS_PREFIX: testPrefix('health-outage'),
      ROTA_LOCAL_EMBEDDER: 'hash',
      LOG_LEVEL: 'silent',
      ROTA_HEALTH_INTERVAL_S: '3600',
      ROTA_HEALTH_CHECK_TIMEOUT_MS: '1500',
      ROTA_EVENTS_DISPATCH_EVERY_MS: '60000',
    };
    const config = loadConfig(WorkerConfig, env);
    const model = currentEmbeddingModel(env);
    await seed(prisma, { providerCatalog: (p) => seedDemoCatalog(p, { model }) });
    // The credential-store check as the session service answers it, with the development keyring.
    const canary = new CanaryController(keyringFromEnv({ ROTA_DEV_MODE: true }), new CanaryRepository(prisma));
    const health = createHealthService(config, prisma, model, createLogger('worker', 'silent'), () => canary.check({}));
    runner = createJobRunner(config, prisma, { health });
    // The runner embeds the demo catalog on start (the hashing embedder).
    await runner.start();
  });

  afterAll(async () => {
    await runner?.close();
    await prisma?.$disconnect();
    pg?.remove();
  });

  const health = () => (runner as unknown as { deps: { health: ReturnType<typeof createHealthService> } }).deps.health;
  const events = () =>
    prisma.$queryRaw<
      Array<{ type: string; payload: { status: string; previous_status: string | null; scope: string } }>
    >`
      SELECT type, payload FROM events WHERE project_id IS NULL ORDER BY created_at, id`;

  it('is healthy, then down while Postgres is stopped, then healthy again, paging each change once', async () => {
    // Healthy needs the catalog embedded and no FX configured.
    for (let i = 0; i < 200; i++) {
      if ((await health().report(undefined)).checks.embeddings.status === 'ok') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await health().evaluateAll()).status).toBe('healthy');
    const before = (await events()).length;

    pg.ctl('stop');
    const during = await health().report(undefined);
    expect(during.status).toBe('down');
    expect(during.checks.database).toMatchObject({ ok: false, status: 'down' });
    expect(during.checks.credentials.ok).toBe(false);
    // The scheduled evaluation sees the outage, and cannot store it yet.
    expect((await health().evaluateAll()).status).toBe('down');

    pg.ctl('start');
    const after = await health().evaluateAll();
    expect(after.status).toBe('healthy');
    // The outage and the recovery are both paged, once each, even though the outage was never stored while it lasted.
    expect(after.transitions).toBe(2);
    const paged = (await events()).slice(before);
    expect(paged.map((e) => [e.type, e.payload.previous_status, e.payload.status])).toEqual([
      ['system.health.degraded', 'healthy', 'down'],
      ['system.health.recovered', 'down', 'healthy'],
    ]);
    expect((await health().evaluateAll()).transitions).toBe(0);
    expect((await events()).length).toBe(before + 2);
  });
});
