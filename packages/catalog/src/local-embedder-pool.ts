import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { EMBEDDING_DIMENSIONS, toVectorParam, type Embedder } from './embedder';
import { LOCAL_EMBEDDING_MODEL, LocalEmbedder } from './local-embedder';

const THREAD_SCRIPT = join(__dirname, 'local-embedder-thread.js');
/** Texts per message: small enough to balance the threads, large enough to amortise the hop. */
const CHUNK = 500;

/**
 * The local embedder spread over worker threads, for bulk loads (the same
 * model and the same bytes as {@link LocalEmbedder}, since each thread runs
 * it). When the compiled thread script is not there (running from
 * TypeScript sources) it embeds on the calling thread instead.
 */
export class LocalEmbedderPool implements Embedder {
  readonly model = LOCAL_EMBEDDING_MODEL;
  readonly dimensions = EMBEDDING_DIMENSIONS;
  private readonly workers: Worker[] = [];
  private readonly fallback?: LocalEmbedder;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (m: { buffer?: ArrayBuffer; params?: string[] }) => void; reject: (e: Error) => void }>();
  /** Messages in flight per worker: a busy thread keeps the process alive, an idle one does not. */
  private readonly busy = new Map<Worker, number>();

  constructor(threads = availableParallelism()) {
    if (!existsSync(THREAD_SCRIPT) || threads < 2) {
      this.fallback = new LocalEmbedder();
      return;
    }
    for (let i = 0; i < threads; i++) {
      const w = new Worker(THREAD_SCRIPT);
      w.on('message', (m: { id: number; buffer?: ArrayBuffer; params?: string[]; error?: string }) => {
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

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (this.fallback) return this.fallback.embed(texts);
    const parts = await this.spread(texts, false);
    return parts.flatMap(({ buffer }) =>
      Array.from({ length: buffer!.byteLength / (EMBEDDING_DIMENSIONS * 4) }, (_, j) => new Float32Array(buffer!, j * EMBEDDING_DIMENSIONS * 4, EMBEDDING_DIMENSIONS)),
    );
  }

  /** Vectors already in the SQL text form the repository writes (see `toVectorParam`), built on the threads. */
  async embedParams(texts: string[]): Promise<string[]> {
    if (this.fallback) return (await this.fallback.embed(texts)).map(toVectorParam);
    return (await this.spread(texts, true)).flatMap((m) => m.params!);
  }

  private spread(texts: string[], params: boolean): Promise<Array<{ buffer?: ArrayBuffer; params?: string[] }>> {
    const jobs: Promise<{ buffer?: ArrayBuffer; params?: string[] }>[] = [];
    for (let i = 0, k = 0; i < texts.length; i += CHUNK, k++) {
      const chunk = texts.slice(i, i + CHUNK);
      const worker = this.workers[k % this.workers.length]!;
      const id = ++this.seq;
      jobs.push(
        new Promise((resolve, reject) => {
          this.pending.set(id, { resolve, reject });
          this.busy.set(worker, (this.busy.get(worker) ?? 0) + 1);
          worker.ref();
          worker.postMessage({ id, texts: chunk, params });
        }),
      );
    }
    return Promise.all(jobs);
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
