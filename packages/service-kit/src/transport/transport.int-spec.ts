import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { AppError } from '@rota/contracts';
import { firstValueFrom } from 'rxjs';
import { OwnRedis, testPrefix } from '../testing/redis-server';
import { RedisStreamsClient } from './client';

// Replicas run as real child processes from the compiled package, so a test
// can kill one the way an orchestrator would.
const REPLICA_MAIN = join(__dirname, '../../dist/testing/replica-main.js');

interface Replica {
  proc: ChildProcess;
  name: string;
  handled: number;
}

function startReplica(name: string, redisUrl: string, prefix: string, extraEnv: Record<string, string> = {}): Promise<Replica> {
  return new Promise((resolve, reject) => {
    const proc = fork(REPLICA_MAIN, [], {
      env: { ...process.env, REDIS_URL: redisUrl, ROTA_REDIS_PREFIX: prefix, REPLICA_NAME: name, LOG_LEVEL: 'silent', ...extraEnv },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const r: Replica = { proc, name, handled: 0 };
    proc.on('message', (m: { ready?: boolean; handled?: number }) => {
      if (m.ready) resolve(r);
      if (typeof m.handled === 'number') r.handled = m.handled;
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
      const answers = await Promise.all(Array.from({ length: 1000 }, (_, n) => call<{ replica: string; n: number }>(client, 'fixture.echo', { n })));
      expect(answers.map((x) => x.n).sort((x, y) => x - y)).toEqual(Array.from({ length: 1000 }, (_, n) => n));
      const byReplica = answers.reduce<Record<string, number>>((acc, x) => ({ ...acc, [x.replica]: (acc[x.replica] ?? 0) + 1 }), {});
      expect(byReplica.a).toBeGreaterThan(0);
      expect(byReplica.b).toBeGreaterThan(0);
      expect(byReplica.a + byReplica.b).toBe(1000);
      // The replicas' own counters agree: nothing was handled twice.
      await sleep(400);
      expect(a.handled - before.a + (b.handled - before.b)).toBe(1000);
    });

    it('carries service errors as {code, message, details} and hides internals', async () => {
      await expect(call(client, 'fixture.fail', {})).rejects.toMatchObject({ code: 'conflict', message: 'fixture conflict', details: { hint: 'x' } });
      const crash = await call(client, 'fixture.crash', {}).catch((e: AppError) => e);
      expect(crash).toBeInstanceOf(AppError);
      expect((crash as AppError).code).toBe('internal');
      expect((crash as AppError).message).not.toContain('secret');
    });

    it('gives upstream_timeout when a handler outlives the deadline', async () => {
      const err = await call(client, 'fixture.slow', { ms: 1500 }, 200).catch((e: AppError) => e);
      expect(err).toMatchObject({ code: 'upstream_timeout' });
    });

    it('answers not_found for a pattern no replica serves', async () => {
      await expect(call(client, 'fixture.nothing', {})).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  it('lets no request hang past its deadline when a replica dies mid-flight', async () => {
    const prefix = testPrefix('kill');
    // Each replica holds at most 10 requests, so 20 in flight must be split 10/10.
    const [a, b] = await Promise.all([startReplica('a', url, prefix, { CONCURRENCY: '10' }), startReplica('b', url, prefix, { CONCURRENCY: '10' })]);
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
});
