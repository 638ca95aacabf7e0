import { renderQuery } from '@rota/lexicon';
import { EMBEDDING_DIMENSIONS, type Embedder } from './embedder';
import { LocalEmbedder } from './local-embedder';
import { NEURAL_DIMENSIONS, NEURAL_PER_TEXT_BUDGET_MS, NeuralEmbedder } from './neural-embedder';

/**
 * The offline default: the sentence encoder and the lexicon's feature hashing
 * in one vector.
 *
 * - Dimensions 1 to 512: Universal Sentence Encoder lite ({@link NeuralEmbedder}),
 *   scaled by √{@link NEURAL_SHARE}. It knows English at large, so a text the
 *   lexicon reads as Portuguese or Spanish is first rendered into English
 *   (`renderQuery` of `@rota/lexicon`: its concepts by their English terms,
 *   names and unknown words kept). Tool descriptions written in English pass
 *   unchanged.
 * - Dimensions 513 to 1536: the feature-hashing model ({@link LocalEmbedder})
 *   over the text as written, hashed into 1,024 buckets, scaled by
 *   √(1 − {@link NEURAL_SHARE}). Its features are the lexicon's concepts,
 *   which Portuguese, Spanish and English words share, plus stems and
 *   character trigrams (brand names, codes, typos).
 *
 * Both parts are unit vectors, so the whole is one too, and the cosine of two
 * such vectors is exactly `share × neural cosine + (1 − share) × hashing
 * cosine`: one column, one HNSW index, and the blend of both models computed
 * by the index itself. Each model alone loses to the blend on every dev set
 * (docs/discover.md has the figures).
 */
export const HYBRID_EMBEDDING_MODEL = 'use-lite-512+rota-hash-1024-v1';

/** The sentence encoder's share of the cosine. Chosen on the dev sets (docs/discover.md). */
export const NEURAL_SHARE = 0.6;

const HASH_BUCKETS = EMBEDDING_DIMENSIONS - NEURAL_DIMENSIONS;

export class HybridEmbedder implements Embedder {
  readonly model = HYBRID_EMBEDDING_MODEL;
  readonly dimensions = EMBEDDING_DIMENSIONS;
  /** It brings other languages into English for its neural half itself, and reads them as written for the other. */
  readonly englishOnly = false;
  readonly perTextBudgetMs = NEURAL_PER_TEXT_BUDGET_MS;
  private readonly neural = new NeuralEmbedder();
  private readonly hash = new LocalEmbedder(HASH_BUCKETS);

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const neural = await this.neural.embed(texts.map((t) => renderQuery(t).englishText));
    const hashed = await this.hash.embed(texts);
    const a = Math.sqrt(NEURAL_SHARE);
    const b = Math.sqrt(1 - NEURAL_SHARE);
    return texts.map((_, i) => {
      const v = new Float32Array(EMBEDDING_DIMENSIONS);
      const n = neural[i]!;
      const h = hashed[i]!;
      for (let j = 0; j < NEURAL_DIMENSIONS; j++) v[j] = a * n[j]!;
      for (let j = 0; j < HASH_BUCKETS; j++) v[NEURAL_DIMENSIONS + j] = b * h[j]!;
      return v;
    });
  }

  /** Loads the sentence encoder's weights (from the installed package, never the network). */
  async load(): Promise<void> {
    await this.neural.load();
  }
}
