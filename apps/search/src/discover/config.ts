import { z } from 'zod';

const num = (def: number) => z.coerce.number().finite().default(def);

/**
 * Settings of `codespar_discover`, merged into the search service's config.
 * The defaults are the documented behaviour; each is an environment variable
 * so an operator can retune ranking without a release.
 */
export const DISCOVER_CONFIG_SHAPE = {
  /** Added to the cosine score (1 - distance) of a rail that is connected or needs no connection. */
  ROTA_DISCOVER_BONUS_VECTOR: num(0.02),
  /** Added to the trigram score of a rail that is connected or needs no connection. */
  ROTA_DISCOVER_BONUS_TRIGRAM: num(0.05),
  /** Subtracted, in the test environment, from a disconnected rail whose credentials are not self-serve. */
  ROTA_DISCOVER_TEST_PENALTY: num(1000),
  /** Lowest pg_trgm similarity that counts as a lexical match (pg_trgm's own default, 0.3, drops most good matches). */
  ROTA_DISCOVER_TRIGRAM_THRESHOLD: z.coerce.number().min(0.01).max(1).default(0.1),
  /** Weight of the provider's name and description against the tool's own text in the trigram score. */
  ROTA_DISCOVER_PROVIDER_WEIGHT: z.coerce.number().min(0).max(1).default(0.7),
  /** Weight of the cosine score in the fused ranking. */
  ROTA_DISCOVER_WEIGHT_VECTOR: z.coerce.number().min(0).default(1),
  /** Weight of the trigram score in the fused ranking. */
  ROTA_DISCOVER_WEIGHT_TRIGRAM: z.coerce.number().min(0).default(1),
  /** Vector hits farther than this cosine distance do not count as matches. */
  ROTA_DISCOVER_MAX_DISTANCE: z.coerce.number().min(0).max(2).default(0.85),
  /** Rows each pass (vector, tool trigram) contributes to the candidate pool before re-scoring. */
  ROTA_DISCOVER_CANDIDATES: z.coerce.number().int().min(5).max(500).default(30),
  /** Providers whose own name or description matches, at most, whose tools join the pool. */
  ROTA_DISCOVER_PROVIDER_CANDIDATES: z.coerce.number().int().min(0).max(100).default(3),
  /** Most trigram matches the tool-level lexical pass examines (it runs only when the vector pass comes back short). */
  ROTA_DISCOVER_LEXICAL_SCAN_CAP: z.coerce.number().int().min(10).max(100000).default(200),
  /** `hnsw.ef_search` for the vector pass (recall against speed). */
  ROTA_DISCOVER_EF_SEARCH: z.coerce.number().int().min(10).max(1000).default(160),
  /** Deadline of embedding one query; past it discover answers from the trigram pass alone. */
  ROTA_DISCOVER_EMBED_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
  /** Consecutive failed query embeddings after which discover stops asking the embedder for a while. */
  ROTA_DISCOVER_EMBED_BREAKER_FAILURES: z.coerce.number().int().min(1).max(1000).default(3),
  /** How long discover ranks by trigrams alone once the embedder has failed that often, before trying it again. */
  ROTA_DISCOVER_EMBED_BREAKER_OPEN_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
};

export const DiscoverConfig = z.object(DISCOVER_CONFIG_SHAPE);
export type DiscoverConfig = z.infer<typeof DiscoverConfig>;
