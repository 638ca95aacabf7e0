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
  /** Added to the lexical score (BM25 over the query's best BM25) of a rail that is connected or needs no connection. */
  ROTA_DISCOVER_BONUS_LEXICAL: num(0.05),
  /** Added to the score of each tool of a provider the request names (see `namedProviders`); with `rrf`, the weight of that vote. */
  ROTA_DISCOVER_BONUS_NAMED: z.coerce.number().min(0).default(0.05),
  /** Added to the score of a tool whose name opens with the kind of act the request opens with (see `requestAct`); with `rrf`, the weight of that vote. */
  ROTA_DISCOVER_BONUS_ACT: z.coerce.number().min(0).default(0.03),
  /** Subtracted, in the test environment, from a disconnected rail whose credentials are not self-serve. */
  ROTA_DISCOVER_TEST_PENALTY: num(1000),
  /** Lowest pg_trgm similarity that counts in the `trigram_similarity` a match shows. */
  ROTA_DISCOVER_TRIGRAM_THRESHOLD: z.coerce.number().min(0.01).max(1).default(0.1),
  /** Weight of the provider's name and description against the tool's own text in the shown `trigram_similarity`. */
  ROTA_DISCOVER_PROVIDER_WEIGHT: z.coerce.number().min(0).max(1).default(0.7),
  /** Weight of the vector channel in the fused score. */
  ROTA_DISCOVER_WEIGHT_VECTOR: z.coerce.number().min(0).default(1),
  /** Weight of the lexical channel in the fused score. */
  ROTA_DISCOVER_WEIGHT_LEXICAL: z.coerce.number().min(0).default(0.3),
  /** `blend` (weighted sum of cosine and normalised BM25) or `rrf` (reciprocal rank fusion). */
  ROTA_DISCOVER_FUSION: z.enum(['blend', 'rrf']).default('blend'),
  /** The constant k of reciprocal rank fusion. */
  ROTA_DISCOVER_RRF_K: z.coerce.number().min(0).default(60),
  /** The channels that run, comma-separated (`lexical`, `vector`); an operator can turn one off. */
  ROTA_DISCOVER_CHANNELS: z
    .string()
    .default('lexical,vector')
    .transform(
      (v) =>
        new Set(
          v
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean),
        ),
    )
    .pipe(z.set(z.enum(['lexical', 'vector'])).min(1)),
  /** BM25's term-frequency saturation. */
  ROTA_DISCOVER_BM25_K1: z.coerce.number().min(0).max(10).default(1.2),
  /** BM25's length normalisation. */
  ROTA_DISCOVER_BM25_B: z.coerce.number().min(0).max(1).default(0.75),
  /** BM25F weights of tool name, description, provider name, provider description, comma-separated. */
  ROTA_DISCOVER_BM25_FIELDS: z
    .string()
    .default('2,1,1,0')
    .transform((v) => v.split(',').map(Number))
    .pipe(z.tuple([z.number().min(0), z.number().min(0), z.number().min(0), z.number().min(0)])),
  /** Weight of the words a request is expanded with (its English rendering, synonyms) against its own words. */
  ROTA_DISCOVER_EXPANSION_WEIGHT: z.coerce.number().min(0).max(2).default(0.5),
  /** Vector hits farther than this cosine distance do not count as matches. */
  ROTA_DISCOVER_MAX_DISTANCE: z.coerce.number().min(0).max(2).default(0.85),
  /** Rows each channel (vector, lexical) contributes to the candidate pool before fusion. */
  ROTA_DISCOVER_CANDIDATES: z.coerce.number().int().min(5).max(500).default(30),
  /** Rows the lexical channel's candidate search may touch; query terms join it rarest first until their rows reach this. */
  ROTA_DISCOVER_LEXICAL_SCAN_CAP: z.coerce.number().int().min(10).max(10_000_000).default(2000),
  /** Rows each step of the lexical channel's search scores with BM25 at most; past it, the rows ts_rank puts first (0: no limit). */
  ROTA_DISCOVER_LEXICAL_SCORE_CAP: z.coerce.number().int().min(0).max(10_000_000).default(200),
  /** `hnsw.ef_search` for the vector pass (recall against speed). */
  ROTA_DISCOVER_EF_SEARCH: z.coerce.number().int().min(10).max(1000).default(160),
  /** Query vectors kept in memory, most recently used first, so a repeated use case is not embedded again (0 keeps none). */
  ROTA_DISCOVER_EMBED_CACHE_SIZE: z.coerce.number().int().min(0).max(100_000).default(512),
  /** Deadline of embedding one query; past it discover answers from the lexical channel alone. */
  ROTA_DISCOVER_EMBED_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
  /** Consecutive failed query embeddings after which discover stops asking the embedder for a while. */
  ROTA_DISCOVER_EMBED_BREAKER_FAILURES: z.coerce.number().int().min(1).max(1000).default(3),
  /** How long discover ranks by the lexical channel alone once the embedder has failed that often, before trying it again. */
  ROTA_DISCOVER_EMBED_BREAKER_OPEN_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
};

export const DiscoverConfig = z.object(DISCOVER_CONFIG_SHAPE);
export type DiscoverConfig = z.infer<typeof DiscoverConfig>;
