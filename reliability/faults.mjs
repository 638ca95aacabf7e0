// Faults under mixed load, one after the other on the private stack: a
// session replica SIGKILLed, a replica SIGSTOPped 5 s, Redis SIGKILLed and
// restarted (empty: it keeps no data), Redis SIGSTOPped 2 s, Postgres
// restarted, the gateway SIGTERMed and started again, and the worker
// SIGKILLed while it embeds a fresh import. For each: what the load was
// answered, whether anything hung past its deadline, whether a request
// answered `unavailable` ran anyway, whether a 2xx was lost, how long until
// every kind of request succeeded again, and whether the worker's job
// schedulers survived.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, sleep } from '../bench/lib/common.mjs';
import { pgClient, demoCatalogText } from './lib/infra.mjs';
import { bearer, send } from './lib/http.mjs';
import { reconcile, recoveryMs, startLoad } from './lib/load.mjs';
import { fmtTally, tally } from './lib/report.mjs';

const F = 'faults';
const require = createRequire(import.meta.url);

/**
 * Every scheduler the stack's worker keeps, from the worker's own list (its
 * build, like the apps this suite starts), so one added there is checked here
 * without a change.
 */
function expectedSchedulers(env) {
  const built = join(ROOT, 'apps/worker/dist/jobs/schedulers.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: run \`pnpm build\` first`);
  return require(built).expectedSchedulers(env);
}

/** BullMQ keeps job schedulers in a sorted set `<prefix>:<queue>:repeat`. */
function schedulers(stack) {
  try {
    const cli = (...a) => execFileSync('redis-cli', ['-p', String(stack.redis.port), ...a], { encoding: 'utf8' });
    const sets = cli('--scan', '--pattern', '*:repeat').split('\n').filter(Boolean);
    return new Set(sets.flatMap((k) => cli('ZRANGE', k, '0', '-1').split('\n').filter(Boolean)));
  } catch {
    return new Set();
  }
}

async function waitFor(fn, timeoutMs) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (await fn().catch(() => false)) return Date.now() - t0;
    await sleep(200);
  }
  return NaN;
}

/** A copy of the demo catalog under new ids, so the worker has fresh tools to embed. */
function freshCatalog(tag, copies) {
  const doc = JSON.parse(demoCatalogText());
  const servers = [];
  for (let i = 0; i < copies; i++)
    for (const s of doc.servers) servers.push({ ...s, id: `${s.id}-${tag}${i}`, name: `${s.name} ${tag}${i}` });
  return { ...doc, servers };
}

export async function faults(stack, keys, report, fx, { seconds, ci }) {
  const schedulerIds = expectedSchedulers(stack.env);
  let db;
  const [session1, session2] = stack.byApp('session');
  const worker = stack.byApp('worker')[0];
  const gateway = stack.gateway;
  const importer = keys.operator.find((k) => k.scopes.includes('catalog:write')) ?? keys.full;

  const plan = [
    {
      name: 'session replica SIGKILL',
      finding: '#1c (killed after commit, before reply)',
      act: async () => {
        session1.signal('SIGKILL');
        await session1.exited();
        const lifted = Date.now();
        await sleep(seconds * 1000);
        session1.start();
        return lifted;
      },
    },
    {
      name: 'session replica SIGSTOP 5 s',
      finding: '#1a (stalled replica runs entries a peer answered 503)',
      act: async () => {
        session2.signal('SIGSTOP');
        await sleep(5000);
        session2.signal('SIGCONT');
        return Date.now();
      },
    },
    {
      name: 'Redis SIGKILL + restart',
      finding: '#3 (schedulers vanish with Redis)',
      act: async () => {
        await stack.redis.kill();
        await sleep(1000);
        await stack.redis.start();
        return Date.now();
      },
    },
    {
      name: 'Redis SIGSTOP 2 s',
      finding: '#1b (XADD timed out, then applied)',
      act: async () => {
        stack.redis.signal('SIGSTOP');
        await sleep(2000);
        stack.redis.signal('SIGCONT');
        return Date.now();
      },
    },
    {
      name: 'Postgres restart',
      finding: '#4 (Postgres outage answered 500 internal)',
      act: async () => {
        await stack.pg.restart();
        return Date.now();
      },
    },
    {
      name: 'gateway SIGTERM + start',
      finding: '#2/#5 (drain race, Fastify default 503 bodies)',
      act: async () => {
        gateway.signal('SIGTERM');
        await gateway.exited();
        gateway.start();
        return Date.now();
      },
    },
    {
      name: 'worker SIGKILL mid-embedding',
      finding: 'tools left without a vector',
      act: async (ctx) => {
        ctx.embeddedBefore =
          (await send(stack.base, { path: '/v1/catalog/status', headers: bearer(keys.full.key) })).json?.embedded ?? 0;
        const doc = freshCatalog('rel', ci ? 3 : 30);
        const r = await send(stack.base, {
          method: 'POST',
          path: '/v1/catalog/import',
          headers: { ...bearer(importer.key), 'content-type': 'application/json' },
          body: JSON.stringify(doc),
          timeoutMs: 120_000,
        });
        ctx.imported = r.json?.tools?.created ?? 0;
        ctx.importStatus = r.status;
        // Kill as soon as the worker has started on the batches (or after 2 s if it never shows).
        ctx.killedAt = await (async () => {
          const t0 = Date.now();
          while (Date.now() - t0 < 2000) {
            const st = (await send(stack.base, { path: '/v1/catalog/status', headers: bearer(keys.full.key) })).json;
            if (st && st.embedded > ctx.embeddedBefore && st.stale > 0) return `${st.embedded}/${st.tools} embedded`;
            await sleep(30);
          }
          return 'before any batch showed';
        })();
        worker.signal('SIGKILL');
        await worker.exited();
        await sleep(1000);
        worker.start();
        const lifted = Date.now();
        ctx.embedMs = await waitFor(
          async () =>
            (await send(stack.base, { path: '/v1/catalog/status', headers: bearer(keys.full.key) })).json?.coverage ===
            1,
          120_000,
        );
        return lifted;
      },
    },
  ];

  const rows = [];
  try {
    for (const fault of plan) {
      await stack.ready(60_000);
      await sleep(1000);
      // A fresh connection each time: the Postgres fault ends the previous one.
      await db?.end().catch(() => undefined);
      db = await pgClient(stack.env.DATABASE_URL);
      const load = startLoad(stack, keys.full, fx);
      await sleep(1500);
      const ctx = {};
      const from = load.mark();
      const lifted = await fault.act(ctx);
      await sleep(seconds * 1000);
      // The load runs on until the stack is ready again, and a little after,
      // so a process that takes longer than the window to come back (a
      // gateway starting on a busy 2-core machine) is measured, not cut off.
      const readyMs = await stack.ready(60_000).catch(() => NaN);
      await sleep(1500);
      const records = (await load.stop()).slice(from);
      await sleep(500);
      await db.end().catch(() => undefined);
      db = await pgClient(stack.env.DATABASE_URL);
      const { unavailableButRan, lost, examples } = await reconcile(db, records).catch(() => ({
        unavailableButRan: NaN,
        lost: NaN,
        examples: [],
      }));
      const hung = records.filter((r) => r.status === -1).length;
      const internal = records.filter((r) => r.status === 500).length;
      const present = schedulers(stack);
      const missing = schedulerIds.filter((s) => ![...present].some((p) => p.includes(s)));
      const rec = recoveryMs(records, lifted);
      const maxMs = Math.max(0, ...records.map((r) => r.ms));
      const statuses = fmtTally(
        tally(
          records.map((r) =>
            r.status >= 400 || r.status <= 0 ? `${r.status}${r.code ? `:${r.code}` : ''}` : r.status,
          ),
        ),
      );
      rows.push({
        fault: fault.name,
        requests: records.length,
        statuses,
        maxMs,
        hung,
        unavailableButRan,
        lost,
        rec,
        missing,
        internal,
        examples,
        ctx,
        readyMs,
      });
      const n = fault.name;
      report.add(F, `${n}: requests, statuses`, `${records.length}: ${statuses}`);
      report.add(
        F,
        `${n}: max latency / recovery (ms)`,
        `${maxMs.toFixed(0)} / ${Number.isNaN(rec) ? 'never' : rec.toFixed(0)}`,
        {
          target: 'recovers',
          ok: !Number.isNaN(rec),
          finding: `still failing at the end of the window: ${fault.finding}`,
        },
      );
      report.add(
        F,
        `${n}: hung / ran but answered unavailable / 2xx lost`,
        `${hung} / ${unavailableButRan} / ${lost}`,
        {
          target: '0 / 0 / 0',
          ok: hung === 0 && unavailableButRan === 0 && lost === 0,
          finding: `${unavailableButRan ? `#1 (503 unavailable, yet it ran: ${examples.join(' ')})` : ''}${hung ? ' hung past deadline' : ''}${lost ? ' 2xx without its row' : ''}`,
        },
      );
      report.add(F, `${n}: 500 answers`, internal, {
        target: '0',
        ok: internal === 0,
        finding: '#4 (connection errors answered 500 internal)',
      });
      report.add(
        F,
        `${n}: schedulers present after`,
        missing.length ? `missing ${missing.join(', ')}` : schedulerIds.join(', '),
        {
          target: 'all',
          ok: missing.length === 0,
          finding: '#3 (lost with the Redis restart, not re-created)',
        },
      );
      if (ctx.embedMs !== undefined) {
        const status = (await send(stack.base, { path: '/v1/catalog/status', headers: bearer(keys.full.key) })).json;
        const { rows: dup } = await db
          .query('SELECT count(*)::int AS n FROM mcp_tools WHERE embedding IS NULL')
          .catch(() => ({ rows: [{ n: NaN }] }));
        report.add(
          F,
          `${n}: tools imported (HTTP status), killed at`,
          `${ctx.imported} (${ctx.importStatus}), ${ctx.killedAt}`,
          {
            target: '> 0 imported',
            ok: ctx.imported > 0,
            finding: 'import failed, so nothing was embedding: catalog tenancy work in progress',
          },
        );
        report.add(F, `${n}: coverage 1.0 after restart (ms)`, Number.isNaN(ctx.embedMs) ? 'never' : ctx.embedMs, {
          target: 'reached',
          ok: !Number.isNaN(ctx.embedMs) && status?.coverage === 1,
          finding: 'embedding never completed after the kill',
        });
        report.add(F, `${n}: tools without a vector`, dup[0].n, {
          target: '0',
          ok: dup[0].n === 0,
          finding: 'lost embedding batches',
        });
      }
      console.log(
        `  ${n}: ${records.length} req, ${statuses}, max ${maxMs.toFixed(0)} ms, hung ${hung}, unavailable-but-ran ${unavailableButRan}, lost ${lost}, recovery ${rec.toFixed(0)} ms, ready again after ${readyMs} ms, schedulers missing: ${missing.join(',') || 'none'}`,
      );
    }
  } finally {
    await db?.end().catch(() => undefined);
  }
  return rows;
}
