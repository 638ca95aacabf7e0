import { Inject, Injectable } from '@nestjs/common';
import { AppError, type RateLimitRule } from '@rota/contracts';
import { CONFIG, LOGGER, REDIS, RpcClient, type Logger } from '@rota/service-kit';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { ProjectPrincipal } from '../auth/principal';
import type { GatewayConfig } from '../config';

/** How long the gateway waits for a project's limits before going on without them. */
const LIMITS_TIMEOUT_MS = 1000;

/** What a governed call is, as far as rate limits can tell before it runs. */
export interface RateLimitedCall {
  /** The tool as called (`server/tool` for a catalog tool). */
  tool: string;
  /** The provider the call goes to, when it is known before routing (a catalog tool, the proxy). */
  provider: string | null;
}

/** One window of one limit that applies to a call. */
interface Counter {
  name: string;
  key: string;
  quota: number;
  windowS: number;
}

/** The IETF httpapi RateLimit fields of an answer. */
export type RateLimitHeaders = {
  'ratelimit-policy': string;
  ratelimit: string;
};

export type RateVerdict = { limited: false; headers: RateLimitHeaders | null } | { limited: true; retryAfterS: number; headers: RateLimitHeaders };

/**
 * Rate limits per key, project, tool and provider, counted in Redis with
 * rate-limiter-flexible so every gateway replica shares the same counters.
 * Each limit is a fixed window per counter key that starts with its first
 * call (a burst of up to twice the quota can straddle two windows); a call
 * takes one point of every limit that applies and is refused when any is
 * spent. Off unless a project configures limits.
 *
 * Redis trouble lets calls through (logged): the policy engine and quota
 * still govern them, and a Redis outage should not stop every project.
 */
@Injectable()
export class CallRateLimiter {
  private readonly cache = new Map<string, { limits: RateLimitRule[]; at: number }>();
  private readonly limiters = new Map<string, RateLimiterRedis>();

  constructor(
    @Inject(CONFIG) private readonly config: GatewayConfig,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly rpc: RpcClient,
  ) {}

  /** Forgets a project's limits (after this replica stored new ones). */
  forget(p: ProjectPrincipal) {
    this.cache.delete(`${p.projectId}:${p.environment}`);
  }

  private async limitsOf(p: ProjectPrincipal): Promise<RateLimitRule[]> {
    const key = `${p.projectId}:${p.environment}`;
    const cached = this.cache.get(key);
    if (cached && Date.now() - cached.at < this.config.ROTA_RATE_LIMIT_CACHE_MS) return cached.limits;
    try {
      const { limits } = await this.rpc.send('session.ratelimits.get', {}, { timeoutMs: LIMITS_TIMEOUT_MS });
      this.cache.set(key, { limits, at: Date.now() });
      return limits;
    } catch (err) {
      // Like a Redis outage: the call goes on under the limits last seen (or
      // none), rather than the limiter turning a slow read into a refusal.
      this.warn(err);
      return cached?.limits ?? [];
    }
  }

  /** The windows of every limit that applies to this call. */
  private counters(p: ProjectPrincipal, limits: readonly RateLimitRule[], call: RateLimitedCall): Counter[] {
    const scale = this.config.ROTA_RATE_LIMIT_WINDOW_SCALE;
    const out: Counter[] = [];
    for (const l of limits) {
      let subject: string | null;
      switch (l.scope) {
        case 'key':
          subject = p.keyId;
          break;
        case 'project':
          subject = 'all';
          break;
        case 'tool':
          subject = l.target === undefined || l.target === call.tool ? call.tool : null;
          break;
        case 'provider':
          subject = call.provider !== null && (l.target === undefined || l.target === call.provider) ? call.provider : null;
          break;
      }
      if (subject === null) continue;
      const name = l.target ? `${l.scope}:${l.target}` : l.scope;
      if (l.per_second) out.push({ name: `${name}/s`, key: `${p.projectId}:${p.environment}:${l.scope}:${subject}:1`, quota: l.per_second, windowS: scale });
      if (l.per_minute)
        out.push({ name: `${name}/min`, key: `${p.projectId}:${p.environment}:${l.scope}:${subject}:60`, quota: l.per_minute, windowS: 60 * scale });
    }
    return out;
  }

  private limiter(quota: number, windowS: number): RateLimiterRedis {
    const id = `${quota}:${windowS}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `${this.config.ROTA_REDIS_PREFIX}:rl:${id}`,
        points: quota,
        duration: windowS,
        rejectIfRedisNotReady: true,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /** Takes one point of every limit that applies; says whether the call is over any. */
  async consume(p: ProjectPrincipal, call: RateLimitedCall): Promise<RateVerdict> {
    const counters = this.counters(p, await this.limitsOf(p), call);
    if (counters.length === 0) return { limited: false, headers: null };
    const results = await Promise.all(
      counters.map(async (c) => {
        try {
          return { c, res: await this.limiter(c.quota, c.windowS).consume(c.key, 1), over: false };
        } catch (err) {
          if (err instanceof RateLimiterRes) return { c, res: err, over: true };
          this.warn(err);
          return null;
        }
      }),
    );
    const known = results.filter((r): r is NonNullable<typeof r> => r !== null);
    if (known.length === 0) return { limited: false, headers: null };
    const reset = (r: (typeof known)[number]) => Math.max(1, Math.ceil(r.res.msBeforeNext / 1000));
    const over = known.filter((r) => r.over);
    // The counter that tells the caller most: the spent one that frees last, else the one closest to spent.
    const tightest =
      over.length > 0 ? over.reduce((a, b) => (reset(b) > reset(a) ? b : a)) : known.reduce((a, b) => (b.res.remainingPoints < a.res.remainingPoints ? b : a));
    const headers: RateLimitHeaders = {
      'ratelimit-policy': known.map((r) => `"${r.c.name}";q=${r.c.quota};w=${r.c.windowS}`).join(', '),
      ratelimit: `"${tightest.c.name}";r=${Math.max(0, tightest.res.remainingPoints)};t=${reset(tightest)}`,
    };
    if (over.length === 0) return { limited: false, headers };
    return { limited: true, retryAfterS: reset(tightest), headers };
  }

  /** The refusal of a limited call, for HTTP (429 with `Retry-After`). */
  static refusal(v: Extract<RateVerdict, { limited: true }>): AppError {
    return new AppError('rate_limited', `Rate limit reached; retry in ${v.retryAfterS} s.`, { retry_after: v.retryAfterS });
  }

  private warned = 0;

  private warn(err: unknown) {
    if (Date.now() - this.warned < 10_000) return;
    this.warned = Date.now();
    this.log.warn({ err }, 'call rate limiter unavailable; not limiting');
  }
}
