/**
 * Types for `redis-gcra`, which ships none: the parts the gateway calls, as
 * its README and `lib/index.js` (0.3.0) define them.
 */
declare module 'redis-gcra' {
  import type { Redis } from 'ioredis';

  /** Defines the limiter's Lua command on `redis` (once per client) and answers a limiter over it. */
  function RedisGCRA(options: { redis: Redis; keyPrefix?: string }): RedisGCRA.Limiter;

  namespace RedisGCRA {
    /** One limit: a bucket of `burst` calls refilled at `rate` per `period` ms. */
    interface Args {
      /** The Redis key of the counter (after the limiter's `keyPrefix`, if any). */
      key: string;
      /** The most calls that can pass at once (the bucket's size); at least 1, need not be whole. */
      burst: number;
      /** Calls the bucket regains per `period`; at least 1. */
      rate: number;
      /** The period in milliseconds. */
      period: number;
    }

    /** What `limit` answers. */
    interface Taken {
      /** The call was refused; a refused call takes nothing. */
      limited: boolean;
      /** Whole calls left after this one (when refused: left now). */
      remaining: number;
      /** When refused: milliseconds until a call would pass; 0 otherwise. */
      retryIn: number;
      /** Milliseconds until the bucket is full again. */
      resetIn: number;
    }

    /** What `peek` answers: `limited` when not one whole call is left. */
    type Peeked = Omit<Taken, 'retryIn'>;

    interface Limiter {
      /** Takes `cost` calls (default 1) when the bucket holds them, atomically; otherwise takes nothing. */
      limit(args: Args & { cost?: number }): Promise<Taken>;
      /** Reads the bucket without taking anything. */
      peek(args: Args): Promise<Peeked>;
      /** Deletes the counter (the bucket is full again). */
      reset(args: { key: string }): Promise<boolean>;
    }
  }

  export = RedisGCRA;
}
