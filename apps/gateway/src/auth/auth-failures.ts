import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, LOGGER, REDIS, type Logger } from '@rota/service-kit';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { GatewayConfig } from '../config';

/**
 * Counts failed authentications (401s) per source address in Redis, so every
 * gateway replica sees the same count: a caller guessing keys is refused with
 * 429 after `ROTA_AUTH_FAIL_LIMIT` failures within `ROTA_AUTH_FAIL_WINDOW_S`,
 * until the window ends, whichever replica it reaches. The back-off never
 * refuses a valid key by itself: a well-formed key from an address in
 * back-off is still looked up while the global failed-lookup budget
 * (`ROTA_AUTH_FAILED_LOOKUPS_PER_S`) has room, and served when it is valid.
 *
 * Redis trouble never blocks authentication. The limiter only slows down
 * guessing (a key is 256 bits of randomness, so guessing is hopeless anyway);
 * refusing every caller because Redis is away would turn a Redis outage into
 * a full outage of the API for legitimate keys. Errors are logged and the
 * request goes on to the key lookup.
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly limiter: RateLimiterRedis | null;
  private readonly limit: number;
  /** Failed key lookups per second, all addresses together (`ROTA_AUTH_FAILED_LOOKUPS_PER_S`). */
  private readonly budget: RateLimiterRedis | null;
  private readonly budgetPoints: number;

  constructor(
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(REDIS) redis: Redis,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.limit = config.ROTA_AUTH_FAIL_LIMIT;
    this.limiter =
      this.limit > 0
        ? new RateLimiterRedis({
            storeClient: redis,
            keyPrefix: `${config.ROTA_REDIS_PREFIX}:auth-fail`,
            points: this.limit,
            duration: config.ROTA_AUTH_FAIL_WINDOW_S,
            // Answer at once while the client is reconnecting instead of queueing.
            rejectIfRedisNotReady: true,
          })
        : null;
    this.budgetPoints = config.ROTA_AUTH_FAILED_LOOKUPS_PER_S;
    this.budget =
      this.budgetPoints > 0
        ? new RateLimiterRedis({
            storeClient: redis,
            keyPrefix: `${config.ROTA_REDIS_PREFIX}:auth-lookup-budget`,
            points: this.budgetPoints,
            duration: 1,
            rejectIfRedisNotReady: true,
          })
        : null;
  }

  /**
   * Whether the global failed-lookup budget of this second has room: an
   * address in back-off has its keys looked up only then, so a flood of
   * guesses costs the database at most the budget per second. True when
   * Redis cannot tell (see the class comment).
   */
  async lookupAllowed(): Promise<boolean> {
    if (!this.budget) return true;
    try {
      const res = await this.budget.get('all');
      return !res || res.consumedPoints < this.budgetPoints;
    } catch (err) {
      this.warn(err);
      return true;
    }
  }

  /** Records one key lookup that found no key, against the global budget. */
  async failedLookup(): Promise<void> {
    if (!this.budget) return;
    try {
      await this.budget.penalty('all', 1);
    } catch (err) {
      this.warn(err);
    }
  }

  /** Seconds until `address` may try again, or 0 when it is under the limit (or Redis cannot tell). */
  async retryAfter(address: string): Promise<number> {
    if (!this.limiter) return 0;
    try {
      const res = await this.limiter.get(address);
      if (!res || res.consumedPoints < this.limit) return 0;
      return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    } catch (err) {
      this.warn(err);
      return 0;
    }
  }

  /** Records one failed authentication from `address`. */
  async fail(address: string): Promise<void> {
    if (!this.limiter) return;
    try {
      await this.limiter.penalty(address, 1);
    } catch (err) {
      this.warn(err);
    }
  }

  private warned = 0;

  private warn(err: unknown) {
    // rate-limiter-flexible rejects with a RateLimiterRes only for limits, never here.
    if (err instanceof RateLimiterRes) return;
    // Once per ten seconds: while Redis is down every request would log it.
    if (Date.now() - this.warned < 10_000) return;
    this.warned = Date.now();
    this.log.warn({ err }, 'failed-authentication limiter unavailable; not limiting');
  }
}
