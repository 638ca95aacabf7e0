import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { EMBEDDING_DIMENSIONS, toVectorParam, type Embedder } from './embedder';
import { LOCAL_EMBEDDING_MODEL, LocalEmbedder } from './local-embedder';
import { HYBRID_EMBEDDING_MODEL, HybridEmbedder } from './hybrid-embedder';
import { NEURAL_EMBEDDING_MODEL, NEURAL_PER_TEXT_BUDGET_MS, NeuralEmbedder } from './neural-embedder';

const THREAD_SCRIPT = join(__dirname, 'local-embedder-thread.js');

/** Which local model a pool runs. */
export type LocalModelKind = 'hash' | 'neural' | 'hybrid';

/** The model a local kind stores its vectors under. */
export const LOCAL_MODELS: Record<LocalModelKind, string> = { hash: LOCAL_EMBEDDING_MODEL, neural: NEURAL_EMBEDDING_MODEL, hybrid: HYBRID_EMBEDDING_MODEL };

/** The local model of a kind, on the calling thread. */
export function localModel(kind: LocalModelKind): Embedder {
  if (kind === 'hybrid') return new HybridEmbedder();
  return kind === 'neural' ? new NeuralEmbedder() : new LocalEmbedder();
}

/**
 * Texts per message. The hashing model costs microseconds a text, so large
 * messages amortise the hop; the neural one costs milliseconds, so smaller
 * batches keep both threads busy and a query never waits behind a long bulk
 * batch for more than a few tens of milliseconds.
 */
const CHUNK: Record<LocalModelKind, number> = { hash: 500, neural: 32, hybrid: 32 };

export interface LocalEmbedderPoolOptions {
  kind?: LocalModelKind;
  /** Threads to run; the hashing model falls back to the calling thread below 2, the models with the sentence encoder always use threads. */
  threads?: number;
}

type Reply = { buffer?: ArrayBuffer; params?: string[] };

/**
 * A local embedder spread over worker threads (each thread runs the model, so
 * the bytes are those of the model on one thread). Calls that arrive in the
 * same turn of the event loop are batched together, so concurrent queries
 * share one inference. When the compiled thread script is not there (running
 * from TypeScript sources) it embeds on the calling thread instead.
 */
export class LocalEmbedderPool implements Embedder {
  readonly model: string;
  readonly dimensions = EMBEDDING_DIMENSIONS;
  readonly kind: LocalModelKind;
  readonly englishOnly: boolean;
  readonly perTextBudgetMs?: number;
  private readonly workers: Worker[] = [];
  private readonly fallback?: Embedder;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (m: Reply) => void; reject: (e: Error) => void }>();
  /** Messages in flight per worker: a busy thread keeps the process alive, an idle one does not. */
  private readonly busy = new Map<Worker, number>();
  /** Texts waiting for the next flush, each with where its vector goes. */
  private waiting: Array<{ text: string; resolve: (v: Float32Array) => void; reject: (e: Error) => void }> = [];
  private flushScheduled = false;

  constructor(opts: number | LocalEmbedderPoolOptions = {}) {
    const o = typeof opts === 'number' ? { threads: opts } : opts;
    this.kind = o.kind ?? 'hash';
    this.model = LOCAL_MODELS[this.kind];
    this.englishOnly = this.kind === 'neural';
    if (this.kind !== 'hash') this.perTextBudgetMs = NEURAL_PER_TEXT_BUDGET_MS;
    const threads = o.threads ?? availableParallelism();
    if (!existsSync(THREAD_SCRIPT) || threads < (this.kind === 'hash' ? 2 : 1)) {
      this.fallback = localModel(this.kind);
      return;
    }
    for (let i = 0; i < threads; i++) {
      const w = new Worker(THREAD_SCRIPT, { workerData: { kind: this.kind } });
      w.on('message', (m: Reply & { id: number; error?: string }) => {
        this.release(w);
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.error === undefined) p.resolve(m);
        else p.reject(new Error(m.error));
      });
      w.on('error', (err) => {
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
      });
      w.unref();
      this.workers.push(w);
    }
  }

  /** How many threads embed (1 when running on the calling thread). */
  get threads(): number {
    return this.workers.length || 1;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (this.fallback) return this.fallback.embed(texts);
    if (texts.length === 0) return Promise.resolve([]);
    const out = texts.map(
      (text) =>
        new Promise<Float32Array>((resolve, reject) => {
          this.waiting.push({ text, resolve, reject });
        }),
    );
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return Promise.all(out);
  }

  /** Vectors already in the SQL text form the repository writes (see `toVectorParam`), built on the threads. */
  async embedParams(texts: string[]): Promise<string[]> {
    if (this.fallback) return (await this.fallback.embed(texts)).map(toVectorParam);
    const jobs: Promise<Reply>[] = [];
    for (let i = 0; i < texts.length; i += CHUNK[this.kind]) jobs.push(this.send(texts.slice(i, i + CHUNK[this.kind]), true));
    return (await Promise.all(jobs)).flatMap((m) => m.params!);
  }

  /** Sends everything that arrived since the last flush, in chunks, each to the least busy thread. */
  private flush(): void {
    this.flushScheduled = false;
    const all = this.waiting;
    this.waiting = [];
    for (let i = 0; i < all.length; i += CHUNK[this.kind]) {
      const part = all.slice(i, i + CHUNK[this.kind]);
      this.send(
        part.map((p) => p.text),
        false,
      ).then(
        ({ buffer }) => part.forEach((p, j) => p.resolve(new Float32Array(buffer!, j * EMBEDDING_DIMENSIONS * 4, EMBEDDING_DIMENSIONS))),
        (err: Error) => part.forEach((p) => p.reject(err)),
      );
    }
  }

  private send(texts: string[], params: boolean): Promise<Reply> {
    let worker = this.workers[0]!;
    for (const w of this.workers) if ((this.busy.get(w) ?? 0) < (this.busy.get(worker) ?? 0)) worker = w;
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.busy.set(worker, (this.busy.get(worker) ?? 0) + 1);
      worker.ref();
      worker.postMessage({ id, texts, params });
    });
  }

  private release(w: Worker): void {
    const n = (this.busy.get(w) ?? 1) - 1;
    this.busy.set(w, n);
    if (n <= 0) w.unref();
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}
