import type { RateLimitRule } from '@rota/contracts';
import { createLogger, loadConfig, type RpcClient } from '@rota/service-kit';
import { testPrefix } from '@rota/service-kit/testing/redis-server';
import { Redis } from 'ioredis';
import type { ProjectPrincipal } from '../auth/principal';
import { GatewayConfig } from '../config';
import { CallRateLimiter, type RateLimitedCall } from './rate-limits';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const log = createLogger('gateway', 'silent');

/**
 * The limiter against the machine's Redis. The library times calls with
 * `Date.now()`, which these tests replace with a clock stepped by hand: every
 * assertion is a count at a given instant, never a measured time. Windows are
 * scaled by 3600 ("5 per second" is 5 per hour) because Redis expires counters
 * in its own time: however slow the machine, no counter vanishes while a test
 * runs.
 */
describe('CallRateLimiter (GCRA in Redis)', () => {
  const prefix = testPrefix('rl');
  const clients: Redis[] = [];
  const client = () => {
    // The gateway's own options: no offline queue, no retries per command.
    const r = new Redis(REDIS_URL, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 800,
      commandTimeout: 800,
    });
    r.on('error', () => undefined);
    clients.push(r);
    return r;
  };
  const ready = (r: Redis) =>
    new Promise<void>((resolve) => (r.status === 'ready' ? resolve() : r.once('ready', () => resolve())));
  let redis: Redis;

  const T0 = 1_700_000_000_000;
  const HOUR = 3_600_000;
  /** The emission interval of "5 per second", scaled: an hour / 5. */
  const I5 = HOUR / 5;
  let now = T0;
  const step = (ms: number) => (now += ms);

  const projectId = `proj_${prefix.replace(/\W/g, '')}`;
  let keys = 0;
  /** A key of its own for each test, so no counter carries over from another. */
  const principal = (keyId = `key_${keys++}`): ProjectPrincipal => ({
    kind: 'project',
    keyId,
    orgId: 'org_rl',
    projectId,
    environment: 'live',
    scopes: ['tools:execute'],
  });
  const config = loadConfig(GatewayConfig, {
    REDIS_URL,
    ROTA_REDIS_PREFIX: prefix,
    ROTA_RATE_LIMIT_CACHE_MS: '0',
    ROTA_RATE_LIMIT_WINDOW_SCALE: '3600',
  });
  /** A limiter whose project has `limits` (read again on every call, so `set` changes them at once). */
  const limiterWith = (limits: RateLimitRule[], r = redis) => {
    let current = limits;
    const rpc = { send: () => Promise.resolve({ limits: current }) } as unknown as RpcClient;
    return { l: new CallRateLimiter(config, r, log, rpc), set: (next: RateLimitRule[]) => (current = next) };
  };
  const tool: RateLimitedCall = { tool: 'codespar_list_tools', provider: null };
  const limitedOf = async (l: CallRateLimiter, p: ProjectPrincipal, n: number, call = tool) => {
    const out: boolean[] = [];
    for (let i = 0; i < n; i++) out.push((await l.consume(p, call)).limited);
    return out;
  };

  beforeAll(async () => {
    redis = client();
    await ready(redis);
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  beforeEach(() => {
    now = T0;
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    const left = await redis.keys(`${prefix}:*`);
    if (left.length) await redis.del(...left);
    for (const r of clients) r.disconnect();
  });

  it('a burst of N+1 with limit N: exactly one refused, with the RateLimit headers; one interval later exactly one more passes', async () => {
    const { l } = limiterWith([{ scope: 'key', per_second: 5 }]);
    const p = principal();
    const verdicts = [];
    for (let i = 0; i < 6; i++) verdicts.push(await l.consume(p, tool));
    expect(verdicts.map((v) => v.limited)).toEqual([false, false, false, false, false, true]);
    expect(verdicts.map((v) => v.headers?.ratelimit)).toEqual([
      '"key/s";r=4;t=720',
      '"key/s";r=3;t=1440',
      '"key/s";r=2;t=2160',
      '"key/s";r=1;t=2880',
      '"key/s";r=0;t=3600',
      '"key/s";r=0;t=3600',
    ]);
    // t is when the quota is whole again, Retry-After when one call passes: one interval.
    const refused = verdicts[5]!;
    expect(refused).toMatchObject({
      limited: true,
      retryAfterS: 720,
      headers: { 'ratelimit-policy': '"key/s";q=5;w=3600' },
    });
    expect(CallRateLimiter.refusal(refused as Extract<typeof refused, { limited: true }>)).toMatchObject({
      code: 'rate_limited',
      details: { retry_after: 720 },
    });
    // Another key has its own counter.
    expect((await l.consume(principal(), tool)).limited).toBe(false);

    // A millisecond before the interval nothing passes; at it, exactly one.
    step(I5 - 1);
    expect((await l.consume(p, tool)).limited).toBe(true);
    step(1);
    expect(await limitedOf(l, p, 2)).toEqual([false, true]);
  });

  it('capacity comes back one call per interval, never more than the quota at once', async () => {
    const { l } = limiterWith([{ scope: 'key', per_second: 5 }]);
    const p = principal();
    expect(await limitedOf(l, p, 5)).toEqual([false, false, false, false, false]);
    // Half a window later, two and a half intervals have passed: two calls.
    step(HOUR / 2);
    expect(await limitedOf(l, p, 4)).toEqual([false, false, true, true]);
    // Long after, the quota is whole again and no more than the quota passes.
    step(10 * HOUR);
    expect((await limitedOf(l, p, 7)).filter((x) => !x)).toHaveLength(5);
  });

  it('a burst of exactly the quota passes whole when the interval is no whole number of milliseconds', async () => {
    // An hour / 7 is 514285.71… ms: floating-point rounding alone would refuse the seventh call.
    const { l } = limiterWith([{ scope: 'key', per_second: 7 }]);
    expect(await limitedOf(l, principal(), 8)).toEqual([...Array<boolean>(7).fill(false), true]);
  });

  it('a refused call costs the other limits nothing', async () => {
    const { l, set } = limiterWith([
      { scope: 'key', per_second: 2 },
      { scope: 'project', per_minute: 100 },
    ]);
    const p = principal();
    const first = await l.consume(p, tool);
    expect(first.headers?.['ratelimit-policy']).toBe('"key/s";q=2;w=3600, "project/min";q=100;w=216000');
    expect((await l.consume(p, tool)).limited).toBe(false);
    // The key limit is spent: three refusals, each saying so, and none counted against the project.
    for (let i = 0; i < 3; i++) {
      const v = await l.consume(p, tool);
      expect(v).toMatchObject({ limited: true, retryAfterS: 1800, headers: { ratelimit: '"key/s";r=0;t=3600' } });
    }
    set([{ scope: 'project', per_minute: 100 }]);
    expect((await l.consume(principal(), tool)).headers?.ratelimit).toBe('"project/min";r=97;t=6480');
  });

  it('tool and provider limits count only the calls they name; the proxy has no tool', async () => {
    const { l } = limiterWith([
      { scope: 'tool', target: 'zzpay/create_payment', per_minute: 1 },
      { scope: 'provider', target: 'zzpay', per_minute: 2 },
    ]);
    const p = principal();
    const pay = { tool: 'zzpay/create_payment', provider: 'zzpay' };
    expect((await l.consume(p, pay)).limited).toBe(false);
    const second = await l.consume(p, pay);
    expect(second).toMatchObject({
      limited: true,
      headers: {
        'ratelimit-policy': '"tool:zzpay/create_payment/min";q=1;w=216000, "provider:zzpay/min";q=2;w=216000',
      },
    });
    // The refused call cost the provider limit nothing: the proxy still has one call left there.
    expect((await l.consume(p, { tool: null, provider: 'zzpay' })).limited).toBe(false);
    expect((await l.consume(p, { tool: null, provider: 'zzpay' })).limited).toBe(true);
    // Nothing applies to a meta-tool call.
    expect(await l.consume(p, tool)).toEqual({ limited: false, headers: null });
  });

  it('two replicas (two connections) sharing the counters let exactly N of a concurrent burst through, with one limit or several', async () => {
    const other = client();
    await ready(other);
    for (const limits of [
      [{ scope: 'key', per_second: 5 }],
      [
        { scope: 'key', per_second: 5 },
        { scope: 'project', per_minute: 1000 },
      ],
    ] as RateLimitRule[][]) {
      const replicas = [limiterWith(limits).l, limiterWith(limits, other).l];
      const p = principal();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => replicas[i % 2]!.consume(p, tool)));
      expect(answers.filter((a) => !a.limited)).toHaveLength(5);
      expect(answers.filter((a) => a.limited)).toHaveLength(15);
    }
  });

  it('a counter is one Redis key under the prefix, expiring once its quota is whole again', async () => {
    const { l } = limiterWith([{ scope: 'key', per_second: 1 }]);
    const p = principal();
    expect(await limitedOf(l, p, 2)).toEqual([false, true]);
    const ttl = await redis.pttl(`${prefix}:rl:{${projectId}:live}:key:*:${p.keyId}:s`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(HOUR);
  });

  it('limits nothing when nothing is configured, or when Redis cannot answer', async () => {
    const { l } = limiterWith([]);
    expect(await l.consume(principal(), { tool: 'x', provider: null })).toEqual({ limited: false, headers: null });
    // A closed client refuses every command at once, as while Redis is away.
    const away = new Redis(REDIS_URL, { lazyConnect: true, enableOfflineQueue: false });
    away.disconnect();
    for (const limits of [
      [{ scope: 'key', per_second: 1 }],
      [
        { scope: 'key', per_second: 1 },
        { scope: 'project', per_second: 1 },
      ],
    ] as RateLimitRule[][]) {
      const { l: down } = limiterWith(limits, away);
      const p = principal();
      for (let i = 0; i < 3; i++)
        expect(await down.consume(p, { tool: 'x', provider: null })).toEqual({ limited: false, headers: null });
    }
  });
});
