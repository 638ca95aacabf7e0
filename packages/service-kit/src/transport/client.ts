import { randomBytes } from 'node:crypto';
import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { AppError, patternActs, unansweredCode, type ErrorCode, type Tenant } from '@rota/contracts';
import Redis, { ReplyError } from 'ioredis';
import type { TraceCarrier } from '../tracing';
import { serviceOf, transportKeys, type StreamReply } from './keys';

export interface RedisStreamsClientOptions {
  url: string;
  prefix: string;
  /** Deadline of a call when the caller gives none. */
  timeoutMs?: number;
  /** Cap on a service's request stream so a long outage cannot fill Redis. */
  maxStreamLength?: number;
  /** Which patterns act; defaults to the contract table (`ACTING_PATTERNS`). Tests and benchmarks add fixtures. */
  acts?: (pattern: string) => boolean;
}

/** Envelope the client wraps around every payload. */
export interface RpcEnvelope {
  payload: unknown;
  requestId: string;
  timeoutMs?: number;
  /** Who the request acts for; restored into the handler's request context. */
  tenant?: Tenant;
  /** W3C trace context of the caller's span; the handler's span continues it. */
  trace?: TraceCarrier;
  /** The gateway's public base URL (see `RequestContext.publicUrl`). */
  publicUrl?: string;
}

interface Pending {
  callback: (packet: WritePacket) => void;
  timer: NodeJS.Timeout;
  acts: boolean;
}

/**
 * Nest client proxy for {@link RedisStreamsServer}.
 *
 * A request is one XADD on the target service's stream; the reply arrives on
 * this client's own pub/sub channel. When Redis is unreachable calls fail at
 * once with 503 `unavailable` rather than queueing, and resume by themselves
 * once ioredis has reconnected and the reply channel is subscribed again.
 *
 * What a caller hears when no reply comes depends on whether the pattern acts
 * (`unansweredCode` in contracts). `unavailable` only when the request
 * provably never reached Redis: not sent at all, or refused by Redis. Once
 * the XADD may have been applied (it timed out, or the connection dropped
 * with it in flight), Redis can still apply it after a stall and a replica
 * run it, so the client keeps waiting for the reply until the deadline; with
 * none by then, an acting pattern gets `outcome_unknown`. The client does not
 * try to prove a request never ran by waiting out the deadline: that proof
 * would rest on the clocks of the caller's and the replica's hosts agreeing.
 */
export class RedisStreamsClient extends ClientProxy {
  private readonly keys;
  private readonly clientId = randomBytes(8).toString('hex');
  private readonly replyChannel: string;
  private readonly timeoutMs: number;
  private readonly maxLen: number;
  private pub?: Redis;
  private sub?: Redis;
  private subscribed = false;
  private seq = 0;
  private readonly pending = new Map<string, Pending>();
  private connecting?: Promise<void>;
  private readonly acts: (pattern: string) => boolean;

  constructor(private readonly options: RedisStreamsClientOptions) {
    super();
    this.keys = transportKeys(options.prefix);
    this.replyChannel = this.keys.reply(this.clientId);
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.maxLen = options.maxStreamLength ?? 100_000;
    this.acts = options.acts ?? patternActs;
  }

  connect(): Promise<void> {
    if (this.connecting) return this.connecting;
    const common = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 800,
      commandTimeout: 800,
      retryStrategy: (n: number) => Math.min(50 * n, 300),
    };
    this.pub = new Redis(this.options.url, { ...common, enableAutoPipelining: true, connectionName: 'rota-rpc-pub' });
    this.sub = new Redis(this.options.url, {
      ...common,
      commandTimeout: undefined,
      autoResubscribe: false,
      connectionName: 'rota-rpc-sub',
    });
    this.pub.on('error', () => undefined);
    this.sub.on('error', () => undefined);
    this.sub.on('message', (_channel: string, message: string) => this.onReply(message));
    // Replies travel over the subscriber connection: when it drops, no answer
    // can arrive, so fail everything in flight right away.
    this.sub.on('close', () => {
      this.subscribed = false;
      this.failAll('The service transport lost its connection.');
    });
    this.sub.on('ready', () => {
      this.sub!.subscribe(this.replyChannel).then(
        () => (this.subscribed = true),
        () => undefined,
      );
    });
    this.connecting = new Promise<void>((resolve) => {
      // Resolve on first subscription or after a short wait: callers made
      // while Redis is down must get a fast 503, not hang on connect().
      const done = () => resolve();
      const t = setTimeout(done, 1000);
      const check = setInterval(() => {
        if (this.subscribed) {
          clearTimeout(t);
          clearInterval(check);
          done();
        }
      }, 5);
      t.unref?.();
      setTimeout(() => clearInterval(check), 1000).unref?.();
    });
    return this.connecting;
  }

  async close() {
    this.failAll('The client is shutting down.');
    this.pub?.disconnect();
    this.sub?.disconnect();
    this.connecting = undefined;
  }

  unwrap<T>(): T {
    return { pub: this.pub, sub: this.sub } as T;
  }

  /** True when a request could be sent right now. */
  get ready(): boolean {
    return this.subscribed && this.pub?.status === 'ready';
  }

  protected publish(packet: ReadPacket<RpcEnvelope>, callback: (packet: WritePacket) => void): () => void {
    const pattern = String(packet.pattern);
    const env = packet.data;
    const id = `${this.clientId}.${++this.seq}`;
    const timeoutMs = env.timeoutMs ?? this.timeoutMs;
    if (!this.ready) {
      callback(errPacket(unansweredCode(false, 'never_started'), 'The service transport is unavailable.'));
      return () => undefined;
    }
    const acts = this.acts(pattern);
    const timer = setTimeout(() => {
      if (!this.pending.delete(id)) return;
      callback(
        errPacket(
          unansweredCode(acts, 'deadline'),
          `The ${serviceOf(pattern)} service did not answer within ${timeoutMs} ms.`,
        ),
      );
    }, timeoutMs);
    this.pending.set(id, { callback, timer, acts });
    const deadline = Date.now() + timeoutMs;
    const fields: (string | number)[] = [
      'i',
      id,
      'p',
      pattern,
      'd',
      JSON.stringify(env.payload ?? null),
      'r',
      this.replyChannel,
      't',
      String(deadline),
      'q',
      env.requestId,
    ];
    if (acts) fields.push('a', '1');
    if (env.tenant) fields.push('n', JSON.stringify(env.tenant));
    if (env.publicUrl) fields.push('u', env.publicUrl);
    if (env.trace?.traceparent) {
      fields.push('c', env.trace.traceparent);
      if (env.trace.tracestate) fields.push('s', env.trace.tracestate);
    }
    this.pub!.xadd(this.keys.stream(serviceOf(pattern)), 'MAXLEN', '~', this.maxLen, '*', ...fields).catch(
      (err: unknown) => {
        // A send Redis may still apply (a command timeout, a connection that
        // dropped with the XADD in flight) leaves the request pending: its
        // reply can still come, and otherwise the deadline answers it. A
        // command timeout is often no Redis trouble at all but this process's
        // own event loop held up past the timeout, with the reply already
        // waiting on the socket. Losing the reply channel fails it sooner.
        if (!neverWritten(err)) return;
        const p = this.pending.get(id);
        if (!p) return;
        this.pending.delete(id);
        clearTimeout(p.timer);
        callback(errPacket(unansweredCode(acts, 'never_started'), 'The service transport is unavailable.'));
      },
    );
    return () => {
      const p = this.pending.get(id);
      if (p) {
        clearTimeout(p.timer);
        this.pending.delete(id);
      }
    };
  }

  protected dispatchEvent(): Promise<never> {
    return Promise.reject(new Error('Events are not supported by this transport; use a queue.'));
  }

  private onReply(message: string) {
    let reply: StreamReply;
    try {
      reply = JSON.parse(message);
    } catch {
      return;
    }
    const p = this.pending.get(reply.i);
    if (!p) return;
    this.pending.delete(reply.i);
    clearTimeout(p.timer);
    if (reply.err) p.callback({ err: AppError.fromWire(reply.err as never), isDisposed: true });
    else p.callback({ response: reply.ok, isDisposed: true });
  }

  /** Fails every call in flight: each may have reached Redis, so acting ones are `outcome_unknown`. */
  private failAll(message: string) {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.callback(errPacket(unansweredCode(p.acts, 'lost'), message));
    }
  }
}

/**
 * Whether a failed XADD certainly never reached Redis: ioredis refused to
 * write it (no connection, and no offline queue), or Redis answered with an
 * error and applied nothing. A timeout or a connection closed while waiting
 * for the answer proves nothing: Redis may apply the command later.
 */
function neverWritten(err: unknown): boolean {
  if (err instanceof ReplyError) return true;
  return err instanceof Error && err.message.startsWith("Stream isn't writeable");
}

function errPacket(code: ErrorCode, message: string): WritePacket {
  return { err: new AppError(code, message), isDisposed: true };
}
