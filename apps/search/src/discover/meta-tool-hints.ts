import type { DiscoverMetaToolName } from '@rota/contracts';
import { analyze, type Analysis } from '@rota/lexicon';
import { scoreTools } from '../tools-search/lexical';
import { TOOL_GIST } from '../tools-search/tool-evidence';

/**
 * The keyword table of discover: which native meta-tools cover a use case.
 *
 * It is path A's evidence table (apps/search/src/tools-search/tool-evidence.ts)
 * read over the shared pt/es/en vocabulary of @rota/lexicon, so the two
 * searches agree on what "saldo", "guía de envío" or "freeze the card"
 * mean, and all fourteen meta-tools other than discover itself are covered.
 * Only the thresholds below, leaving provider names out of the evidence,
 * and the jobs no meta-tool performs are discover's own: a hint here takes the `recommended` slot away
 * from the catalog, so it needs clear evidence of a job.
 */

/** The best meta-tool needs at least this much evidence. */
export const HINT_MIN_SCORE = 3;
/** Further meta-tools are listed when they score this close to the best. */
export const HINT_RUNNER_UP_RATIO = 0.75;
/** At most this many meta-tools are listed. */
export const HINT_MAX = 3;
/**
 * Provider and platform names say which rail someone has in mind, not which
 * job they want done, so they are not evidence here (path A reads them as a
 * hint towards managing connections, which a discover caller rarely means).
 */
const NOT_JOB_EVIDENCE: ReadonlySet<string> = new Set(['obj.provider_brand', 'obj.platform_brand']);

/**
 * Jobs no meta-tool performs, by the published input schemas: none of them
 * refunds. A refund request names a charge or a payment, which path A rightly
 * reads as money moving; here that would send the caller to a meta-tool that
 * cannot do it, so those hints are dropped and the catalog answers.
 */
const NOT_COVERED: ReadonlyArray<{ concept: string; tools: ReadonlySet<string> }> = [
  {
    concept: 'obj.refund',
    tools: new Set(['codespar_charge', 'codespar_pay', 'codespar_checkout', 'codespar_shop', 'codespar_wallet']),
  },
];

export interface MetaToolHint {
  tool: DiscoverMetaToolName;
  score: number;
  /** Lexicon concepts that raised the score, for logs and tests. */
  support: string[];
}

/** Native meta-tools that cover the use case, best first; empty when none clearly does. */
export function metaToolHints(useCase: string | Analysis): MetaToolHint[] {
  const analysis = typeof useCase === 'string' ? analyze(useCase) : useCase;
  const jobOnly: Analysis = Object.assign(Object.create(analysis) as Analysis, {
    concepts: analysis.concepts.filter((c) => !NOT_JOB_EVIDENCE.has(c)),
  });
  const present = new Set(analysis.concepts);
  const uncovered = new Set(NOT_COVERED.filter((n) => present.has(n.concept)).flatMap((n) => [...n.tools]));
  const scored = scoreTools(jobOnly).filter(
    (s) => s.tool !== 'codespar_discover' && s.score > 0 && !uncovered.has(s.tool),
  );
  const best = scored[0];
  if (!best || best.score < HINT_MIN_SCORE) return [];
  const hints: MetaToolHint[] = [];
  for (const s of scored) {
    if (hints.length >= HINT_MAX) break;
    if (s.score < HINT_MIN_SCORE || s.score < best.score * HINT_RUNNER_UP_RATIO) break;
    hints.push({ tool: s.tool as DiscoverMetaToolName, score: s.score, support: s.support });
  }
  return hints;
}

/** A short plain phrase for what a meta-tool does, shared with path A's rationales. */
export function metaToolGist(tool: DiscoverMetaToolName): string {
  return TOOL_GIST[tool];
}
