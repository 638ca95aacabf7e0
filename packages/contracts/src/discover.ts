import { z } from 'zod';
import { META_TOOL_NAMES } from './meta-tools';

/**
 * `codespar_discover`: find the catalog tool (and any native meta-tool) that
 * fits a free-form use case. Served by the search service on the
 * `search.discover` pattern; the session execute pipeline forwards the raw
 * tool input and turns an `invalid_args` error into a `success: false` result.
 */

/**
 * The tool input after validation: the published `codespar_discover` input
 * with `query` accepted as the alias of `use_case`. Defined with the other
 * meta-tool inputs so that what discover publishes and what it accepts are
 * one schema.
 */
export { DiscoverInput, DISCOVER_DEFAULT_LIMIT, DISCOVER_MAX_LIMIT } from './meta-tools/inputs';

/**
 * The `search.discover` request. `input` is the raw execute input: the
 * handler validates it itself and answers `invalid_args` (not `invalid_body`)
 * when it is unusable, so the caller can report a tool failure. The catalog
 * is read for the request's tenant.
 */
export const DiscoverRequest = z.object({ input: z.record(z.string(), z.unknown()) }).strict();
export type DiscoverRequest = z.infer<typeof DiscoverRequest>;

/** How the project reaches a provider in the caller's environment. */
export const DiscoverConnectionStatus = z.enum(['connected', 'disconnected', 'not_required']);
export type DiscoverConnectionStatus = z.infer<typeof DiscoverConnectionStatus>;

/** Which passes produced the answer. */
export const DiscoverSearchStrategy = z.enum(['embedding', 'trigram', 'empty']);
export type DiscoverSearchStrategy = z.infer<typeof DiscoverSearchStrategy>;

/** A search channel of discover: BM25 over the catalog's words, or nearest neighbours in the embedding space. */
export const DiscoverChannel = z.enum(['lexical', 'vector']);
export type DiscoverChannel = z.infer<typeof DiscoverChannel>;

/**
 * Why a channel did not run for a call: turned off by the operator
 * (`disabled`), no embedder configured (`no_embedder`), the embedder's
 * circuit breaker open after repeated failures (`breaker_open`), the query
 * spending most of its deadline waiting for a busy encoder (`busy`; one still
 * waiting is never computed), the embedder being at fault when the deadline
 * passed: a remote API too slow, a local encoder stuck (`timeout`), or the embedder failing (`failed`).
 */
export const DiscoverSkipReason = z.enum(['disabled', 'no_embedder', 'breaker_open', 'busy', 'timeout', 'failed']);
export type DiscoverSkipReason = z.infer<typeof DiscoverSkipReason>;

/** A channel that did not run for a call, and why. */
export const DiscoverSkippedChannel = z.object({ channel: DiscoverChannel, reason: DiscoverSkipReason });
export type DiscoverSkippedChannel = z.infer<typeof DiscoverSkippedChannel>;

/**
 * Why `recommended` is null: a native meta-tool covers the job, the best
 * catalog tools are unusable in the test environment, or nothing matched.
 */
export const DiscoverRecommendedReason = z.enum(['native_meta_tool', 'blocked_in_test', 'no_match']);
export type DiscoverRecommendedReason = z.infer<typeof DiscoverRecommendedReason>;

/** One catalog tool that fits the use case. */
export const DiscoverMatch = z.object({
  server_id: z.string(),
  tool_name: z.string(),
  /** The callable name, `server/tool`. */
  tool: z.string(),
  description: z.string(),
  http_method: z.string().nullable(),
  endpoint_template: z.string().nullable(),
  /** Distance from the query embedding; null when the vector pass did not score this tool. */
  cosine_distance: z.number().nullable(),
  /**
   * The lexical score: the tool's best pg_trgm similarity (name or description)
   * plus 0.7 times the provider's best (name or description), each part counted
   * from the 0.1 threshold on, so 0 to 1.7. Null when no part reached the threshold.
   */
  trigram_similarity: z.number().nullable(),
  connection_status: DiscoverConnectionStatus,
  /** Things likely to go wrong with this tool, derived from the catalog and connection data. */
  known_pitfalls: z.array(z.string()),
  /** Ordered steps to get from here to a successful call. */
  recommended_plan: z.array(z.string()),
});
export type DiscoverMatch = z.infer<typeof DiscoverMatch>;

/** Meta-tools discover may point to: every published one except itself. */
export const DiscoverMetaToolName = z.enum(META_TOOL_NAMES).exclude(['codespar_discover']);
export type DiscoverMetaToolName = z.infer<typeof DiscoverMetaToolName>;

/** The `codespar_discover` result (the `data` of a successful execute). */
export const DiscoverResult = z
  .object({
    use_case: z.string(),
    search_strategy: DiscoverSearchStrategy,
    /** The channels that ran for this call (`vector` only when the use case was embedded). */
    channels: z.array(DiscoverChannel).optional(),
    /** The channels that did not run, each with why; empty when both ran. Additive: older answers lack it. */
    channels_skipped: z.array(DiscoverSkippedChannel).optional(),
    recommended: DiscoverMatch.nullable(),
    /** Present exactly when `recommended` is null. */
    recommended_reason: DiscoverRecommendedReason.optional(),
    related: z.array(DiscoverMatch),
    next_steps: z.array(z.string()),
    /** Native meta-tools that cover the use case, best first. Prefer these when present. */
    meta_tools: z.array(DiscoverMetaToolName),
  })
  .superRefine((r, ctx) => {
    if ((r.recommended === null) !== (r.recommended_reason !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['recommended_reason'],
        message: 'recommended_reason is present exactly when recommended is null',
      });
    }
  });
export type DiscoverResult = z.infer<typeof DiscoverResult>;
