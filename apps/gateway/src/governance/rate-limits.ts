// The library ships no types; the reference brings ours along wherever this file is compiled (the test tsconfig too).
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./redis-gcra.d.ts" />
import { Inject, Injectable } from '@nestjs/common';
import { AppError, type RateLimitRule } from '@rota/contracts';
import { CONFIG, idempotencyMarkerKey, LOGGER, REDIS, RpcClient, type Logger } from '@rota/service-kit';
import type { Redis } from 'ioredis';
import RedisGCRA from 'redis-gcra';
import type { ProjectPrincipal } from '../auth/principal';
import type { GatewayConfig } from '../config';

/** Calls left under which a counter counts as possibly spent (see `mayBeSpent`). */
const NEAR_SPENT = 10;
/** Counters whose last reading one replica keeps. */
const LAST_SEEN_MAX = 10_000;

/** How long the gateway waits for a project's limits before going on without them. */
const LIMITS_TIMEOUT_MS = 1000;

/** What a governed call is, as far as rate limits can tell before it runs. */
export interface RateLimitedCall {
  /** The tool as called (`server/tool` for a catalog tool); null for the proxy, which calls no tool. */
  tool: string | null;
  /** The provider the call goes to, when it is known before routing (a catalog tool, the proxy). */
  provider: string | null;
  /** The caller's Idempotency-Key (`_meta.idempotency_key` over MCP): a repeat of a taken key counts toward no limit. */
  idempotencyKey?: string | null;
}

/** One limit that applies to a call: its counter, its quota and how it is named in the headers. */
interface Counter {
  name: string;
  /** The Redis key of the counter. */
  key: string;
  /** Calls allowed per period, which is also the largest burst. */
  quota: number;
  periodMs: number;
  windowS: number;
}

/** What one limit says about a call. */
interface Reading {
  /** This limit alone refuses the call. */
  over: boolean;
  /** Calls that could still pass right now after this one (0 when this limit refuses it). */
  remaining: number;
  /** When refused: milliseconds until a call would pass. */
  retryMs: number;
  /** Milliseconds until the whole quota is available again. */
  resetMs: number;
}

/**
 * How much earlier than its exact time a call may pass, in ms: half a
 * millisecond, or half an emission interval when intervals are shorter. The
 * library keeps time as floating-point milliseconds since 1970, so the time
 * it stores for the next call drifts by a few ten-thousandths of a
 * millisecond per call, and without this slack a burst of exactly the quota
 * could lose its last call to rounding (6 per second would let 5 through).
 * Being less than one interval, the slack never lets a burst exceed the quota.
 */
const SLACK_MS = 0.5;

/** The library's arguments for a counter: a bucket of `quota` calls refilled at `quota` per period, plus the slack. */
function bucket(c: Counter): RedisGCRA.Args {
  const interval = c.periodMs / c.quota;
  return { key: c.key, burst: c.quota + Math.min(0.5, SLACK_MS / interval), rate: c.quota, period: c.periodMs };
}

/** The IETF httpapi RateLimit fields of an answer. */
export type RateLimitHeaders = {
  'ratelimit-policy': string;
  ratelimit: string;
};

export type RateVerdict =
  | { limited: false; headers: RateLimitHeaders | null }
  | { limited: true; retryAfterS: number; headers: RateLimitHeaders };

/**
 * Rate limits per key, project, tool and provider, enforced with GCRA by the
 * `redis-gcra` library: each limit is one Redis key, checked and counted by
 * the library's Lua script, so every gateway replica shares the same counters.
 * A call passes only when every limit that applies allows it. With one limit,
 * one script call decides; with several, the limiter first reads them all
 * without counting (`peek`) and counts the call only when none is spent, so a
 * refused call costs the other limits nothing. Off unless a project
 * configures limits.
 *
 * A call carrying an idempotency key the session service has already
 * claimed (a replay, a `request_in_progress`, a reused key) is not counted:
 * it cannot dispatch again, and the spec counts a repeat toward no limit.
 * The session service marks a key in Redis when it claims it and unmarks it
 * when it gives it back, so one `EXISTS`, on any replica, tells the two apart.
 *
 * Redis trouble lets calls through (logged): the policy engine and quota
 * still govern them, and a Redis outage should not stop every project.
 */
@Injectable()
export class CallRateLimiter {
  private readonly cache = new Map<string, { limits: RateLimitRule[]; at: number }>();
  private readonly gcra: RedisGCRA.Limiter;
  /** What each counter had left when this replica last counted a call on it, and when. */
  private readonly lastSeen = new Map<string, { remaining: number; at: number }>();

  constructor(
    @Inject(CONFIG) private readonly config: GatewayConfig,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly rpc: RpcClient,
  ) {
    // The library times calls with this process's clock (Date.now()), which tests step by hand.
    this.gcra = RedisGCRA({ redis });
  }

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

  /** The counters of every limit that applies to this call. */
  private counters(p: ProjectPrincipal, limits: readonly RateLimitRule[], call: RateLimitedCall): Counter[] {
    const scale = this.config.ROTA_RATE_LIMIT_WINDOW_SCALE;
    // The layout of earlier releases, whose counters held the same value (the time the next call is due, in ms): they carry over.
    const base = `${this.config.ROTA_REDIS_PREFIX}:rl:{${p.projectId}:${p.environment}}`;
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
          subject = call.tool !== null && (l.target === undefined || l.target === call.tool) ? call.tool : null;
          break;
        case 'provider':
          subject =
            call.provider !== null && (l.target === undefined || l.target === call.provider) ? call.provider : null;
          break;
      }
      if (subject === null) continue;
      const name = l.target ? `${l.scope}:${l.target}` : l.scope;
      // A limit naming its target and one covering every target count apart, as two limits should.
      const key = `${base}:${l.scope}:${l.target === undefined ? '*' : 't'}:${subject}`;
      if (l.per_second)
        out.push({ name: `${name}/s`, key: `${key}:s`, quota: l.per_second, periodMs: scale * 1000, windowS: scale });
      if (l.per_minute)
        out.push({
          name: `${name}/min`,
          key: `${key}:min`,
          quota: l.per_minute,
          periodMs: 60 * scale * 1000,
          windowS: 60 * scale,
        });
    }
    return out;
  }

  /** Checks and counts one call against every limit that applies; says whether the call is over any. */
  async consume(p: ProjectPrincipal, call: RateLimitedCall): Promise<RateVerdict> {
    const counters = this.counters(p, await this.limitsOf(p), call);
    if (counters.length === 0) return { limited: false, headers: null };
    let readings: Reading[];
    try {
      if (
        call.idempotencyKey &&
        (await this.redis.exists(
          idempotencyMarkerKey(
            this.config.ROTA_REDIS_PREFIX,
            { org_id: p.orgId, project_id: p.projectId, environment: p.environment },
            call.idempotencyKey,
          ),
        )) > 0
      ) {
        return { limited: false, headers: null };
      }
      readings = await this.decide(counters);
    } catch (err) {
      this.warn(err);
      return { limited: false, headers: null };
    }
    const known = counters.map((c, i) => ({ c, r: readings[i]! }));
    const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
    const over = known.filter((k) => k.r.over);
    // The limit that tells the caller most: the spent one that frees last, else the one closest to spent.
    const tightest =
      over.length > 0
        ? over.reduce((a, b) => (b.r.retryMs > a.r.retryMs ? b : a))
        : known.reduce((a, b) => (b.r.remaining < a.r.remaining ? b : a));
    const headers: RateLimitHeaders = {
      'ratelimit-policy': known.map((k) => `"${k.c.name}";q=${k.c.quota};w=${k.c.windowS}`).join(', '),
      ratelimit: `"${tightest.c.name}";r=${tightest.r.remaining};t=${seconds(tightest.r.resetMs)}`,
    };
    if (over.length > 0) return { limited: true, retryAfterS: seconds(tightest.r.retryMs), headers };
    return { limited: false, headers };
  }

  /**
   * What every limit says about the call, counting it only when all allow it.
   * One limit: the library's script checks and counts at once. Several: a
   * `peek` at each (one round trip, nothing counted), then, when none is
   * spent, a `limit` on each (a second round trip). Between the two, a call
   * on another replica can spend a limit's last unit; this call is then
   * refused, and the limits that did count it keep that count (the library
   * cannot give a call back). Only calls racing for a limit's last unit pay
   * that; once a limit is spent, its peek refuses calls before anything counts.
   * The peek is skipped while every limit is far from spent as far as this
   * replica last saw (see `mayBeSpent`).
   */
  private async decide(counters: readonly Counter[]): Promise<Reading[]> {
    if (counters.length > 1 && counters.some((c) => this.mayBeSpent(c))) {
      const peeked = await Promise.all(counters.map((c) => this.gcra.peek(bucket(c))));
      if (peeked.some((r) => r.limited)) {
        return peeked.map((r, i) => {
          const b = bucket(counters[i]!);
          // The bucket is full at resetIn; one call fits (burst - 1) intervals before that.
          const retryMs = r.limited ? Math.max(1, r.resetIn - (b.burst - 1) * (b.period / b.rate)) : 0;
          return { over: r.limited, remaining: r.remaining, retryMs, resetMs: r.resetIn };
        });
      }
    }
    const taken = await Promise.all(counters.map((c) => this.gcra.limit(bucket(c))));
    const at = Date.now();
    taken.forEach((r, i) => this.remember(counters[i]!, r.limited ? 0 : r.remaining, at));
    return taken.map((r) => ({ over: r.limited, remaining: r.remaining, retryMs: r.retryIn, resetMs: r.resetIn }));
  }

  /**
   * Whether a counter could be spent now, as far as this replica knows: it
   * has not counted a call on it within the counter's period, or it saw
   * fewer than `NEAR_SPENT` calls left. Far from spent, the read that keeps a
   * refused call off the other limits is skipped (one round trip instead of
   * two): for it to matter, other replicas would have to use up that many
   * calls between two of this replica's calls.
   */
  private mayBeSpent(c: Counter): boolean {
    const seen = this.lastSeen.get(c.key);
    return !seen || Date.now() - seen.at > c.periodMs || seen.remaining < Math.max(NEAR_SPENT, c.quota / 100);
  }

  private remember(c: Counter, remaining: number, at: number) {
    if (this.lastSeen.size >= LAST_SEEN_MAX && !this.lastSeen.has(c.key)) this.lastSeen.clear();
    this.lastSeen.set(c.key, { remaining, at });
  }

  /** The refusal of a limited call, for HTTP (429 with `Retry-After`). */
  static refusal(v: Extract<RateVerdict, { limited: true }>): AppError {
    return new AppError('rate_limited', `Rate limit reached; retry in ${v.retryAfterS} s.`, {
      retry_after: v.retryAfterS,
    });
  }

  private warned = 0;

  private warn(err: unknown) {
    if (Date.now() - this.warned < 10_000) return;
    this.warned = Date.now();
    this.log.warn({ err }, 'call rate limiter unavailable; not limiting');
  }
}
