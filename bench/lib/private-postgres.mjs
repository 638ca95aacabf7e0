// A Postgres cluster of the benchmark's own, configured like the one
// docker-compose.yml runs (shared_buffers from POSTGRES_SHARED_BUFFERS, 1 GB by
// default; everything else at Postgres's defaults), holding a copy of one
// database of the machine's shared instance. The shared instance keeps
// Debian's 128 MB of shared buffers, which a 100,000-tool HNSW index (about
// 8 KB per tool) does not fit in; a deployment sizes them to its catalog.
//
// The cluster lives in $TMPDIR/rota-bench-pg and is kept (stopped) between
// runs: the copy is made again only when the source database's comment (the
// benchmark's recipe fingerprint) changes. initdb and pg_ctl refuse to run as
// root, so a root run hands the cluster to the `postgres` user.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './common.mjs';

const PG_BIN = process.env.BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const root = process.getuid?.() === 0;
const asPostgres = (cmd, args, opts = {}) =>
  execFileSync(root ? 'runuser' : cmd, root ? ['-u', 'postgres', '--', cmd, ...args] : args, {
    stdio: 'ignore',
    ...opts,
  });

/** Whether this machine can run a private cluster (the server binaries are there). */
export function privatePostgresAvailable() {
  return existsSync(join(PG_BIN, 'initdb')) && existsSync(join(PG_BIN, 'pg_ctl'));
}

/**
 * Starts the private cluster with a copy of `database` from `sourceUrl` (made
 * when missing or stale) and returns its URL and a `stop()`.
 */
export async function privatePostgres(
  sourceUrl,
  database,
  { sharedBuffers = process.env.POSTGRES_SHARED_BUFFERS || '1GB', log = console.log } = {},
) {
  const dir = join(tmpdir(), 'rota-bench-pg');
  const data = join(dir, 'data');
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  if (root) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), -1);
  if (!existsSync(join(data, 'PG_VERSION')))
    asPostgres(join(PG_BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const ctl = (action, extra = []) =>
    asPostgres(join(PG_BIN, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'postgres.log'),
      '-w',
      '-t',
      '120',
      ...extra,
      action,
    ]);
  ctl('start', ['-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c shared_buffers=${sharedBuffers}`]);
  const url = `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const stop = () => {
    try {
      ctl('stop', ['-m', 'fast']);
    } catch {
      /* already stopped */
    }
  };
  try {
    const source = new URL(sourceUrl);
    const src = [
      '-h',
      source.hostname,
      '-p',
      source.port || '5432',
      '-U',
      decodeURIComponent(source.username || 'postgres'),
    ];
    const fingerprint = execFileSync(
      join(PG_BIN, 'psql'),
      [
        ...src,
        '-d',
        'postgres',
        '-Atc',
        `SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = '${database}'`,
      ],
      {
        encoding: 'utf8',
      },
    ).trim();
    const stamp = join(dir, `${database}.fingerprint`);
    const current = existsSync(stamp) ? readFileSync(stamp, 'utf8') : '';
    if (!fingerprint || current !== fingerprint) {
      log(
        `copying ${database} into a private Postgres (shared_buffers ${sharedBuffers}); once per build of the database`,
      );
      const t0 = Date.now();
      const dst = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'];
      execFileSync(join(PG_BIN, 'psql'), [...dst, '-d', 'postgres', '-qc', `DROP DATABASE IF EXISTS "${database}"`], {
        stdio: 'ignore',
      });
      execFileSync(join(PG_BIN, 'psql'), [...dst, '-d', 'postgres', '-qc', `CREATE DATABASE "${database}"`], {
        stdio: 'ignore',
      });
      // The index builds of the restore get memory of their own (the HNSW graph is built in memory); the server's settings stay as configured.
      const dump = spawnSync(
        'bash',
        [
          '-o',
          'pipefail',
          '-c',
          `"${join(PG_BIN, 'pg_dump')}" "$@" -Fc -d "${database}" | PGOPTIONS='-c maintenance_work_mem=2GB' "${join(PG_BIN, 'pg_restore')}" --no-owner -h 127.0.0.1 -p ${port} -U postgres -d "${database}"`,
          'dump',
          ...src,
        ],
        {
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      if (dump.status !== 0) throw new Error(`copying ${database} failed (exit ${dump.status})`);
      execFileSync(join(PG_BIN, 'psql'), [...dst, '-d', database, '-qc', 'VACUUM ANALYZE'], { stdio: 'ignore' });
      writeFileSync(stamp, fingerprint);
      log(`  copied in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
    return { url, port, stop, sharedBuffers };
  } catch (err) {
    stop();
    throw err;
  }
}
