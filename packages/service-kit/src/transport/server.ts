import { randomBytes } from 'node:crypto';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { CustomTransportStrategy, Server } from '@nestjs/microservices';
import { patternOnlyReads, type Tenant, unansweredCode } from '@rota/contracts';
import Redis from 'ioredis';
import { lastValueFrom, isObservable } from 'rxjs';
import { requestContext } from '../context';
import { createLogger } from '../logger';
import { transportMetrics } from '../metrics';
import { toWire } from '../rpc-filter';
import { contextFromCarrier, recordErrorCode } from '../tracing';
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
  /** How long one read waits for new entries; shutdown waits up to this long for the last read. */
  blockMs?: number;
  /**
   * Patterns that only read: their entries run without being claimed first
   * (see `READ_ONLY_PATTERNS`, the default).
   */
  onlyReads?: (pattern: string) => boolean;
}

/** What a handler receives as its Nest context (second argument). */
export interface StreamRequestContext {
  pattern: string;
  requestId: string;
  deadline: number;
  /** Whether the pattern acts (see `ACTING_PATTERNS`): decides how lost dependencies are reported. */
  acts: boolean;
  tenant?: Tenant;
}

/**
 * Claims `started` on each entry's state key (SET NX), in one round trip per
 * batch. A 0 means a peer got there first (it answered the entry for this
 * replica, believing it dead), so the entry must not run.
 * KEYS: state keys; ARGV: one expiry (ms) per key.
 */
const START_SCRIPT = `
local won = {}
for i, key in ipairs(KEYS) do
  if redis.call('SET', key, 'started', 'NX', 'PX', ARGV[i]) then won[i] = 1 else won[i] = 0 end
end
return won`;

/**
 * Takes over one pending entry for an answer, atomically: claim it (the
 * min-idle guard lets only one replica win), mark its state `reaped` unless
 * it already has one, and remove it. Returns the entry's fields and the state
 * it had before (`started`, or '' when it never started), or nil when
 * there is nothing left to answer.
 * KEYS: stream, state key; ARGV: group, consumer, min idle, entry id, now (ms), state expiry margin (ms).
 */
const REAP_SCRIPT = `
local claimed = redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
local entry = claimed[1]
if not entry then return nil end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[4])
redis.call('XDEL', KEYS[1], ARGV[4])
if not entry[2] then return nil end
local fields = entry[2]
local deadline = 0
for i = 1, #fields, 2 do
  if fields[i] == 't' then deadline = tonumber(fields[i + 1]) or 0 end
end
local ttl = math.max(deadline - tonumber(ARGV[5]), 0) + tonumber(ARGV[6])
local before = redis.call('SET', KEYS[2], 'reaped', 'NX', 'GET', 'PX', ttl)
return {fields, before or ''}`;

/** How long an entry's state outlives its deadline: covers clock skew between replicas. */
const STATE_MARGIN_MS = 5 * 60_000;

type Entry = [id: string, fields: Record<string, string>];

interface ScriptedRedis extends Redis {
  rotaStart(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
  rotaReap(
    stream: string,
    state: string,
    group: string,
    consumer: string,
    minIdle: number,
    entryId: string,
    now: number,
    margin: number,
  ): Promise<[string[], string] | null>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `p`, but no longer than `ms`. */
async function within(p: Promise<unknown>, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise((r) => (timer = setTimeout(r, Math.max(0, ms))))]);
  clearTimeout(timer);
}

/**
 * Nest transport strategy over Redis Streams consumer groups.
 *
 * Every replica of a service reads the same stream as a member of one consumer
 * group, so each request is delivered to exactly one replica and the replicas
 * share the load. Replies go back on the caller's own pub/sub channel.
 *
 * A request is never run twice and never run behind an answer that says it
 * did not run. Each entry has a state key that exactly one party claims: the
 * replica that read it sets `started` right before calling the handler; a
 * peer that finds the entry pending on a replica whose heartbeat expired sets
 * `reaped` before answering for it. A replica that was only stalled (GC, a
 * paused VM) and loses that race skips the entry; a peer that loses it knows
 * the handler ran, and answers `outcome_unknown` on patterns that act.
 * Entries are never started past their deadline.
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
  private readonly blockMs: number;
  private readonly onlyReads: (pattern: string) => boolean;
  private readonly log;
  /** Instrumentation scope of this service's spans. */
  private readonly tracerName: string;
  private reader?: Redis;
  private writer?: ScriptedRedis;
  private running = false;
  private loop?: Promise<void>;
  private timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  /** Entries read after shutdown began: never started, answered on the way out. */
  private readonly leftBehind: string[] = [];
  private handled = 0;
  private readonly metrics = {
    seconds: transportMetrics.serverSeconds(),
    errors: transportMetrics.serverErrors(),
    dropped: transportMetrics.serverDropped(),
  };

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
    this.blockMs = options.blockMs ?? 500;
    this.onlyReads = options.onlyReads ?? patternOnlyReads;
    this.log = createLogger(`transport:${options.service}`);
    this.tracerName = `rota.${options.service}`;
  }

  get consumerName() {
    return this.consumer;
  }

  get handledCount() {
    return this.handled;
  }

  listen(callback: (...optionalParams: unknown[]) => unknown) {
    const common = {
      lazyConnect: false,
      maxRetriesPerRequest: null,
      retryStrategy: (n: number) => Math.min(50 * n, 500),
    };
    this.reader = new Redis(this.options.url, { ...common, connectionName: `rota-${this.options.service}-reader` });
    // Auto-pipelining folds the replies and acks of one tick into a single write.
    const writer = new Redis(this.options.url, {
      ...common,
      enableAutoPipelining: true,
      connectionName: `rota-${this.options.service}-writer`,
    });
    writer.defineCommand('rotaStart', { lua: START_SCRIPT });
    writer.defineCommand('rotaReap', { numberOfKeys: 2, lua: REAP_SCRIPT });
    this.writer = writer as ScriptedRedis;
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

  /**
   * Stops reading, waits for in-flight handlers, answers what it read but
   * never started, then leaves the group. Entries returned by the read that
   * was blocked when shutdown began are not started: the drain could not wait
   * for them, and their replies would race the disconnect.
   */
  async close() {
    if (!this.running) return;
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const until = Date.now() + this.drainTimeoutMs;
    // Once the loop has returned nothing else gets tracked, so this snapshot
    // of in-flight work is complete.
    await within(this.loop ?? Promise.resolve(), until - Date.now());
    await within(Promise.all(this.inFlight), until - Date.now());
    try {
      await this.reap(this.leftBehind.splice(0), 0);
      await this.writer?.del(this.keys.heartbeat(this.options.service, this.consumer));
      // Deleting a consumer drops its pending entries for good; leave those
      // (handlers that outlived the drain) for a peer to answer.
      const pending = (await this.writer?.xpending(this.stream, this.options.service, '-', '+', 1, this.consumer)) as
        unknown[] | undefined;
      if (this.inFlight.size === 0 && pending?.length === 0) {
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
          this.blockMs,
          'STREAMS',
          this.stream,
          '>',
        )) as [string, [string, string[]][]][] | null;
        if (!res) continue;
        for (const [, entries] of res) {
          const batch = entries.map(([id, fields]): Entry => [id, fieldsToObject(fields)]);
          if (this.running) this.dispatch(batch);
          else this.leftBehind.push(...batch.map(([id]) => id));
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

  /**
   * Claims a batch in one round trip and runs the entries this replica still
   * owns. Malformed and expired entries are removed without running.
   */
  private dispatch(batch: Entry[]) {
    const now = Date.now();
    const live: Entry[] = [];
    const claim: (string | number)[] = [];
    for (const [id, f] of batch) {
      if (!f.i || !f.r || !f.p || !Number.isFinite(Number(f.t))) {
        void this.ack(id);
      } else if (now > Number(f.t)) {
        this.dropExpired(id, f);
      } else if (f.a !== '1' && this.onlyReads(f.p)) {
        // Nothing to protect: a read that runs twice, or after a peer
        // answered it `unavailable`, changes nothing.
        this.track(this.run(id, f, false));
      } else {
        live.push([id, f]);
        claim.push(this.keys.state(this.options.service, id));
      }
    }
    if (live.length === 0) return;
    for (const [, f] of live) claim.push(Math.max(0, Number(f.t) - now) + STATE_MARGIN_MS);
    const won = this.writer!.rotaStart(live.length, ...claim);
    live.forEach(([id, f], k) => {
      this.track(
        won.then(
          (flags) => (flags[k] === 1 ? this.run(id, f) : this.skip(id, f)),
          // Unknown whether the claim landed: leave the entry pending. It never
          // runs here, and if this replica dies a peer answers it from its state.
          () => undefined,
        ),
      );
    });
  }

  private dropExpired(id: string, f: Record<string, string>) {
    // Nobody waits for this answer any more; running it could only do harm.
    this.log.warn({ pattern: f.p, request_id: f.q }, 'dropped request past its deadline');
    this.metrics.dropped.inc({ service: this.options.service, reason: 'deadline' });
    void this.ack(id);
  }

  /** A peer answered this entry while this replica looked dead: it must not run. */
  private async skip(id: string, f: Record<string, string>) {
    this.log.warn({ pattern: f.p, request_id: f.q }, 'skipped a request a peer already answered');
    this.metrics.dropped.inc({ service: this.options.service, reason: 'answered_by_peer' });
    await this.ack(id);
  }

  /** Runs one entry and answers it; `claimed` when its state key says `started` (see {@link dispatch}). */
  private async run(entryId: string, f: Record<string, string>, claimed = true) {
    // `dispatch` checked i, r, p and t; q (the request id) may be absent.
    const { p: pattern = '', q: requestId = '', i: replyId = '' } = f;
    const deadline = Number(f.t);
    const state = this.keys.state(this.options.service, entryId);
    if (Date.now() > deadline) {
      // The claim took too long: still never started, and nobody waits.
      this.dropExpired(entryId, f);
      if (claimed) await this.writer!.del(state).catch(() => undefined);
      return;
    }
    const acts = f.a === '1';
    const reply: StreamReply = { i: replyId };
    let tenant: Tenant | undefined;
    try {
      tenant = f.n ? (JSON.parse(f.n) as Tenant) : undefined;
    } catch {
      reply.err = { code: 'internal', message: 'Internal error' };
    }
    const ctx: StreamRequestContext = { pattern: pattern, requestId: requestId, deadline, acts, tenant };
    const started = performance.now();
    // Continues the caller's trace (entries from callers that send none start their own).
    const parent = contextFromCarrier(f.c ? { traceparent: f.c, tracestate: f.s } : undefined);
    const span = trace.getTracer(this.tracerName).startSpan(pattern, { kind: SpanKind.SERVER }, parent);
    if (span.isRecording())
      span.setAttributes({ 'rpc.system': 'rota', 'rpc.method': pattern, 'rota.request_id': requestId });
    // Unknown patterns share one label value, so a stray entry cannot add series.
    let patternLabel = 'unknown';
    if (!reply.err) {
      await context.with(trace.setSpan(parent, span), () =>
        requestContext.run({ requestId, deadline, tenant, publicUrl: f.u || undefined }, async () => {
          // Our patterns are plain strings, registered under themselves; Nest's
          // lookup first tries JSON.parse on every pattern, and the exception it
          // throws and catches costs more than the rest of a small handler.
          const handler = this.messageHandlers.get(pattern) ?? this.getHandlerByPattern(pattern);
          if (!handler) {
            reply.err = { code: 'not_found', message: `No handler for ${pattern}` };
            return;
          }
          patternLabel = pattern;
          try {
            const data = JSON.parse(f.d ?? 'null');
            const result = await handler(data, ctx);
            reply.ok = isObservable(result) ? await lastValueFrom(result) : result;
          } catch (err) {
            reply.err = toWire(err, { acts });
          }
        }),
      );
    }
    if (reply.err) recordErrorCode(span, reply.err.code);
    span.end();
    this.handled++;
    const outcome = reply.err?.code ?? 'ok';
    this.metrics.seconds.observe(
      { service: this.options.service, pattern: patternLabel, outcome },
      (performance.now() - started) / 1000,
    );
    if (reply.err)
      this.metrics.errors.inc({ service: this.options.service, pattern: patternLabel, code: reply.err.code });
    this.log.debug({ request_id: requestId, pattern: pattern, ok: !reply.err, code: reply.err?.code }, 'handled');
    // Reply, acknowledgement and state removal leave in the same tick, so the
    // writer's auto-pipelining sends them in one write, in this order. A peer
    // reaping concurrently either still finds the entry pending and `started`
    // (and answers outcome_unknown, which the caller drops if the reply came
    // first) or finds it acknowledged and leaves it alone.
    const published = this.writer!.publish(f.r ?? '', JSON.stringify(reply));
    const acked = this.ack(entryId);
    const cleared = claimed ? this.writer!.del(state).catch(() => undefined) : undefined;
    try {
      await published;
    } finally {
      await acked;
      await cleared;
    }
  }

  private async ack(entryId: string) {
    try {
      await Promise.all([
        this.writer!.xack(this.stream, this.options.service, entryId),
        this.writer!.xdel(this.stream, entryId),
      ]);
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
   * Answers entries this replica takes over: `unavailable` for those that
   * never started, and for those that did, `outcome_unknown` on patterns that
   * act (`unavailable` elsewhere, since repeating them is harmless). Entries
   * past their deadline get no answer: their caller has already given up.
   */
  private async reap(entryIds: string[], minIdle: number) {
    for (const entryId of entryIds) {
      const taken = await this.writer!.rotaReap(
        this.stream,
        this.keys.state(this.options.service, entryId),
        this.options.service,
        this.consumer,
        minIdle,
        entryId,
        Date.now(),
        STATE_MARGIN_MS,
      );
      if (!taken) continue;
      const f = fieldsToObject(taken[0]);
      const started = taken[1] === 'started';
      if (!f.r || !f.i || Date.now() > Number(f.t)) continue;
      const code = unansweredCode(f.a === '1', started ? 'lost' : 'never_started');
      // A read-only entry is never claimed, so it may have run without a trace: harmless, but not "never started".
      const message =
        started || this.onlyReads(f.p ?? '')
          ? 'The replica handling this request stopped before answering; it may have run.'
          : 'The request was never started.';
      const reply: StreamReply = { i: f.i, err: { code, message } };
      await this.writer!.publish(f.r, JSON.stringify(reply));
    }
  }

  /**
   * Takes over entries stuck on consumers whose heartbeat has expired (see
   * {@link reap}), and removes those consumers from the group.
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
        const pending = (await this.writer.xpending(this.stream, this.options.service, '-', '+', 100, name)) as [
          string,
          string,
          number,
          number,
        ][];
        for (const [entryId, , idle] of pending) await this.reap([entryId], Math.max(0, idle - 1));
        if (pending.length === 0 && Number(info.pending ?? 0) === 0) {
          await this.writer.xgroup('DELCONSUMER', this.stream, this.options.service, name);
        }
      }
    } catch {
      // The stream may not exist yet, or Redis is away; try again next tick.
    }
  }
}
