import { testPrefix } from '@rota/service-kit/testing/redis-server';
import Redis from 'ioredis';
import { TelemetryStore } from './telemetry.store';
import { HOUR_MS, medianOf } from './window';

describe('TelemetryStore on Redis', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = testPrefix('tel');
  let clock = 1_900_000 * HOUR_MS + 10 * 60_000;
  const store = new TelemetryStore(redis, prefix, () => clock);
  const pair = { provider_id: 'asaas', tool: 'codespar_charge' };
  const ev = { ...pair, environment: 'test' as const };

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('counts attempts, successes, latency and the last error for a pair', async () => {
    for (let i = 0; i < 8; i++) await store.record({ ...ev, success: true, latency_ms: 200 });
    await store.record({ ...ev, success: false, latency_ms: 2500, error_code: 'upstream_5xx' });
    await store.record({ ...ev, success: false, latency_ms: 3000 });
    const [s] = await store.read('test', [pair]);
    expect(s!.attempts).toBe(10);
    expect(s!.successes).toBe(8);
    expect(s!.latency_sum_ms).toBe(8 * 200 + 2500 + 3000);
    expect(medianOf(s!.histogram)).toBeGreaterThan(150);
    expect(medianOf(s!.histogram)).toBeLessThanOrEqual(200);
    expect(s!.last_error_code).toBe('unknown_error');
    expect(s!.attempts_by_hour[23]).toBe(10);
  });

  it('a second store on the same Redis (another replica) sees the same numbers', async () => {
    const otherRedis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const other = new TelemetryStore(otherRedis, prefix, () => clock);
      const [s] = await other.read('test', [pair]);
      expect(s!.attempts).toBe(10);
      await other.record({ ...ev, success: true, latency_ms: 100 });
      expect((await store.read('test', [pair]))[0]!.attempts).toBe(11);
    } finally {
      otherRedis.disconnect();
    }
  });

  it('moves hours along: old hours slide out of the window, reused slots start from zero', async () => {
    clock += 3 * HOUR_MS;
    await store.record({ ...ev, success: true, latency_ms: 50 });
    let [s] = await store.read('test', [pair]);
    expect(s!.attempts).toBe(12);
    expect(s!.attempts_by_hour[23]).toBe(1);
    expect(s!.attempts_by_hour[20]).toBe(11);
    expect(s!.p50_by_hour[21]).toBeNull();

    clock += 24 * HOUR_MS;
    await store.record({ ...ev, success: false, latency_ms: 50, error_code: 'timeout' });
    [s] = await store.read('test', [pair]);
    expect(s!.attempts).toBe(1);
    expect(s!.successes).toBe(0);
    expect(s!.last_error_code).toBe('timeout');
  });

  it('drops events older than the window or from the future', async () => {
    expect(await store.record({ ...ev, success: true, latency_ms: 1, at: clock - 25 * HOUR_MS })).toBe(false);
    expect(await store.record({ ...ev, success: true, latency_ms: 1, at: clock + 10 * 60_000 })).toBe(false);
    expect(await store.record({ ...ev, success: true, latency_ms: 1, at: clock - 2 * HOUR_MS })).toBe(true);
    const [s] = await store.read('test', [pair]);
    expect(s!.attempts_by_hour[21]).toBe(1);
  });

  it('lists the pairs it has seen', async () => {
    expect(await store.recordedPairs('test')).toEqual([pair]);
    // Live traffic is kept apart: nothing recorded in test ranks a live rail.
    expect(await store.recordedPairs('live')).toEqual([]);
    expect((await store.read('live', [pair]))[0]!.attempts).toBe(0);
  });
});
