import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { AppError, type Tenant } from '@rota/contracts';
import Redis from 'ioredis';
import { firstValueFrom } from 'rxjs';
import { fixtureRunsKey } from '../testing/fixture';
import { OwnRedis, testPrefix } from '../testing/redis-server';
import { RedisStreamsClient } from './client';
import { transportKeys } from './keys';

// Replicas run as real child processes from the compiled package, so a test
// can kill one the way an orchestrator would.
const REPLICA_MAIN = join(__dirname, '../../dist/testing/replica-main.js');

interface Replica {
  proc: ChildProcess;
  name: string;
  handled: number;
}

function startReplica(
  name: string,
  redisUrl: string,
  prefix: string,
  extraEnv: Record<string, string> = {},
): Promise<Replica> {
  return new Promise((resolve, reject) => {
    const proc = fork(REPLICA_MAIN, [], {
      env: {
        ...process.env,
        REDIS_URL: redisUrl,
        ROTA_REDIS_PREFIX: prefix,
        REPLICA_NAME: name,
        LOG_LEVEL: 'silent',
        ...extraEnv,
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const r: Replica = { proc, name, handled: 0 };
    proc.on('message', (m: { ready?: boolean; handled?: number; closing?: boolean }) => {
      if (m.ready) resolve(r);
      if (typeof m.handled === 'number') r.handled = m.handled;
      if (m.closing) proc.emit('closing');
    });
    proc.once('exit', (code) => reject(new Error(`replica ${name} exited with ${code}`)));
  });
}

async function stopReplica(r: Replica, signal: NodeJS.Signals = 'SIGTERM') {
  if (r.proc.exitCode !== null || r.proc.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    r.proc.once('exit', () => resolve());
    r.proc.kill(signal);
  });
}

function call<T>(client: RedisStreamsClient, pattern: string, payload: unknown, timeoutMs = 5000): Promise<T> {
  return firstValueFrom(client.send<T>(pattern, { payload, requestId: 'test', timeoutMs }));
}

/** A client for which `fixture.act` acts, the way `session.execute` does in the contract table. */
function actingClient(url: string, prefix: string) {
  return new RedisStreamsClient({ url, prefix, acts: (pattern) => pattern === 'fixture.act' });
}

/** How a call ended: its answer, or the error code. */
type Settled<T> = { ok: true; value: T } | { ok: false; code: string };

function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (e: AppError) => ({ ok: false as const, code: e.code }),
  );
}

/** How many times `fixture.act` ran for each key, counted by the replicas in Redis. */
async function runsOf(redis: Redis, prefix: string, keys: string[]): Promise<number[]> {
  if (keys.length === 0) return [];
  const values = await redis.mget(keys.map((k) => fixtureRunsKey(prefix, k)));
  return values.map((v) => Number(v ?? 0));
}

/** Waits until the service's stream holds no pending entry: every request read has been answered, skipped or dropped. */
async function settledStream(redis: Redis, prefix: string) {
  const stream = transportKeys(prefix).stream('fixture');
  for (let i = 0; i < 200; i++) {
    const [count] = (await redis.xpending(stream, 'fixture')) as [number];
    if (Number(count) === 0) return;
    await sleep(50);
  }
  throw new Error('entries stayed pending');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Redis Streams transport', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

  describe('two replicas on the shared Redis', () => {
    const prefix = testPrefix('transport');
    let a: Replica;
    let b: Replica;
    let client: RedisStreamsClient;

    beforeAll(async () => {
      [a, b] = await Promise.all([startReplica('a', url, prefix), startReplica('b', url, prefix)]);
      client = new RedisStreamsClient({ url, prefix });
      await client.connect();
    });

    afterAll(async () => {
      await client.close();
      await Promise.all([stopReplica(a, 'SIGKILL'), stopReplica(b, 'SIGKILL')]);
    });

    it('answers 1,000 requests exactly once each, shared by both replicas', async () => {
      const before = { a: a.handled, b: b.handled };
      const answers = await Promise.all(
        Array.from({ length: 1000 }, (_, n) => call<{ replica: string; n: number }>(client, 'fixture.echo', { n })),
      );
      expect(answers.map((x) => x.n).sort((x, y) => x - y)).toEqual(Array.from({ length: 1000 }, (_, n) => n));
      const byReplica = answers.reduce<Record<string, number>>(
        (acc, x) => ({ ...acc, [x.replica]: (acc[x.replica] ?? 0) + 1 }),
        {},
      );
      expect(byReplica.a).toBeGreaterThan(0);
      expect(byReplica.b).toBeGreaterThan(0);
      expect((byReplica.a ?? 0) + (byReplica.b ?? 0)).toBe(1000);
      // The replicas' own counters agree: nothing was handled twice.
      await sleep(400);
      expect(a.handled - before.a + (b.handled - before.b)).toBe(1000);
    });

    it('carries service errors as {code, message, details} and hides internals', async () => {
      await expect(call(client, 'fixture.fail', {})).rejects.toMatchObject({
        code: 'conflict',
        message: 'fixture conflict',
        details: { hint: 'x' },
      });
      const crash = await call(client, 'fixture.crash', {}).catch((e: AppError) => e);
      expect(crash).toBeInstanceOf(AppError);
      expect((crash as AppError).code).toBe('internal');
      expect((crash as AppError).message).not.toContain('secret');
    });

    it('gives upstream_timeout when a handler outlives the deadline', async () => {
      const err = await call(client, 'fixture.slow', { ms: 1500 }, 200).catch((e: AppError) => e);
      expect(err).toMatchObject({ code: 'upstream_timeout' });
    });

    it("carries the deadline, the tenant and the gateway's public URL into the handler's request context", async () => {
      const tenant: Tenant = { org_id: 'org_1', project_id: 'prj_1', environment: 'test' };
      const before = Date.now();
      const seen = await firstValueFrom(
        client.send<{ requestId: string; deadline: number; tenant: Tenant | null; publicUrl: string | null }>(
          'fixture.context',
          {
            payload: {},
            requestId: 'ctx-1',
            timeoutMs: 5000,
            tenant,
            publicUrl: 'https://rota.example.com',
          },
        ),
      );
      expect(seen).toMatchObject({ requestId: 'ctx-1', tenant, publicUrl: 'https://rota.example.com' });
      expect(seen.deadline).toBeGreaterThanOrEqual(before + 5000);
      expect(seen.deadline).toBeLessThanOrEqual(Date.now() + 5000);
      await expect(call(client, 'fixture.context', {})).resolves.toMatchObject({ tenant: null, publicUrl: null });
    });

    it('answers a database lost inside a handler unavailable, or outcome_unknown where the pattern acts', async () => {
      await expect(call(client, 'fixture.act', { key: 'db-lost-1', loseDatabase: true })).rejects.toMatchObject({
        code: 'unavailable',
      });
      const acting = actingClient(url, prefix);
      await acting.connect();
      try {
        await expect(call(acting, 'fixture.act', { key: 'db-lost-2', loseDatabase: true })).rejects.toMatchObject({
          code: 'outcome_unknown',
        });
      } finally {
        await acting.close();
      }
    });

    it('runs a read-only pattern without claiming its entry first, and claims every other one', async () => {
      // Alone in flight once earlier tests' handlers (the one past its deadline) are done: the only state key is the request's own, or none.
      const probe = new Redis(url);
      try {
        for (let i = 0; i < 100 && (await probe.keys(`${prefix}:rpc-state:fixture:*`)).length > 0; i++) await sleep(50);
      } finally {
        probe.disconnect();
      }
      expect(await call(client, 'fixture.write', {})).toMatchObject({ states: ['started'] });
      expect(await call(client, 'fixture.read', {})).toMatchObject({ states: [] });
    });

    it('answers not_found for a pattern no replica serves', async () => {
      await expect(call(client, 'fixture.nothing', {})).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  it('lets no request hang past its deadline when a replica dies mid-flight', async () => {
    const prefix = testPrefix('kill');
    // Each replica holds at most 10 requests, so 20 in flight must be split 10/10.
    const [a, b] = await Promise.all([
      startReplica('a', url, prefix, { CONCURRENCY: '10' }),
      startReplica('b', url, prefix, { CONCURRENCY: '10' }),
    ]);
    const client = new RedisStreamsClient({ url, prefix });
    await client.connect();
    try {
      const deadline = 4000;
      const started = Date.now();
      const calls = Array.from({ length: 20 }, (_, n) =>
        call<{ replica: string }>(client, 'fixture.slow', { ms: 1200, n }, deadline).then(
          (v) => ({ ok: true as const, replica: v.replica, at: Date.now() - started }),
          (e: AppError) => ({ ok: false as const, code: e.code, at: Date.now() - started }),
        ),
      );
      await sleep(300);
      await stopReplica(a, 'SIGKILL');
      const results = await Promise.all(calls);
      // Every call settled, none later than its deadline (plus timer slack).
      for (const r of results) expect(r.at).toBeLessThan(deadline + 500);
      const failed = results.filter((r) => !r.ok);
      const served = results.filter((r) => r.ok);
      expect(served.every((r) => r.ok && r.replica === 'b')).toBe(true);
      expect(served.length).toBeGreaterThan(0);
      // The dead replica's requests fail fast with unavailable (reclaimed by b) rather than running twice.
      expect(failed.length).toBeGreaterThan(0);
      for (const f of failed) expect(['unavailable', 'upstream_timeout']).toContain(!f.ok && f.code);
      // The survivor keeps serving.
      await expect(call(client, 'fixture.echo', { n: 99 })).resolves.toMatchObject({ replica: 'b', n: 99 });
    } finally {
      await client.close();
      await stopReplica(b, 'SIGKILL');
    }
  });

  it('drains in-flight requests on SIGTERM before the replica exits', async () => {
    const prefix = testPrefix('drain');
    const replica = await startReplica('draining', url, prefix);
    const client = new RedisStreamsClient({ url, prefix });
    await client.connect();
    try {
      const calls = Array.from({ length: 10 }, (_, n) => call<{ n: number }>(client, 'fixture.slow', { ms: 600, n }));
      await sleep(150);
      const exited = new Promise<number | null>((resolve) => replica.proc.once('exit', (code) => resolve(code)));
      replica.proc.kill('SIGTERM');
      const answers = await Promise.all(calls);
      expect(answers.map((a) => a.n).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      await exited;
      // Once gone, new requests find nobody and time out instead of hanging.
      await expect(call(client, 'fixture.echo', { n: 1 }, 300)).rejects.toMatchObject({ code: 'upstream_timeout' });
    } finally {
      await client.close();
      await stopReplica(replica, 'SIGKILL');
    }
  });

  it('fails with unavailable while Redis is down and recovers by itself', async () => {
    const redis = await OwnRedis.start();
    const prefix = testPrefix('outage');
    const replica = await startReplica('solo', redis.url, prefix);
    const client = new RedisStreamsClient({ url: redis.url, prefix });
    await client.connect();
    try {
      await expect(call(client, 'fixture.echo', { n: 1 })).resolves.toMatchObject({ n: 1 });
      await redis.stop();
      await sleep(100);
      const t0 = Date.now();
      const err = await call(client, 'fixture.echo', { n: 2 }).catch((e: AppError) => e);
      expect(err).toMatchObject({ code: 'unavailable' });
      expect(Date.now() - t0).toBeLessThan(1000);
      await redis.start();
      // Same client, same replica, nothing restarted: calls succeed again.
      let answer: unknown;
      for (let i = 0; i < 100 && !answer; i++) {
        answer = await call(client, 'fixture.echo', { n: 3 }, 1000).catch(() => undefined);
        if (!answer) await sleep(100);
      }
      expect(answer).toMatchObject({ n: 3, replica: 'solo' });
    } finally {
      await client.close();
      await stopReplica(replica, 'SIGKILL');
      await redis.stop();
    }
  });

  describe('whether a request ran', () => {
    let redis: Redis;

    beforeAll(() => {
      redis = new Redis(url);
    });

    afterAll(() => {
      redis.disconnect();
    });

    it('runs each request at most once, and never behind an unavailable, when a stalled replica wakes up after a peer answered for it', async () => {
      const prefix = testPrefix('stall');
      // Heartbeats every 300 ms: a replica stopped for longer than 900 ms counts
      // as dead. Each replica holds at most 10 requests, so both get some of the 20.
      const env = { HEARTBEAT_MS: '300', RECLAIM_MS: '300', CONCURRENCY: '10' };
      const [a, b] = await Promise.all([startReplica('a', url, prefix, env), startReplica('b', url, prefix, env)]);
      const client = actingClient(url, prefix);
      await client.connect();
      try {
        const keys = Array.from({ length: 20 }, (_, n) => `stall-${n}`);
        const calls = keys.map((key) =>
          settle(call<{ replica: string }>(client, 'fixture.act', { key, ms: 400 }, 10_000)),
        );
        await sleep(150);
        a.proc.kill('SIGSTOP');
        // Long enough for b to declare a dead and answer everything a held.
        await sleep(2500);
        a.proc.kill('SIGCONT');
        const results = await Promise.all(calls);
        // a finishes what it had started, then every entry is accounted for.
        await settledStream(redis, prefix);
        await sleep(600);
        const runs = await runsOf(redis, prefix, keys);
        results.forEach((r, n) => {
          expect(runs[n]).toBeLessThanOrEqual(1);
          if (r.ok) expect(runs[n]).toBe(1);
          else if (r.code === 'unavailable') expect(runs[n]).toBe(0);
          else expect(r.code).toBe('outcome_unknown');
        });
        // a did hold started requests when it stopped: b answered them outcome_unknown.
        expect(results.filter((r) => !r.ok && r.code === 'outcome_unknown').length).toBeGreaterThan(0);
        expect(results.filter((r) => r.ok && r.value.replica === 'b').length).toBeGreaterThan(0);
      } finally {
        await client.close();
        await Promise.all([stopReplica(a, 'SIGKILL'), stopReplica(b, 'SIGKILL')]);
      }
    });

    it('skips an entry a peer has already answered, instead of running it', async () => {
      const prefix = testPrefix('skip');
      const replica = await startReplica('solo', url, prefix);
      const client = actingClient(url, prefix);
      await client.connect();
      const listener = new Redis(url);
      try {
        await call(client, 'fixture.echo', { n: 0 });
        const keys = transportKeys(prefix);
        // What a peer leaves behind when it answers for this replica first:
        // the entry marked reaped before the replica gets to start it.
        const entryId = `${Date.now() + 60_000}-0`;
        await redis.set(keys.state('fixture', entryId), 'reaped', 'PX', 60_000);
        const channel = `${prefix}:test-replies`;
        const replies: string[] = [];
        listener.on('message', (_c: string, m: string) => replies.push(m));
        await listener.subscribe(channel);
        const deadline = String(Date.now() + 10_000);
        await redis.xadd(
          keys.stream('fixture'),
          entryId,
          'i',
          'x.1',
          'p',
          'fixture.act',
          'd',
          JSON.stringify({ key: 'skipped' }),
          'r',
          channel,
          't',
          deadline,
          'q',
          'skip',
          'a',
          '1',
        );
        // Requests after it are served, so the replica has read past it.
        await expect(call(client, 'fixture.echo', { n: 1 })).resolves.toMatchObject({ n: 1 });
        await settledStream(redis, prefix);
        expect(await runsOf(redis, prefix, ['skipped'])).toEqual([0]);
        expect(replies).toEqual([]);
      } finally {
        listener.disconnect();
        await client.close();
        await stopReplica(replica, 'SIGKILL');
      }
    });

    /** A private Redis with one replica and an acting client, for tests that freeze Redis; always resumed and stopped. */
    async function withOwnRedis(
      name: string,
      fn: (ctx: { own: OwnRedis; prefix: string; client: RedisStreamsClient; probe: Redis }) => Promise<void>,
    ) {
      const own = await OwnRedis.start();
      const prefix = testPrefix(name);
      const replica = await startReplica('solo', own.url, prefix);
      const client = actingClient(own.url, prefix);
      await client.connect();
      const probe = new Redis(own.url);
      try {
        await expect(call(client, 'fixture.echo', { n: 1 })).resolves.toMatchObject({ n: 1 });
        await fn({ own, prefix, client, probe });
      } finally {
        probe.disconnect();
        await client.close();
        await stopReplica(replica, 'SIGKILL');
        own.resume();
        await own.stop();
      }
    }

    it('waits through a Redis stall longer than the command timeout and answers with the real result, run once', () =>
      withOwnRedis('redis-stall', async ({ own, prefix, client, probe }) => {
        own.pause();
        // Both XADDs outlive the client's 800 ms command timeout while Redis is frozen.
        const acting = settle(call(client, 'fixture.act', { key: 'stalled' }, 8000));
        const reading = settle(call(client, 'fixture.echo', { n: 2 }, 8000));
        await sleep(1500);
        own.resume();
        // Redis applies both once it runs again, the replica runs them, and the
        // caller still waiting gets their answers instead of a guess.
        expect(await acting).toMatchObject({ ok: true });
        expect(await reading).toMatchObject({ ok: true, value: { n: 2 } });
        expect(await runsOf(probe, prefix, ['stalled'])).toEqual([1]);
      }));

    it('answers outcome_unknown, not unavailable, when Redis stalls past the deadline of an acting request, which then never starts', () =>
      withOwnRedis('redis-stall-long', async ({ own, prefix, client, probe }) => {
        own.pause();
        const acting = settle(call(client, 'fixture.act', { key: 'stalled-long' }, 2000));
        const reading = settle(call(client, 'fixture.echo', { n: 2 }, 2000));
        expect(await acting).toEqual({ ok: false, code: 'outcome_unknown' });
        // A read that may still be applied is not `unavailable` either: that
        // code promises the request never ran.
        expect(await reading).toEqual({ ok: false, code: 'upstream_timeout' });
        own.resume();
        // Redis applies the XADD once it runs again; the replica sees the
        // deadline has passed and never starts it.
        await expect(call(client, 'fixture.echo', { n: 3 })).resolves.toMatchObject({ n: 3 });
        await sleep(300);
        expect(await runsOf(probe, prefix, ['stalled-long'])).toEqual([0]);
      }));

    it('does not start entries returned by the last read after SIGTERM, and answers them unavailable', async () => {
      const prefix = testPrefix('drain-race');
      // A long blocking read, so requests sent after shutdown began still reach it.
      const replica = await startReplica('draining', url, prefix, { BLOCK_MS: '10000' });
      const client = actingClient(url, prefix);
      await client.connect();
      try {
        await call(client, 'fixture.echo', { n: 0 });
        const closing = new Promise<void>((resolve) => replica.proc.once('closing', () => resolve()));
        const exited = new Promise<void>((resolve) => replica.proc.once('exit', () => resolve()));
        replica.proc.kill('SIGTERM');
        await closing;
        // The blocked read returns this entry to a replica that has stopped.
        const result = await settle(call(client, 'fixture.act', { key: 'late' }, 10_000));
        await exited;
        expect(result).toEqual({ ok: false, code: 'unavailable' });
        expect(await runsOf(redis, prefix, ['late'])).toEqual([0]);
        await settledStream(redis, prefix);
      } finally {
        await client.close();
        await stopReplica(replica, 'SIGKILL');
      }
    });

    it('never starts a request whose deadline passed while it waited', async () => {
      const prefix = testPrefix('late');
      // One request at a time: the second waits in the stream behind the first.
      const replica = await startReplica('busy', url, prefix, { CONCURRENCY: '1' });
      const client = actingClient(url, prefix);
      await client.connect();
      try {
        await call(client, 'fixture.echo', { n: 0 });
        const busy = call(client, 'fixture.slow', { ms: 800, n: 1 });
        const late = await settle(call(client, 'fixture.act', { key: 'late' }, 200));
        expect(late).toEqual({ ok: false, code: 'outcome_unknown' });
        await expect(busy).resolves.toMatchObject({ n: 1 });
        // Served after the late one was read: it was dropped, not run.
        await expect(call(client, 'fixture.echo', { n: 2 })).resolves.toMatchObject({ n: 2 });
        await settledStream(redis, prefix);
        expect(await runsOf(redis, prefix, ['late'])).toEqual([0]);
      } finally {
        await client.close();
        await stopReplica(replica, 'SIGKILL');
      }
    });
  });
});
