import { randomBytes } from 'node:crypto';
import { CustomTransportStrategy, Server } from '@nestjs/microservices';
import Redis from 'ioredis';
import { lastValueFrom, isObservable } from 'rxjs';
import { requestContext } from '../context';
import { createLogger } from '../logger';
import { toWire } from '../rpc-filter';
import { fieldsToObject, transportKeys, type StreamReply } from './keys';

export interface RedisStreamsServerOptions {
  url: string;
  prefix: string;
  /** Service name; also the consumer group. */
  service: string;
  /** Unique per replica; defaults to host-pid-random. */
  consumer?: string;
  /** Max requests handled at once by this replica. */
  concurrency?: number;
  /**
   * Entries taken per read. Small batches keep a burst spread over all
   * replicas instead of landing on whichever one read first.
   */
  batch?: number;
  /** Heartbeat period; a consumer silent for 3 periods is considered dead. */
  heartbeatMs?: number;
  /** How often this replica looks for requests stuck on dead consumers. */
  reclaimEveryMs?: number;
  /** How long shutdown waits for in-flight handlers. */
  drainTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Nest transport strategy over Redis Streams consumer groups.
 *
 * Every replica of a service reads the same stream as a member of one consumer
 * group, so each request is delivered to exactly one replica and the replicas
 * share the load. Replies go back on the caller's own pub/sub channel.
 *
 * A replica that dies leaves its unacknowledged entries pending. Another
 * replica notices the missing heartbeat, claims those entries and answers them
 * with `unavailable` instead of running them again: a request may have moved
 * money, so it is never repeated behind the caller's back.
 */
export class RedisStreamsServer extends Server implements CustomTransportStrategy {
  private readonly keys;
  private readonly stream: string;
  private readonly consumer: string;
  private readonly concurrency: number;
  private readonly batch: number;
  private readonly heartbeatMs: number;
  private readonly reclaimEveryMs: number;
  private readonly drainTimeoutMs: number;
  private readonly log;
  private reader?: Redis;
  private writer?: Redis;
  private running = false;
  private loop?: Promise<void>;
  private timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private handled = 0;

  constructor(private readonly options: RedisStreamsServerOptions) {
    super();
    this.keys = transportKeys(options.prefix);
    this.stream = this.keys.stream(options.service);
    this.consumer = options.consumer ?? `${process.pid}-${randomBytes(4).toString('hex')}`;
    this.concurrency = options.concurrency ?? 128;
    this.batch = options.batch ?? 8;
    this.heartbeatMs = options.heartbeatMs ?? 1000;
    this.reclaimEveryMs = options.reclaimEveryMs ?? 2000;
    this.drainTimeoutMs = options.drainTimeoutMs ?? 10000;
    this.log = createLogger(`transport:${options.service}`);
  }

  get consumerName() {
    return this.consumer;
  }

  get handledCount() {
    return this.handled;
  }

  listen(callback: (...optionalParams: unknown[]) => unknown) {
    const common = { lazyConnect: false, maxRetriesPerRequest: null, retryStrategy: (n: number) => Math.min(50 * n, 500) };
    this.reader = new Redis(this.options.url, { ...common, connectionName: `rota-${this.options.service}-reader` });
    // Auto-pipelining folds the replies and acks of one tick into a single write.
    this.writer = new Redis(this.options.url, { ...common, enableAutoPipelining: true, connectionName: `rota-${this.options.service}-writer` });
    this.reader.on('error', () => undefined);
    this.writer.on('error', () => undefined);
    this.running = true;
    this.loop = this.readLoop();
    void this.beat();
    this.timers.push(setInterval(() => void this.beat(), this.heartbeatMs));
    this.timers.push(setInterval(() => void this.reclaimDead(), this.reclaimEveryMs));
    callback();
  }

  on(): never {
    throw new Error('RedisStreamsServer does not emit events');
  }

  unwrap<T>(): T {
    return { reader: this.reader, writer: this.writer } as T;
  }

  /** Stops reading, waits for in-flight handlers, then leaves the group. */
  async close() {
    if (!this.running) return;
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    // The blocking read returns within its block period; do not wait on it
    // longer than the drain budget.
    const drained = Promise.all([this.loop, ...this.inFlight]);
    let budget: NodeJS.Timeout | undefined;
    await Promise.race([drained, new Promise((r) => (budget = setTimeout(r, this.drainTimeoutMs)))]);
    clearTimeout(budget);
    try {
      await this.writer?.del(this.keys.heartbeat(this.options.service, this.consumer));
      if (this.inFlight.size === 0) {
        await this.writer?.xgroup('DELCONSUMER', this.stream, this.options.service, this.consumer);
      }
    } catch {
      // Redis may already be gone; the heartbeat key expires on its own.
    }
    this.reader?.disconnect();
    this.writer?.disconnect();
  }

  private async ensureGroup() {
    try {
      await this.writer!.xgroup('CREATE', this.stream, this.options.service, '0', 'MKSTREAM');
    } catch (err) {
      if (!String((err as Error).message).includes('BUSYGROUP')) throw err;
    }
  }

  private async readLoop() {
    let groupReady = false;
    while (this.running) {
      try {
        if (!groupReady) {
          await this.ensureGroup();
          groupReady = true;
        }
        const room = this.concurrency - this.inFlight.size;
        if (room <= 0) {
          await Promise.race(this.inFlight);
          continue;
        }
        const res = (await this.reader!.xreadgroup(
          'GROUP',
          this.options.service,
          this.consumer,
          'COUNT',
          Math.min(room, this.batch),
          'BLOCK',
          500,
          'STREAMS',
          this.stream,
          '>',
        )) as [string, [string, string[]][]][] | null;
        if (!res) continue;
        for (const [, entries] of res) {
          for (const [entryId, fields] of entries) this.track(this.handle(entryId, fieldsToObject(fields)));
        }
      } catch (err) {
        const msg = String((err as Error).message);
        // After a Redis restart the stream and its group are gone.
        if (msg.includes('NOGROUP')) groupReady = false;
        else if (this.running) this.log.warn({ err: msg }, 'stream read failed; retrying');
        await sleep(100);
      }
    }
  }

  private track(p: Promise<void>) {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async handle(entryId: string, f: Record<string, string>) {
    const deadline = Number(f.t);
    if (!f.i || !f.r || !f.p) return this.ack(entryId);
    if (Date.now() > deadline) {
      // Nobody waits for this answer any more; running it could only do harm.
      this.log.warn({ pattern: f.p, request_id: f.q }, 'dropped request past its deadline');
      return this.ack(entryId);
    }
    const reply: StreamReply = { i: f.i };
    await requestContext.run({ requestId: f.q, deadline }, async () => {
      // Our patterns are plain strings, registered under themselves; Nest's
      // lookup first tries JSON.parse on every pattern, and the exception it
      // throws and catches costs more than the rest of a small handler.
      const handler = this.messageHandlers.get(f.p) ?? this.getHandlerByPattern(f.p);
      if (!handler) {
        reply.err = { code: 'not_found', message: `No handler for ${f.p}` };
        return;
      }
      try {
        const data = JSON.parse(f.d);
        const result = await handler(data, { pattern: f.p, requestId: f.q, deadline });
        reply.ok = isObservable(result) ? await lastValueFrom(result) : result;
      } catch (err) {
        reply.err = toWire(err);
      }
    });
    this.handled++;
    this.log.debug({ request_id: f.q, pattern: f.p, ok: !reply.err, code: reply.err?.code }, 'handled');
    // Reply and acknowledgement leave in the same tick, so the writer's
    // auto-pipelining sends them to Redis in one write (PUBLISH first). An
    // entry is never run twice either way: one left pending by a replica that
    // died is answered `unavailable` (see reclaimDead).
    const published = this.writer!.publish(f.r, JSON.stringify(reply));
    const acked = this.ack(entryId);
    try {
      await published;
    } finally {
      await acked;
    }
  }

  private async ack(entryId: string) {
    try {
      await Promise.all([this.writer!.xack(this.stream, this.options.service, entryId), this.writer!.xdel(this.stream, entryId)]);
    } catch {
      // Redis gone: the entry vanishes with it, or is reclaimed later.
    }
  }

  private async beat() {
    try {
      await this.writer!.set(this.keys.heartbeat(this.options.service, this.consumer), '1', 'PX', this.heartbeatMs * 3);
    } catch {
      // next beat retries
    }
  }

  /**
   * Answers `unavailable` for entries stuck on consumers whose heartbeat has
   * expired, and removes those consumers from the group. XCLAIM with a minimum
   * idle time makes sure two replicas never both answer the same entry.
   */
  private async reclaimDead() {
    if (!this.running || !this.writer) return;
    try {
      const consumers = (await this.writer.xinfo('CONSUMERS', this.stream, this.options.service)) as unknown[][];
      for (const raw of consumers) {
        const info = fieldsToObject(raw.map(String));
        const name = info.name;
        if (!name || name === this.consumer) continue;
        const alive = await this.writer.exists(this.keys.heartbeat(this.options.service, name));
        if (alive) continue;
        const pending = (await this.writer.xpending(this.stream, this.options.service, '-', '+', 100, name)) as [string, string, number, number][];
        for (const [entryId, , idle] of pending) {
          const claimed = (await this.writer.xclaim(this.stream, this.options.service, this.consumer, Math.max(0, idle - 1), entryId)) as [string, string[]][];
          for (const [id, fields] of claimed) {
            if (!fields) continue;
            const f = fieldsToObject(fields);
            if (f.r && f.i && Date.now() <= Number(f.t)) {
              const reply: StreamReply = { i: f.i, err: { code: 'unavailable', message: 'The replica handling this request stopped before answering.' } };
              await this.writer.publish(f.r, JSON.stringify(reply));
            }
            await this.ack(id);
          }
        }
        if (pending.length === 0 && Number(info.pending ?? 0) === 0) {
          await this.writer.xgroup('DELCONSUMER', this.stream, this.options.service, name);
        }
      }
    } catch {
      // The stream may not exist yet, or Redis is away; try again next tick.
    }
  }
}

