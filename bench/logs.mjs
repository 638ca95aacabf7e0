// Call logs benchmark, all in one run, on one database:
//   - execute codespar_list_tools one at a time through two stacks that differ
//     only in ROTA_LOG_STREAM (the call log stream publish on, and off), in
//     interleaved rounds: the p50 the stream adds to an execute;
//   - the CPU one call record costs in the session service: masking its
//     parameters, building the record and its stream event, and the part of
//     the stream publish the call waits for (in process, real Redis);
//   - the row write with the call-log columns (org, user, request id) against
//     the same insert without them, asynchronous commit as read-only calls use;
//   - cross-replica delivery: a subscriber on gateway replica 1, executes sent
//     to replica 2, time until the event arrives (p50 and p95), against the
//     baseline of a bare XADD reaching a blocked XREAD on another connection.
// Needs a build (`pnpm build`), Postgres and Redis.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT, benchPrefix, fmt, freePort, sleep, startProcess, stop, table } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const ROUNDS = Number(process.env.BENCH_LOGS_ROUNDS ?? 6);
const PER_ROUND = Number(process.env.BENCH_LOGS_PER_ROUND ?? 100);
const DELIVERIES = Number(process.env.BENCH_LOGS_DELIVERIES ?? 200);

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const stats = (ms) => {
  const s = [...ms].sort((a, b) => a - b);
  return { p50: pct(s, 0.5), p95: pct(s, 0.95), n: s.length };
};

/** Opens a log stream and calls `onEvent(entry, arrivedAt)` for each call event; resolves once the headers are in. */
async function subscribe(base, key, sessionId, onEvent) {
  const abort = new AbortController();
  const res = await fetch(`${base}/v1/logs/stream?session_id=${sessionId}`, {
    headers: { authorization: `Bearer ${key}` },
    signal: abort.signal,
  });
  if (res.status !== 200) throw new Error(`stream answered ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ done: true }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, cut);
        text = text.slice(cut + 2);
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (data && block.includes('event: call')) onEvent(JSON.parse(data.slice(6)), performance.now());
      }
    }
  })();
  return () => abort.abort();
}

export async function logsBench() {
  const { createTestDatabase, seed, ApiKeyRepository } = require(join(ROOT, 'packages/db/dist/index.js'));
  const { maskParameters } = require(join(ROOT, 'apps/session/dist/calls/redact.js'));
  const { toLogEntry } = require(join(ROOT, 'apps/session/dist/calls/call-log.js'));
  const { streamedEntry } = require(join(ROOT, 'apps/session/dist/calls/call-log.publisher.js'));
  const db = await createTestDatabase();
  const procs = [];
  try {
    await seed(db.prisma);
    await db.prisma.provider.create({
      data: {
        id: 'benchpay',
        name: 'Bench Pay',
        description: 'payments',
        category: 'payments',
        countries: ['BR'],
        authType: 'api_key',
        selfServeAuth: true,
        baseUrls: {},
      },
    });
    for (let i = 0; i < 10; i++) {
      await db.prisma.mcpTool.create({
        data: { serverId: 'benchpay', toolName: `tool_${i}`, description: `Bench tool ${i}`, descriptionHash: `b${i}` },
      });
    }
    const { key } = await new ApiKeyRepository(db.prisma).create({
      projectId: 'proj_dev',
      environment: 'live',
      scopes: ['servers:read', 'sessions:create', 'tools:execute', 'logs:read'],
    });
    const common = {
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      ANTHROPIC_API_KEY: '',
      LOG_LEVEL: 'warn',
      ROTA_DEV_MODE: 'true',
    };

    // Two stacks on one database: the stream on (two gateway replicas) and off.
    const stacks = {};
    for (const [mode, stream, gateways] of [
      ['on', 'true', 2],
      ['off', 'false', 1],
    ]) {
      const prefix = benchPrefix(`logs-${mode}`);
      procs.push(
        await startProcess(
          join(ROOT, 'apps/session/dist/main.js'),
          { ...common, ROTA_REDIS_PREFIX: prefix, ROTA_LOG_STREAM: stream },
          async () => true,
        ),
      );
      const bases = [];
      for (let g = 0; g < gateways; g++) {
        const port = await freePort();
        const base = `http://127.0.0.1:${port}`;
        procs.push(
          await startProcess(
            join(ROOT, 'bench/lib/gateway-child.cjs'),
            { ...common, ROTA_REDIS_PREFIX: prefix, PORT: String(port) },
            async () => (await fetch(`${base}/health/live`)).ok,
          ),
        );
        bases.push(base);
      }
      stacks[mode] = { bases };
    }

    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = async (base, path, body) => {
      const r = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const json = await r.json();
      if (!r.ok) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(json)}`);
      return json;
    };
    // The session service may still be joining its stream: the first session waits for it.
    for (const s of Object.values(stacks)) {
      for (let tries = 0; !s.session; tries++) {
        try {
          s.session = (await post(s.bases[0], '/v1/sessions', { servers: ['benchpay'], user_id: 'bench' })).id;
        } catch (err) {
          if (tries > 60) throw err;
          await sleep(500);
        }
      }
    }
    const execute = async (base, session) => {
      const r = await post(base, `/v1/sessions/${session}/execute`, { tool: 'codespar_list_tools', input: {} });
      if (!r.success) throw new Error(`execute failed: ${JSON.stringify(r.data)}`);
      return r;
    };

    // 1. Execute with the stream on and off, interleaved so drift hits both alike.
    const lat = { on: [], off: [] };
    for (const mode of ['on', 'off'])
      for (let i = 0; i < 30; i++) await execute(stacks[mode].bases[0], stacks[mode].session);
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of round % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
        const { bases, session } = stacks[mode];
        for (let i = 0; i < PER_ROUND; i++) {
          const t0 = performance.now();
          await execute(bases[0], session);
          lat[mode].push(performance.now() - t0);
        }
      }
    }
    const on = stats(lat.on);
    const off = stats(lat.off);

    // 2. The CPU of one record in the session service: mask, build, serialise the event.
    const input = {
      customer: 'cus_000005219613',
      billingType: 'PIX',
      value: 49.9,
      dueDate: '2026-12-31',
      description: 'pedido 8812 da cliente CPF 529.982.247-25',
      externalReference: 'order-8812',
      cpfCnpj: '52998224725',
    };
    const row = (masked) => ({
      id: 'tc_bench',
      called_at: new Date(),
      request_id: 'req',
      org_id: 'org_dev',
      project_id: 'proj_dev',
      environment: 'live',
      session_id: 'ses_bench',
      user_id: 'bench',
      connection_id: 'conn',
      tool: 'asaas/create_payment',
      server: 'asaas',
      input: masked,
      state: 'done',
      success: true,
      error: null,
      error_code: null,
      upstream_status: 200,
      duration_ms: 12,
      bytes_in: 800,
      bytes_out: 200,
      attempts: 1,
      rail_id: null,
      attempt_log: null,
    });
    const CPU_N = 20_000;
    for (let i = 0; i < 2000; i++) JSON.stringify(streamedEntry(toLogEntry(row(maskParameters(input)))));
    let t = performance.now();
    for (let i = 0; i < CPU_N; i++) JSON.stringify(streamedEntry(toLogEntry(row(maskParameters(input)))));
    const cpuUs = ((performance.now() - t) / CPU_N) * 1000;

    // 2b. The part of the stream publish an execute waits for: the publisher
    //     queues an XADD without awaiting it, so only its synchronous work counts.
    require(join(ROOT, 'apps/session/node_modules/reflect-metadata'));
    const { CallLogPublisher } = require(join(ROOT, 'apps/session/dist/calls/call-log.publisher.js'));
    const Redis = require(join(ROOT, 'node_modules/ioredis'));
    const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
    const pubRedis = new Redis(redisUrl);
    const pubPrefix = benchPrefix('logs-pub');
    const quiet = { info() {}, warn() {} };
    const publisher = new CallLogPublisher(
      pubRedis,
      { ROTA_LOG_STREAM: true, ROTA_REDIS_PREFIX: pubPrefix, ROTA_LOG_STREAM_MAXLEN: 100_000 },
      quiet,
    );
    const published = row(maskParameters(input));
    const PUB_N = 5_000;
    const pubTimes = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < PUB_N; i++) {
        const t0 = performance.now();
        publisher.published(published);
        if (round > 0) pubTimes.push(performance.now() - t0);
      }
      await pubRedis.ping();
    }
    await pubRedis.del(`${pubPrefix}:logs:calls`);
    pubRedis.disconnect();
    const pub = stats(pubTimes);

    // 3. The row write with and without the call-log columns (one client, asynchronous commit).
    const pg = require(join(ROOT, 'node_modules/pg'));
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const session = stacks.on.session;
    const plain = `INSERT INTO session_tool_calls (id, session_id, project_id, environment, tool, server, input, output, success, error, duration_ms, called_at)
      VALUES ($1, $2, 'proj_dev', 'live', 'codespar_list_tools', NULL, '{}', '{}', true, NULL, 1, now())`;
    const logged = `INSERT INTO session_tool_calls (id, session_id, project_id, environment, tool, server, input, output, success, error, duration_ms, called_at, org_id, user_id, request_id)
      VALUES ($1, $2, 'proj_dev', 'live', 'codespar_list_tools', NULL, '{}', '{}', true, NULL, 1, now(),
        COALESCE($3::text, (SELECT org_id FROM projects WHERE id = 'proj_dev')), (SELECT user_id FROM sessions WHERE id = $2::text), $4::text)`;
    await client.query(`SET synchronous_commit = off`);
    const writes = { plain: [], logged: [] };
    let n = 0;
    for (let round = 0; round < 10; round++) {
      for (const [kind, text] of [
        ['plain', plain],
        ['logged', logged],
      ]) {
        const name = `bench_${kind}`;
        for (let i = 0; i < 200; i++) {
          const values = kind === 'plain' ? [`tc_bw_${n++}`, session] : [`tc_bw_${n++}`, session, 'org_dev', 'req'];
          const t0 = performance.now();
          await client.query({ name, text, values });
          if (round > 0) writes[kind].push(performance.now() - t0);
        }
      }
    }
    await client.end();
    const wPlain = stats(writes.plain);
    const wLogged = stats(writes.logged);

    // 4. Cross-replica delivery: subscribe on replica 1, execute through replica 2.
    const { bases, session: ses } = stacks.on;
    const arrived = new Map();
    const waiters = new Map();
    const unsubscribe = await subscribe(bases[0], key, ses, (entry, at) => {
      arrived.set(entry.id, at);
      waiters.get(entry.id)?.();
    });
    await sleep(200);
    const fromSent = [];
    const fromAnswer = [];
    const roundTrips = [];
    for (let i = 0; i < DELIVERIES + 20; i++) {
      const t0 = performance.now();
      const r = await execute(bases[1], ses);
      const t1 = performance.now();
      const id = r.tool_call_id;
      if (!arrived.has(id)) {
        await Promise.race([new Promise((res) => waiters.set(id, res)), sleep(5000)]);
        waiters.delete(id);
      }
      const at = arrived.get(id);
      if (at === undefined) throw new Error(`no event for ${id} within 5 s`);
      if (i >= 20) {
        fromSent.push(at - t0);
        fromAnswer.push(at - t1);
        roundTrips.push(t1 - t0);
      }
    }
    unsubscribe();
    const sent = stats(fromSent);
    const answer = stats(fromAnswer);
    const trip = stats(roundTrips);

    // 5. Baseline of the fan-out: the bare Redis Streams hop it is built on, one
    //    client appending and another blocked in XREAD, no HTTP and no SSE.
    const writer = new Redis(redisUrl);
    const blocked = new Redis(redisUrl);
    const rawKey = `${benchPrefix('logs-raw')}:s`;
    const raw = [];
    try {
      // An explicit position: an XADD that lands before the XREAD is still read.
      let last = await writer.xadd(rawKey, '*', 'd', 'start');
      for (let i = 0; i < DELIVERIES + 20; i++) {
        const read = blocked.xread('BLOCK', 5000, 'STREAMS', rawKey, last);
        // Let the XREAD reach Redis first, so the figure is the hop to a reader already waiting.
        await sleep(1);
        const t0 = performance.now();
        await writer.xadd(rawKey, '*', 'd', JSON.stringify({ i }));
        const got = await read;
        if (i >= 20) raw.push(performance.now() - t0);
        last = got[0][1][0][0];
      }
    } finally {
      await writer.del(rawKey);
      writer.disconnect();
      blocked.disconnect();
    }
    const bare = stats(raw);

    console.log(
      `\n## Call logs (session service and gateways as processes, ${ROUNDS} interleaved rounds of ${PER_ROUND} executes per mode)`,
    );
    table([
      {
        measure: 'execute codespar_list_tools, stream publish on',
        'p50 ms': fmt(on.p50, 2),
        'p95 ms': fmt(on.p95, 2),
        n: on.n,
      },
      {
        measure: 'execute codespar_list_tools, stream publish off (ROTA_LOG_STREAM=false)',
        'p50 ms': fmt(off.p50, 2),
        'p95 ms': fmt(off.p95, 2),
        n: off.n,
      },
      {
        measure: 'added by the stream publish (p50 on - off)',
        'p50 ms': fmt(on.p50 - off.p50, 2),
        'p95 ms': '',
        n: '',
      },
      {
        measure: 'row insert without the call-log columns',
        'p50 ms': fmt(wPlain.p50, 3),
        'p95 ms': fmt(wPlain.p95, 3),
        n: wPlain.n,
      },
      {
        measure: 'row insert with org, user and request id',
        'p50 ms': fmt(wLogged.p50, 3),
        'p95 ms': fmt(wLogged.p95, 3),
        n: wLogged.n,
      },
      { measure: 'mask + record + event JSON, CPU per call', 'p50 ms': fmt(cpuUs / 1000, 4), 'p95 ms': '', n: CPU_N },
      {
        measure: 'stream publish, the part the call waits for (XADD queued, not awaited)',
        'p50 ms': fmt(pub.p50, 4),
        'p95 ms': fmt(pub.p95, 4),
        n: pub.n,
      },
      {
        measure: 'SSE event on replica 1, from the execute sent to replica 2',
        'p50 ms': fmt(sent.p50, 2),
        'p95 ms': fmt(sent.p95, 2),
        n: sent.n,
      },
      {
        measure: 'SSE event on replica 1, from the answer of replica 2',
        'p50 ms': fmt(answer.p50, 2),
        'p95 ms': fmt(answer.p95, 2),
        n: answer.n,
      },
      {
        measure: 'baseline: bare XADD to a blocked XREAD on another connection',
        'p50 ms': fmt(bare.p50, 3),
        'p95 ms': fmt(bare.p95, 3),
        n: bare.n,
      },
    ]);
    // Baselines: the execute without the stream, and the execute's own round trip for delivery.
    console.log(
      `execute p50 ratio, stream publish on / off: ${fmt(on.p50 / off.p50, 3)} (1.000 = no cost; within noise on a busy machine)`,
    );
    console.log(
      `SSE event from the request / the same executes' round trip on replica 2, p50: ${fmt(sent.p50 / trip.p50, 2)}, p95: ${fmt(sent.p95 / trip.p95, 2)} (about 1: the event arrives with the answer)`,
    );
    console.log(
      `SSE event after the answer of replica 2, p95: ${fmt(answer.p95, 2)} ms = ${fmt(answer.p95 / bare.p95, 1)}x the bare Redis hop's p95`,
    );
    const logging = Math.max(0, wLogged.p50 - wPlain.p50) + cpuUs / 1000 + pub.p50;
    console.log(
      `call logging per execute, p50 (extra columns + masking and record CPU + publish): ${fmt(logging, 3)} ms (target <= 0.3 ms)`,
    );
    console.log(
      `cross-replica delivery p95: ${fmt(sent.p95, 1)} ms from the request, ${fmt(answer.p95, 1)} ms after the answer (target <= 250 ms)`,
    );
  } finally {
    for (const p of procs.reverse()) await stop(p);
    await db.drop();
  }
}
