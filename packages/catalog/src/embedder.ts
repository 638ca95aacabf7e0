/**
 * Text embedders for the provider catalog and for discover queries.
 *
 * Every vector is stored with the name of the model that made it; a query is
 * only ever compared with vectors of its own model.
 */
export const EMBEDDING_DIMENSIONS = 1536;

export interface Embedder {
  /** Stored in `mcp_tools.embedding_model`, e.g. `text-embedding-3-small` or `rota-local-…`. */
  readonly model: string;
  readonly dimensions: number;
  /** True for a model that understands English only: callers bring other languages into English first. */
  readonly englishOnly?: boolean;
  /**
   * Time to allow for each text when a batch runs under a deadline, for a
   * model that computes on this machine and whose cost grows with the batch
   * (the sentence encoder: tens of milliseconds a text on an idle core, many
   * more on a busy one). Absent for remote and near-free models.
   */
  readonly perTextBudgetMs?: number;
  /**
   * True for a model that takes `signal` into account: a call abandoned while
   * it still waits for the model rejects with {@link EmbeddingNotStartedError}
   * and is never computed. Callers may then leave the deadline to the signal.
   */
  readonly honoursSignal?: boolean;
  /**
   * How long the longest inference now running has run, in milliseconds (0
   * when none runs), for embedders that queue work for the model: queries
   * waiting behind an inference that has run for longer than their whole
   * deadline say the model is stuck, not merely busy.
   */
  runningForMs?(): number;
  /** One unit-length vector per text, in order. Rejects on failure; never returns partial results. */
  embed(texts: string[], opts?: EmbedOptions): Promise<Float32Array[]>;
}

export interface EmbedOptions {
  /** Aborted when the caller no longer wants the vectors (its deadline passed, its client left). */
  signal?: AbortSignal;
  /** Called, synchronously, when the texts leave the embedder's queue for the model (embedders that honour the signal only). */
  onStart?: () => void;
}

/**
 * Why an embedding call failed. `retryable` is false for mistakes a retry
 * cannot fix (a refused key, a malformed request); the worker fails those
 * jobs at once instead of backing off.
 */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

/**
 * The call was abandoned (its signal aborted) while it still waited for the
 * model: nothing was computed for it. It says the embedder is busy, not that
 * it is failing, so circuit breakers do not count it.
 */
export class EmbeddingNotStartedError extends EmbeddingError {
  constructor(message = 'abandoned while waiting for the encoder; never started') {
    super(message, true);
    this.name = 'EmbeddingNotStartedError';
  }
}

/** Scales a vector to unit length in place (float64 accumulation, float32 storage). */
export function normalizeInPlace(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum === 0) return v;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  return v;
}

/** Cosine similarity of two vectors of equal length. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * pgvector's text form (`[0.1,-0.2,…]`), for `${literal}::vector` in SQL.
 * Each float32 is written with enough digits to come back as the same float32;
 * zeros are written as `0` so sparse vectors stay short.
 */
export function toVectorLiteral(v: Float32Array): string {
  const parts = new Array<string>(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    parts[i] = x === 0 ? '0' : String(x);
  }
  return `[${parts.join(',')}]`;
}

/**
 * The form this package writes vectors in: pgvector's sparse text form
 * (`{i:v,…}/1536`, 1-based) when most entries are zero, which Postgres parses
 * several times faster, else the dense form. SQL reads it with
 * `vectorFromParam` in the repository. Queries should use
 * {@link toVectorLiteral}.
 */
export function toVectorParam(v: Float32Array): string {
  let nonZero = 0;
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) nonZero++;
  if (nonZero * 3 > v.length) return toVectorLiteral(v);
  const parts: string[] = [];
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) parts.push(`${i + 1}:${v[i]}`);
  return `{${parts.join(',')}}/${v.length}`;
}

/** Parses pgvector's text form back into a Float32Array. */
export function fromVectorLiteral(text: string): Float32Array {
  const body = text.trim().replace(/^\[/, '').replace(/\]$/, '');
  if (body === '') return new Float32Array(0);
  return Float32Array.from(body.split(',').map(Number));
}
