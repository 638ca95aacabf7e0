import type { Environment } from '@rota/contracts';
import type Redis from 'ioredis';
import { BUCKETS, HOUR_MS, WINDOW_HOURS, bucketOf, hourOf, statsFromHash, type WindowStats } from './window';

/**
 * Per provider-and-tool counters in Redis, shared by every router replica:
 * one hash per pair holding 24 hourly slots (attempts, successes, latency sum
 * and latency buckets), rewritten in place as the hours roll over, plus the
 * last error code. One script call per record; one HGETALL per pair to read.
 */

const RECORD_SCRIPT = `
local key = KEYS[1]
local hour = tonumber(ARGV[1])
local ok = ARGV[2] == '1'
local latency = tonumber(ARGV[3])
local bucket = ARGV[4]
local err = ARGV[5]
local buckets = tonumber(ARGV[6])
local ttl = tonumber(ARGV[7])
local now = ARGV[8]
local slot = hour % 24
local hf = 'h:' .. slot
local held = tonumber(redis.call('HGET', key, hf) or '-1')
if held > hour then return 0 end
if held ~= hour then
  local fields = { 'a:' .. slot, 's:' .. slot, 't:' .. slot }
  for k = 0, buckets - 1 do fields[#fields + 1] = 'b:' .. slot .. ':' .. k end
  redis.call('HDEL', key, unpack(fields))
  redis.call('HSET', key, hf, hour)
end
redis.call('HINCRBY', key, 'a:' .. slot, 1)
if ok then
  redis.call('HINCRBY', key, 's:' .. slot, 1)
else
  redis.call('HSET', key, 'err', err, 'err_at', now)
end
redis.call('HINCRBYFLOAT', key, 't:' .. slot, latency)
redis.call('HINCRBY', key, 'b:' .. slot .. ':' .. bucket, 1)
redis.call('EXPIRE', key, ttl)
redis.call('SADD', KEYS[2], ARGV[9])
return 1
`;

type WithRecord = Redis & {
  rotaRouterRecord(key: string, index: string, ...args: Array<string | number>): Promise<number>;
};

export interface TelemetryEvent {
  /** Telemetry is kept per environment: test traffic never ranks live rails. */
  environment: Environment;
  provider_id: string;
  tool: string;
  success: boolean;
  latency_ms: number;
  error_code?: string;
  /** Epoch ms; defaults to now. */
  at?: number;
}

export interface PairKey {
  provider_id: string;
  tool: string;
}

export class TelemetryStore {
  private readonly redis: WithRecord;
  private readonly now: () => number;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    now?: () => number,
  ) {
    if (!(redis as unknown as Partial<WithRecord>).rotaRouterRecord)
      redis.defineCommand('rotaRouterRecord', { numberOfKeys: 2, lua: RECORD_SCRIPT });
    this.redis = redis as WithRecord;
    this.now = now ?? Date.now;
  }

  private key(env: Environment, p: PairKey) {
    return `${this.prefix}:router:tel:${env}:${p.provider_id}:${p.tool}`;
  }

  private indexKey(env: Environment) {
    return `${this.prefix}:router:tel:${env}:pairs`;
  }

  /** Records one outcome. Events older than the window, or from the future, are dropped. Returns whether it counted. */
  async record(e: TelemetryEvent): Promise<boolean> {
    const now = this.now();
    const at = e.at ?? now;
    if (at > now + 60_000 || hourOf(at) <= hourOf(now) - WINDOW_HOURS) return false;
    const counted = await this.redis.rotaRouterRecord(
      this.key(e.environment, e),
      this.indexKey(e.environment),
      hourOf(at),
      e.success ? '1' : '0',
      Math.max(0, e.latency_ms),
      bucketOf(e.latency_ms),
      e.success ? '' : (e.error_code ?? 'unknown_error'),
      BUCKETS,
      // Keep a hash a little past the window so a quiet pair's last hours still read.
      Math.ceil((2 * WINDOW_HOURS * HOUR_MS) / 1000),
      at,
      `${e.provider_id}|${e.tool}`,
    );
    return counted === 1;
  }

  /** Window statistics for each pair of one environment, in the order given. */
  async read(env: Environment, pairs: readonly PairKey[]): Promise<WindowStats[]> {
    if (pairs.length === 0) return [];
    // One command per pair, issued in the same tick: on the router's client
    // (auto-pipelining) they leave in one write, together with whatever else
    // the caller asked for in that tick (the eligibility read of a rail choice).
    const hashes = await Promise.all(pairs.map((p) => this.redis.hgetall(this.key(env, p))));
    const hour = hourOf(this.now());
    return hashes.map((hash) => statsFromHash(hash ?? {}, hour));
  }

  /** Every pair that has ever been recorded (until its data expires). */
  async recordedPairs(env: Environment): Promise<PairKey[]> {
    const members = await this.redis.smembers(this.indexKey(env));
    return members.map((m) => {
      const [provider_id, tool] = m.split('|') as [string, string];
      return { provider_id, tool };
    });
  }

  /** Start of the oldest hour in the window. */
  windowStart(): Date {
    return new Date((hourOf(this.now()) - WINDOW_HOURS + 1) * HOUR_MS);
  }
}
