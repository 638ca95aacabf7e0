import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  EMBEDDING_DIMENSIONS,
  EmbeddingError,
  EmbeddingNotStartedError,
  toVectorParam,
  type EmbedOptions,
  type Embedder,
} from './embedder';
import { LOCAL_EMBEDDING_MODEL, LocalEmbedder } from './local-embedder';
import { HYBRID_EMBEDDING_MODEL, HybridEmbedder } from './hybrid-embedder';
import { NEURAL_EMBEDDING_MODEL, NEURAL_PER_TEXT_BUDGET_MS, NeuralEmbedder } from './neural-embedder';

const THREAD_SCRIPT = join(__dirname, 'local-embedder-thread.js');

/** Which local model a pool runs. */
export type LocalModelKind = 'hash' | 'neural' | 'hybrid';

/** The model a local kind stores its vectors under. */
export const LOCAL_MODELS: Record<LocalModelKind, string> = {
  hash: LOCAL_EMBEDDING_MODEL,
  neural: NEURAL_EMBEDDING_MODEL,
  hybrid: HYBRID_EMBEDDING_MODEL,
};

/** The local model of a kind, on the calling thread. */
export function localModel(kind: LocalModelKind): Embedder {
  if (kind === 'hybrid') return new HybridEmbedder();
  return kind === 'neural' ? new NeuralEmbedder() : new LocalEmbedder();
}

/**
 * Texts per message of a bulk call (catalog imports, re-embedding). The
 * hashing model costs microseconds a text, so large messages amortise the
 * hop; the encoder costs milliseconds, so smaller batches keep every thread
 * busy and a query never waits behind a long bulk batch for more than a few
 * tens of milliseconds.
 */
const CHUNK: Record<LocalModelKind, number> = { hash: 500, neural: 32, hybrid: 32 };

/** Threads when none are asked for: one per core, at most {@link MAX_DEFAULT_THREADS}. */
export const MAX_DEFAULT_THREADS = 8;

/** The default thread count: one per core, at most {@link MAX_DEFAULT_THREADS}. */
export function defaultEmbedThreads(): number {
  return Math.max(1, Math.min(MAX_DEFAULT_THREADS, availableParallelism()));
}

export interface LocalEmbedderPoolOptions {
  kind?: LocalModelKind;
  /** Threads to run; the hashing model falls back to the calling thread below 2, the models with the sentence encoder always use threads. */
  threads?: number;
  /**
   * How long a query waiting for an idle thread is held so that others can
   * join its inference (milliseconds; 0 sends at once). Only applies when a
   * thread is idle: while every thread is busy, queries gather anyway.
   */
  batchWindowMs?: number;
  /** The most queries one inference takes. */
  batchMax?: number;
}

type Reply = { buffer?: ArrayBuffer; params?: string[] };

/** One query text waiting for, or in, an inference. */
interface Entry {
  text: string;
  resolve: (v: Float32Array) => void;
  reject: (e: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  onStart?: () => void;
  state: 'queued' | 'running' | 'done';
}

/** A chunk of a bulk call, sent to a thread as it is. */
interface BulkJob {
  texts: string[];
  params: boolean;
  resolve: (m: Reply) => void;
  reject: (e: Error) => void;
}

/** What the pool has done since it started, for metrics. */
export interface LocalEmbedderPoolStats {
  /** Query texts waiting for a thread now. */
  queued: number;
  /** Bulk chunks waiting for a thread now. */
  bulkQueued: number;
  /** Threads running an inference now. */
  busyThreads: number;
  /** Inferences of query texts run so far, and the texts they held. */
  batches: number;
  batchedTexts: number;
  /** Query texts whose caller gave up while they were still waiting: never encoded. */
  abandoned: number;
}

/**
 * A local embedder spread over worker threads (each thread runs the model, so
 * the bytes are those of the model on one thread).
 *
 * Queries are micro-batched: a call of a few texts joins a queue in this
 * thread, and an idle worker thread takes up to `batchMax` of them in one
 * inference, after holding the first for `batchWindowMs` so that others
 * arriving meanwhile join it. A thread runs one inference at a time and asks
 * for more only when it is done, so the queue stays here, where a query whose
 * caller gave up (its `signal` aborted) is taken out before it reaches the
 * encoder. Bulk calls (more texts than one batch, such as a catalog import)
 * go in chunks through a second queue, which a thread serves only when no
 * query waits. When the compiled thread script is not there (running from
 * TypeScript sources) it embeds on the calling thread instead.
 */
export class LocalEmbedderPool implements Embedder {
  readonly model: string;
  readonly dimensions = EMBEDDING_DIMENSIONS;
  readonly kind: LocalModelKind;
  readonly englishOnly: boolean;
  readonly perTextBudgetMs?: number;
  /** It takes a query that was abandoned while waiting out of its queue, and rejects it with {@link EmbeddingNotStartedError}. */
  readonly honoursSignal = true;
  readonly batchWindowMs: number;
  readonly batchMax: number;
  private readonly workers: Worker[] = [];
  private readonly fallback?: Embedder;
  private seq = 0;
  /** Where each thread's answer goes, by thread: a thread has one message at most in flight. */
  private readonly inFlight = new Map<
    Worker,
    { id: number; since: number; resolve: (m: Reply) => void; reject: (e: Error) => void }
  >();
  private readonly idle: Worker[] = [];
  private queue: Entry[] = [];
  private readonly bulk: BulkJob[] = [];
  private windowTimer?: NodeJS.Timeout;
  private counters = { batches: 0, batchedTexts: 0, abandoned: 0 };

  constructor(opts: number | LocalEmbedderPoolOptions = {}) {
    const o = typeof opts === 'number' ? { threads: opts } : opts;
    this.kind = o.kind ?? 'hash';
    this.model = LOCAL_MODELS[this.kind];
    this.englishOnly = this.kind === 'neural';
    this.batchWindowMs = Math.max(0, o.batchWindowMs ?? 2);
    this.batchMax = Math.max(1, o.batchMax ?? 16);
    if (this.kind !== 'hash') this.perTextBudgetMs = NEURAL_PER_TEXT_BUDGET_MS;
    const threads = o.threads ?? defaultEmbedThreads();
    if (!existsSync(THREAD_SCRIPT) || threads < (this.kind === 'hash' ? 2 : 1)) {
      this.fallback = localModel(this.kind);
      return;
    }
    for (let i = 0; i < threads; i++) {
      const w = new Worker(THREAD_SCRIPT, { workerData: { kind: this.kind } });
      w.on('message', (m: Reply & { id: number; error?: string }) => {
        const p = this.inFlight.get(w);
        if (!p || p.id !== m.id) return;
        this.finish(w);
        if (m.error === undefined) p.resolve(m);
        else p.reject(new EmbeddingError(m.error, false));
      });
      w.on('error', (err) => {
        // A thread that threw is gone: its batch fails, the others carry on.
        const p = this.inFlight.get(w);
        this.inFlight.delete(w);
        this.workers.splice(this.workers.indexOf(w), 1);
        const i = this.idle.indexOf(w);
        if (i >= 0) this.idle.splice(i, 1);
        p?.reject(err);
      });
      w.unref();
      this.workers.push(w);
      this.idle.push(w);
    }
  }

  /** How many threads embed (1 when running on the calling thread). */
  get threads(): number {
    return this.workers.length || 1;
  }

  /** The queues and counters, read by the services' metrics. */
  stats(): LocalEmbedderPoolStats {
    return {
      queued: this.queue.length,
      bulkQueued: this.bulk.length,
      busyThreads: this.inFlight.size,
      ...this.counters,
    };
  }

  runningForMs(): number {
    const now = performance.now();
    let longest = 0;
    for (const p of this.inFlight.values()) longest = Math.max(longest, now - p.since);
    return longest;
  }

  embed(texts: string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    if (opts.signal?.aborted) return Promise.reject(new EmbeddingNotStartedError());
    if (this.fallback || texts.length > this.batchMax) opts.onStart?.();
    if (this.fallback) return this.fallback.embed(texts);
    if (texts.length === 0) return Promise.resolve([]);
    if (texts.length > this.batchMax) return this.embedBulk(texts);
    const out = texts.map(
      (text) =>
        new Promise<Float32Array>((resolve, reject) => {
          const entry: Entry = { text, resolve, reject, signal: opts.signal, onStart: opts.onStart, state: 'queued' };
          if (opts.signal) {
            entry.onAbort = () => this.abandon(entry);
            opts.signal.addEventListener('abort', entry.onAbort, { once: true });
          }
          this.queue.push(entry);
        }),
    );
    this.schedule();
    return Promise.all(out);
  }

  /** Vectors already in the SQL text form the repository writes (see `toVectorParam`), built on the threads. */
  async embedParams(texts: string[]): Promise<string[]> {
    if (this.fallback) return (await this.fallback.embed(texts)).map(toVectorParam);
    const jobs: Promise<Reply>[] = [];
    for (let i = 0; i < texts.length; i += CHUNK[this.kind])
      jobs.push(this.enqueueBulk(texts.slice(i, i + CHUNK[this.kind]), true));
    return (await Promise.all(jobs)).flatMap((m) => m.params!);
  }

  private async embedBulk(texts: string[]): Promise<Float32Array[]> {
    const jobs: Promise<Reply>[] = [];
    const sizes: number[] = [];
    for (let i = 0; i < texts.length; i += CHUNK[this.kind]) {
      const part = texts.slice(i, i + CHUNK[this.kind]);
      sizes.push(part.length);
      jobs.push(this.enqueueBulk(part, false));
    }
    const replies = await Promise.all(jobs);
    return replies.flatMap((r, k) =>
      Array.from(
        { length: sizes[k]! },
        (_, j) => new Float32Array(r.buffer!, j * EMBEDDING_DIMENSIONS * 4, EMBEDDING_DIMENSIONS),
      ),
    );
  }

  private enqueueBulk(texts: string[], params: boolean): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.bulk.push({ texts, params, resolve, reject });
      this.dispatch();
    });
  }

  /** A query's caller gave up: taken out of the queue if it is still there, else its answer is ignored when it comes. */
  private abandon(entry: Entry): void {
    if (entry.state !== 'queued') return;
    entry.state = 'done';
    const i = this.queue.indexOf(entry);
    if (i >= 0) this.queue.splice(i, 1);
    this.counters.abandoned++;
    entry.reject(new EmbeddingNotStartedError());
  }

  /**
   * Sends queued queries to an idle thread: at once when a full batch waits,
   * else after the window, so that queries arriving in the meantime share the
   * inference.
   */
  private schedule(): void {
    if (this.idle.length === 0) return;
    if (this.queue.length >= this.batchMax || this.batchWindowMs === 0) {
      this.dispatch();
      return;
    }
    this.windowTimer ??= setTimeout(() => {
      this.windowTimer = undefined;
      this.dispatch();
    }, this.batchWindowMs);
  }

  /** Gives each idle thread work: a batch of queries first, else a bulk chunk. */
  private dispatch(): void {
    if (this.windowTimer && this.queue.length >= this.batchMax) {
      clearTimeout(this.windowTimer);
      this.windowTimer = undefined;
    }
    while (this.idle.length > 0) {
      // Inference has a high fixed cost a call (a batch of 16 short texts
      // costs about twice a batch of one), so while another thread is
      // computing, an idle one waits for half a batch rather than splitting
      // a few queries across threads: fewer, fuller batches spend less CPU
      // a query, which is what a busy machine is short of.
      const enough = this.inFlight.size === 0 || this.queue.length >= Math.ceil(this.batchMax / 2);
      if (this.queue.length > 0 && !this.windowTimer && enough) {
        const batch = this.queue.splice(0, this.batchMax);
        for (const e of batch) {
          e.state = 'running';
          if (e.onAbort) e.signal?.removeEventListener('abort', e.onAbort);
          e.onStart?.();
        }
        this.counters.batches++;
        this.counters.batchedTexts += batch.length;
        this.send(
          batch.map((e) => e.text),
          false,
        ).then(
          ({ buffer }) =>
            batch.forEach((e, j) => {
              e.state = 'done';
              e.resolve(new Float32Array(buffer!, j * EMBEDDING_DIMENSIONS * 4, EMBEDDING_DIMENSIONS));
            }),
          (err: Error) =>
            batch.forEach((e) => {
              e.state = 'done';
              e.reject(err);
            }),
        );
        continue;
      }
      const job = this.bulk.shift();
      if (!job) return;
      this.send(job.texts, job.params).then(job.resolve, job.reject);
    }
  }

  private send(texts: string[], params: boolean): Promise<Reply> {
    const worker = this.idle.pop()!;
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.inFlight.set(worker, { id, since: performance.now(), resolve, reject });
      worker.ref();
      worker.postMessage({ id, texts, params });
    });
  }

  /** A thread answered: it takes the next batch, or lets the process exit when there is none. */
  private finish(w: Worker): void {
    if (!this.inFlight.delete(w)) return;
    w.unref();
    this.idle.push(w);
    // Queries that gathered while every thread was busy are a batch already: no window.
    if (this.windowTimer) {
      clearTimeout(this.windowTimer);
      this.windowTimer = undefined;
    }
    setImmediate(() => this.dispatch());
  }

  async close(): Promise<void> {
    if (this.windowTimer) clearTimeout(this.windowTimer);
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
    this.idle.length = 0;
    const closed = new EmbeddingError('embedder closed', false);
    for (const e of this.queue.splice(0)) e.reject(closed);
    for (const j of this.bulk.splice(0)) j.reject(closed);
    for (const p of this.inFlight.values()) p.reject(closed);
    this.inFlight.clear();
  }
}
