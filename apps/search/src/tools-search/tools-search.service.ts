import type { ToolSearchFallbackReason, ToolSearchHit, ToolSearchResponse } from '@rota/contracts/tools-search';
import { classifyLexical } from './lexical';
import { AnthropicClassifier, type IntentClassifier } from './llm';

/**
 * Path A end to end: ask the model when one is configured, otherwise (or when
 * it fails) answer with the lexical ranking. Always resolves; the route is a
 * 200 whatever happens to the model. The answer depends only on the request.
 */

export interface SearchToolsRequest {
  intent: string;
  limit?: number;
}

export interface SearchToolsDeps {
  /** The model classifier, or null when no model key is configured. */
  llm: IntentClassifier | null;
  /** Told about model failures; the response itself carries `fallback_reason`. */
  logger?: { warn(message: string, meta?: Record<string, unknown>): void };
  /** Clock in milliseconds, for `elapsed_ms`. */
  now?: () => number;
}

const DEFAULT_LIMIT = 3;

export async function searchTools(request: SearchToolsRequest, deps: SearchToolsDeps): Promise<ToolSearchResponse> {
  const now = deps.now ?? (() => performance.now());
  const started = now();
  const limit = request.limit ?? DEFAULT_LIMIT;
  const done = (hits: ToolSearchHit[], reason?: ToolSearchFallbackReason): ToolSearchResponse => ({
    intent: request.intent,
    hits,
    elapsed_ms: Math.max(0, Math.round(now() - started)),
    source: reason ? 'fallback' : 'llm',
    ...(reason ? { fallback_reason: reason } : {}),
  });

  if (!deps.llm) return done(classifyLexical(request.intent, limit), 'no_model_key');
  const outcome = await deps.llm.classify(request.intent, limit);
  if (outcome.ok) return done(outcome.hits);
  deps.logger?.warn('tool search fell back to the lexical ranking', { reason: outcome.reason });
  return done(classifyLexical(request.intent, limit), outcome.reason);
}

/** Path A (`search.tools`): `searchTools` bound to the model classifier this process was configured with. */
export class ToolsSearchService {
  constructor(private readonly deps: SearchToolsDeps) {}

  search(request: SearchToolsRequest): Promise<ToolSearchResponse> {
    return searchTools(request, this.deps);
  }
}

/**
 * Builds the model classifier from the environment: none without
 * `ANTHROPIC_API_KEY` (so no network call is ever attempted), pointed at
 * `ANTHROPIC_BASE_URL` when set.
 */
export function llmFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  overrides: { model?: string; timeoutMs?: number } = {},
): IntentClassifier | null {
  const apiKey = env['ANTHROPIC_API_KEY']?.trim();
  if (!apiKey) return null;
  const baseURL = env['ANTHROPIC_BASE_URL']?.trim();
  return new AnthropicClassifier({ apiKey, ...(baseURL ? { baseURL } : {}), ...overrides });
}
