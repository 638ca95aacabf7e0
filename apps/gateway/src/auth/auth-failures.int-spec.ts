import { createLogger, loadConfig } from '@rota/service-kit';
import { testPrefix } from '@rota/service-kit/testing/redis-server';
import { Redis } from 'ioredis';
import { GatewayConfig } from '../config';
import { AuthFailureLimiter } from './auth-failures';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const log = createLogger('gateway', 'silent');
const config = (env: Record<string, string>) =>
  loadConfig(GatewayConfig, { REDIS_URL, ROTA_REDIS_PREFIX: testPrefix('authfail'), ...env });

describe('AuthFailureLimiter', () => {
  const clients: Redis[] = [];
  const client = (url = REDIS_URL) => {
    // The gateway's own options: no offline queue, no retries per command.
    const r = new Redis(url, {
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

  afterAll(async () => {
    for (const r of clients) r.disconnect();
  });

  it('refuses an address once it reached the limit, and only that address, on every instance', async () => {
    const cfg = config({ ROTA_AUTH_FAIL_LIMIT: '2', ROTA_AUTH_FAIL_WINDOW_S: '120' });
    const a = client();
    const b = client();
    await Promise.all([ready(a), ready(b)]);
    const one = new AuthFailureLimiter(cfg, a, log);
    const other = new AuthFailureLimiter(cfg, b, log);
    await one.fail('203.0.113.7');
    expect(await other.retryAfter('203.0.113.7')).toBe(0);
    await other.fail('203.0.113.7');
    const wait = await one.retryAfter('203.0.113.7');
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(120);
    expect(await one.retryAfter('203.0.113.8')).toBe(0);
    // The count is kept under the configured prefix.
    const keys = await a.keys(`${cfg.ROTA_REDIS_PREFIX}:*`);
    expect(keys).toEqual([expect.stringContaining('203.0.113.7')]);
    await a.del(...keys);
  });

  it('caps failed lookups per second across instances, apart from any address', async () => {
    const cfg = config({ ROTA_AUTH_FAILED_LOOKUPS_PER_S: '2' });
    const a = client();
    const b = client();
    await Promise.all([ready(a), ready(b)]);
    const one = new AuthFailureLimiter(cfg, a, log);
    const other = new AuthFailureLimiter(cfg, b, log);
    expect(await one.lookupAllowed()).toBe(true);
    await one.failedLookup();
    expect(await other.lookupAllowed()).toBe(true);
    await other.failedLookup();
    expect(await one.lookupAllowed()).toBe(false);
    // No address was counted.
    expect(await one.retryAfter('203.0.113.11')).toBe(0);
    const keys = await a.keys(`${cfg.ROTA_REDIS_PREFIX}:*`);
    expect(keys).toEqual([expect.stringContaining('auth-lookup-budget')]);
    await a.del(...keys);
    // Off: always room.
    const off = new AuthFailureLimiter(config({ ROTA_AUTH_FAILED_LOOKUPS_PER_S: '0' }), a, log);
    await off.failedLookup();
    expect(await off.lookupAllowed()).toBe(true);
  });

  it('never limits when turned off', async () => {
    const limiter = new AuthFailureLimiter(config({ ROTA_AUTH_FAIL_LIMIT: '0' }), client(), log);
    for (let i = 0; i < 5; i++) await limiter.fail('203.0.113.9');
    expect(await limiter.retryAfter('203.0.113.9')).toBe(0);
  });

  it('lets authentication go on when Redis cannot be reached', async () => {
    // Nothing listens on port 1.
    const limiter = new AuthFailureLimiter(config({ ROTA_AUTH_FAIL_LIMIT: '1' }), client('redis://127.0.0.1:1'), log);
    await expect(limiter.fail('203.0.113.10')).resolves.toBeUndefined();
    await expect(limiter.fail('203.0.113.10')).resolves.toBeUndefined();
    expect(await limiter.retryAfter('203.0.113.10')).toBe(0);
  });
});
