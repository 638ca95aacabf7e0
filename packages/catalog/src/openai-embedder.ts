import OpenAI from 'openai';
import { EMBEDDING_DIMENSIONS, EmbeddingError, normalizeInPlace, type Embedder } from './embedder';

/** The model the documented system embeds with. */
export const OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';

export interface OpenAIEmbedderOptions {
  apiKey: string;
  /** Any OpenAI-compatible server; defaults to the SDK's own (which reads OPENAI_BASE_URL). */
  baseURL?: string;
  model?: string;
  /** Abort of one HTTP request, in ms (default 5000). */
  timeoutMs?: number;
  /** Most inputs sent in one request (the API accepts up to 2048). */
  maxInputsPerRequest?: number;
}

/**
 * Embeddings through the official `openai` SDK. The SDK's own retries are
 * off: one `embed()` of up to `maxInputsPerRequest` texts is exactly one HTTP
 * request, and retrying with backoff is the caller's job (the worker's
 * queue), so a failed batch is never half-written.
 */
export class OpenAIEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions = EMBEDDING_DIMENSIONS;
  /** HTTP requests made so far, for logs and benchmarks. */
  requests = 0;
  private readonly client: OpenAI;
  private readonly timeoutMs: number;
  private readonly maxInputs: number;

  constructor(opts: OpenAIEmbedderOptions) {
    this.model = opts.model ?? OPENAI_EMBEDDING_MODEL;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.maxInputs = Math.min(2048, Math.max(1, opts.maxInputsPerRequest ?? 2048));
    this.client = new OpenAI({
      apiKey: opts.apiKey,
      baseURL: opts.baseURL || undefined,
      maxRetries: 0,
      timeout: this.timeoutMs,
    });
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.maxInputs)
      out.push(...(await this.request(texts.slice(i, i + this.maxInputs))));
    return out;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    if (input.length === 0) return [];
    this.requests++;
    let res: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      res = await this.client.embeddings.create(
        {
          model: this.model,
          // Empty strings are refused by the API; a single space embeds as "nothing".
          input: input.map((t) => (t.trim() === '' ? ' ' : t)),
          encoding_format: 'float',
          ...(this.model.startsWith('text-embedding-3') ? { dimensions: EMBEDDING_DIMENSIONS } : {}),
        },
        { signal: AbortSignal.timeout(this.timeoutMs), timeout: this.timeoutMs, maxRetries: 0 },
      );
    } catch (err) {
      throw toEmbeddingError(err, this.timeoutMs);
    }
    return decode(res, input.length);
  }
}

function toEmbeddingError(err: unknown, timeoutMs: number): EmbeddingError {
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    // 408, 409, 429 and 5xx are worth another try; other 4xx are not.
    const retryable = err.status === 408 || err.status === 409 || err.status === 429 || err.status >= 500;
    return new EmbeddingError(`embeddings request failed with HTTP ${err.status}`, retryable, err.status);
  }
  if (
    err instanceof OpenAI.APIConnectionTimeoutError ||
    (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError'))
  ) {
    return new EmbeddingError(`embeddings request did not answer within ${timeoutMs} ms`, true);
  }
  if (err instanceof OpenAI.APIUserAbortError)
    return new EmbeddingError(`embeddings request did not answer within ${timeoutMs} ms`, true);
  if (err instanceof OpenAI.APIConnectionError) return new EmbeddingError('embeddings server unreachable', true);
  return new EmbeddingError(`embeddings request failed: ${err instanceof Error ? err.message : String(err)}`, true);
}

/**
 * Checks the answer before anything is written: one vector per input, each
 * index once, 1536 finite numbers each. Anything else is refused as a whole.
 */
function decode(res: OpenAI.Embeddings.CreateEmbeddingResponse, expected: number): Float32Array[] {
  const data = Array.isArray(res?.data) ? res.data : [];
  if (data.length !== expected)
    throw new EmbeddingError(`embeddings server returned ${data.length} vectors for ${expected} inputs`, true);
  const out = new Array<Float32Array | undefined>(expected);
  for (const item of data) {
    const idx = item.index;
    if (!Number.isInteger(idx) || idx < 0 || idx >= expected || out[idx])
      throw new EmbeddingError('embeddings server returned a bad or repeated index', true);
    const raw: unknown = item.embedding;
    let vec: Float32Array;
    if (typeof raw === 'string') {
      // base64 little-endian float32, what the API sends for encoding_format=base64.
      const buf = Buffer.from(raw, 'base64');
      if (buf.length % 4 !== 0) throw new EmbeddingError('embeddings server returned malformed base64', true);
      vec = new Float32Array(buf.length / 4);
      for (let i = 0; i < vec.length; i++) vec[i] = buf.readFloatLE(i * 4);
    } else if (Array.isArray(raw)) {
      vec = Float32Array.from(raw as number[]);
    } else throw new EmbeddingError('embeddings server returned no vector', true);
    if (vec.length !== EMBEDDING_DIMENSIONS)
      throw new EmbeddingError(
        `embeddings server returned ${vec.length} dimensions, expected ${EMBEDDING_DIMENSIONS}`,
        false,
      );
    for (let i = 0; i < vec.length; i++)
      if (!Number.isFinite(vec[i]!)) throw new EmbeddingError('embeddings server returned a non-finite value', true);
    out[idx] = normalizeInPlace(vec);
  }
  return out as Float32Array[];
}
