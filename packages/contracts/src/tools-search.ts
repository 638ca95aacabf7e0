import { z } from 'zod';
import { META_TOOL_NAMES } from './meta-tools';

/**
 * `POST /v1/tools/search` (path A): one phrase in, a ranked list of meta-tools
 * out. The answer depends only on the body, never on who asks.
 */
export const ToolSearchRequest = z
  .object({
    /** The caller's sentence, in any of the supported languages. */
    intent: z.string().min(1).max(2000),
    /** How many hits to return at most. Values above 5 are refused, not clamped. */
    limit: z.number().int().min(1).max(5).default(3),
  })
  .strict();
/** The validated body, with `limit` filled in. */
export type ToolSearchRequest = z.infer<typeof ToolSearchRequest>;
/** The body as a client may send it (`limit` optional). */
export type ToolSearchRequestInput = z.input<typeof ToolSearchRequest>;

/** How sure the classifier is about one hit. */
export const ToolSearchConfidence = z.enum(['high', 'medium', 'low']);
export type ToolSearchConfidence = z.infer<typeof ToolSearchConfidence>;

/** Who produced the hits: the model, or the local lexical ranking. */
export const ToolSearchSource = z.enum(['llm', 'fallback']);
export type ToolSearchSource = z.infer<typeof ToolSearchSource>;

/**
 * Why the lexical ranking answered instead of the model. Unlike the documented
 * system, a model answer that does not parse is reported as a fallback with
 * `unparseable_output`, so an empty `llm` answer always means "nothing fits".
 */
export const ToolSearchFallbackReason = z.enum(['no_model_key', 'model_error', 'model_timeout', 'unparseable_output']);
export type ToolSearchFallbackReason = z.infer<typeof ToolSearchFallbackReason>;

/** One ranked meta-tool. `tool_name` is always one of the 15 published names. */
export const ToolSearchHit = z.object({
  tool_name: z.enum(META_TOOL_NAMES),
  confidence: ToolSearchConfidence,
  /** A short plain phrase saying why this tool was picked. */
  rationale: z.string(),
});
export type ToolSearchHit = z.infer<typeof ToolSearchHit>;

/** The 200 body of `POST /v1/tools/search`. */
export const ToolSearchResponse = z.object({
  intent: z.string(),
  hits: z.array(ToolSearchHit),
  elapsed_ms: z.number().nonnegative(),
  source: ToolSearchSource,
  /** Present only when `source` is `fallback`. */
  fallback_reason: ToolSearchFallbackReason.optional(),
});
export type ToolSearchResponse = z.infer<typeof ToolSearchResponse>;
