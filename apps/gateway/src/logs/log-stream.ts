import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AppError, LOG_STREAM_FIELDS as F, logStreamKey, type Environment } from '@rota/contracts';
import { CONFIG, createLogger, REDIS } from '@rota/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Redis from 'ioredis';
import { ApiKeyService } from '../auth/api-key.service';
import type { GatewayConfig } from '../config';

/** A stream entry id `<ms>-<seq>`, compared as two numbers. */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am !== bm ? am - bm : as - bs;
}

/** Entries read per round trip, on the live read and on a catch-up. */
const BATCH = 500;
/** How long one blocking read waits before it checks whether anyone still listens. */
const BLOCK_MS = 5000;
/** A subscriber whose socket holds this much unsent data is dropped; it resumes with `Last-Event-ID`. */
const MAX_UNSENT_BYTES = 1024 * 1024;
/** Live events held for a subscriber while it catches up; past this it is dropped and resumes. */
const MAX_HELD_EVENTS = 10_000;

interface StreamOptions {
  projectId: string;
  environment: Environment;
  sessionId: string | null;
  lastEventId: string | null;
}

/** One open `GET /v1/logs/stream`. */
class Subscriber {
  /** The last stream position this subscriber has been given (or deliberately skipped). */
  position = '0-0';
  /** Until its catch-up is done, live events wait here, in order. */
  held: { id: string; frame: string }[] | null = [];
  res: FastifyReply['raw'] | null = null;
  heartbeat: NodeJS.Timeout | null = null;

  constructor(readonly opts: StreamOptions) {}

  matches(project: string, environment: string, session: string): boolean {
    return (
      project === this.opts.projectId &&
      environment === this.opts.environment &&
      (this.opts.sessionId === null || session === this.opts.sessionId)
    );
  }

  /** Sends an event once: nothing at or before the position it already reached. */
  send(id: string, frame: string): void {
    if (compareIds(id, this.position) <= 0) return;
    this.position = id;
    this.write(frame);
  }

  write(text: string): void {
    const res = this.res;
    if (!res || res.destroyed || res.writableEnded) return;
    if (res.writableLength > MAX_UNSENT_BYTES) {
      res.destroy();
      return;
    }
    res.write(text);
  }

  end(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (this.res && !this.res.writableEnded) this.res.end();
  }
}

const frameOf = (id: string, data: string) => `id: ${id}\nevent: call\ndata: ${data}\n\n`;

/** Field-value pairs of a stream entry as a map. */
function fieldsOf(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) out[raw[i]!] = raw[i + 1]!;
  return out;
}

/**
 * The fan-out of `GET /v1/logs/stream` on one gateway replica. Session
 * replicas append each finished call to one Redis Stream per deployment;
 * this replica reads it with one blocking `XREAD` (only while someone
 * listens) and hands each entry to the subscribers whose project,
 * environment and session it matches.
 *
 * No gap, no duplicate: a subscriber is registered (holding live events)
 * before it reads what it missed with `XRANGE` from its `Last-Event-ID` (or
 * the stream's end when it has none); the live read started before that, so
 * every entry is either in the catch-up or among the held events, and an
 * event at or before the subscriber's position is never sent twice.
 */
@Injectable()
export class LogStreamHub implements OnModuleDestroy {
  private readonly log;
  private readonly key: string;
  private readonly subscribers = new Set<Subscriber>();
  /** The blocking connection of the live read; the shared client answers everything else. */
  private reader: Redis | null = null;
  private position = '0-0';
  private started: Promise<void> | null = null;
  private closed = false;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    private readonly keys: ApiKeyService,
  ) {
    this.log = createLogger('gateway', config.LOG_LEVEL);
    this.key = logStreamKey(config.ROTA_REDIS_PREFIX);
  }

  /** Subscribers on this replica (for tests and benchmarks). */
  get size(): number {
    return this.subscribers.size;
  }

  /**
   * Opens a stream on `reply`. Refusals before the first byte (shutdown, too
   * many subscribers, Redis out of reach) throw and get the error envelope;
   * after that, a failure ends the stream and the client resumes.
   */
  async open(req: FastifyRequest, reply: FastifyReply, opts: StreamOptions): Promise<void> {
    if (this.closed) throw new AppError('unavailable', 'The gateway is shutting down; open the stream again.');
    if (this.subscribers.size >= this.config.ROTA_SSE_MAX_SUBSCRIBERS) {
      throw new AppError('unavailable', 'This gateway replica serves as many log streams as it may; retry shortly.');
    }
    const sub = new Subscriber(opts);
    this.subscribers.add(sub);
    let gap: { after: string; oldest_id: string | null } | null = null;
    try {
      await this.startReading();
      sub.position = opts.lastEventId ?? (await this.tip());
      if (opts.lastEventId) gap = await this.gapAfter(opts.lastEventId);
    } catch (err) {
      this.subscribers.delete(sub);
      if (err instanceof AppError) throw err;
      this.log.warn({ err, request_id: req.id }, 'log stream: Redis did not answer');
      throw new AppError('unavailable', 'The log stream cannot be read right now; retry shortly.');
    }

    reply.hijack();
    const res = reply.raw;
    sub.res = res;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'x-request-id': String(req.id),
    });
    res.on('close', () => this.drop(sub));
    // Clients reconnect after 2 s; the comment makes the headers go out now.
    sub.write('retry: 2000\n: connected\n\n');
    if (gap) sub.write(`event: gap\ndata: ${JSON.stringify(gap)}\n\n`);
    const authorization = req.headers.authorization;
    sub.heartbeat = setInterval(() => this.beat(sub, authorization), this.config.ROTA_SSE_HEARTBEAT_MS);
    sub.heartbeat.unref();

    try {
      await this.catchUp(sub);
    } catch (err) {
      this.log.warn({ err, request_id: req.id }, 'log stream: catch-up failed; the client resumes from its last event');
      this.drop(sub);
      return;
    }
    const held = sub.held ?? [];
    sub.held = null;
    for (const e of held) sub.send(e.id, e.frame);
  }

  /** Everything after the subscriber's position up to now, in pages. */
  private async catchUp(sub: Subscriber): Promise<void> {
    let from = sub.position;
    for (;;) {
      if (!this.subscribers.has(sub)) return;
      const entries = (await this.redis.xrange(this.key, `(${from}`, '+', 'COUNT', BATCH)) as [string, string[]][];
      for (const [id, raw] of entries) {
        const f = fieldsOf(raw);
        if (sub.matches(f[F.project] ?? '', f[F.environment] ?? '', f[F.session] ?? ''))
          sub.send(id, frameOf(id, f[F.data] ?? 'null'));
        else if (compareIds(id, sub.position) > 0) sub.position = id;
        from = id;
      }
      if (entries.length < BATCH) return;
    }
  }

  /** A comment line keeps proxies from closing the stream; a revoked key ends it. */
  private beat(sub: Subscriber, authorization: string | undefined): void {
    sub.write(': heartbeat\n\n');
    const check = (principal: unknown) => {
      if (!principal) this.drop(sub);
    };
    try {
      const found = this.keys.verify(authorization);
      if (found instanceof Promise) found.then(check, () => undefined);
      else check(found);
    } catch {
      // The database is out of reach: keep streaming, check again on the next beat.
    }
  }

  private drop(sub: Subscriber): void {
    this.subscribers.delete(sub);
    sub.end();
  }

  /** The id of the newest entry, or `0-0` when the stream is empty. */
  private async tip(): Promise<string> {
    const last = (await this.redis.xrevrange(this.key, '+', '-', 'COUNT', 1)) as [string, string[]][];
    return last[0]?.[0] ?? '0-0';
  }

  /**
   * Whether entries after `after` may have been trimmed away (the stream
   * keeps about `ROTA_LOG_STREAM_MAXLEN`): `after` is older than the oldest
   * entry left and the stream has lost entries. Then the client is told,
   * once, where the stream now starts; `GET /v1/logs` has the rest.
   */
  private async gapAfter(after: string): Promise<{ after: string; oldest_id: string | null } | null> {
    let info: unknown[];
    try {
      info = (await this.redis.xinfo('STREAM', this.key)) as unknown[];
    } catch (err) {
      if (/no such key/i.test((err as Error).message)) return null;
      throw err;
    }
    const field = (name: string) => {
      const i = info.indexOf(name);
      return i >= 0 ? info[i + 1] : undefined;
    };
    const length = Number(field('length'));
    const added = Number(field('entries-added'));
    // Redis before 7 does not count what was added: assume entries were trimmed.
    const trimmed = Number.isFinite(added) ? added > length : true;
    if (!trimmed) return null;
    const first = field('first-entry') as [string, string[]] | null | undefined;
    const oldest = first?.[0] ?? null;
    const boundary = oldest ?? (field('last-generated-id') as string | undefined) ?? '0-0';
    const lost = oldest ? compareIds(after, oldest) < 0 : compareIds(after, boundary) < 0;
    return lost ? { after, oldest_id: oldest } : null;
  }

  /** Starts the live read if it is not running; resolves once its position is fixed. */
  private startReading(): Promise<void> {
    if (this.started) return this.started;
    const started = this.tip().then((tip) => {
      this.position = tip;
      void this.readLoop();
    });
    this.started = started;
    started.catch(() => {
      if (this.started === started) this.started = null;
    });
    return started;
  }

  private async readLoop(): Promise<void> {
    // XREAD BLOCK holds its connection: it gets its own, which waits through Redis outages.
    if (!this.reader) {
      this.reader = new Redis(this.config.REDIS_URL, {
        maxRetriesPerRequest: null,
        enableOfflineQueue: true,
        connectionName: 'rota-gateway-logs',
      });
      // Outages show up as failed reads below; the client reconnects by itself.
      this.reader.on('error', () => undefined);
    }
    const reader = this.reader;
    while (!this.closed && this.subscribers.size > 0) {
      try {
        const got = (await reader.xread('COUNT', BATCH, 'BLOCK', BLOCK_MS, 'STREAMS', this.key, this.position)) as
          [string, [string, string[]][]][] | null;
        for (const [, entries] of got ?? []) for (const [id, raw] of entries) this.dispatch(id, raw);
      } catch (err) {
        if (this.closed) break;
        this.log.warn({ err }, 'log stream: live read failed; retrying');
        await new Promise((r) => setTimeout(r, 500).unref());
      }
    }
    // Nobody listens (or shutdown): the next subscriber starts a fresh read from the stream's end.
    this.started = null;
  }

  private dispatch(id: string, raw: string[]): void {
    this.position = id;
    if (this.subscribers.size === 0) return;
    const f = fieldsOf(raw);
    let frame: string | null = null;
    for (const sub of this.subscribers) {
      if (!sub.matches(f[F.project] ?? '', f[F.environment] ?? '', f[F.session] ?? '')) continue;
      frame ??= frameOf(id, f[F.data] ?? 'null');
      if (sub.held) {
        sub.held.push({ id, frame });
        if (sub.held.length > MAX_HELD_EVENTS) this.drop(sub);
      } else {
        sub.send(id, frame);
      }
    }
  }

  /** Ends every stream (clients resume elsewhere with `Last-Event-ID`) and stops reading. */
  onModuleDestroy(): void {
    this.closed = true;
    for (const sub of [...this.subscribers]) this.drop(sub);
    this.reader?.disconnect();
    this.reader = null;
  }
}
