import type { DiscoverConnectionStatus, Environment } from '@rota/contracts';

/**
 * Fusion of the two discover passes into one ranking. Pure: the repository
 * hands over raw scores for every candidate, this module decides which
 * candidates are matches and in what order.
 */

/** One catalog tool as the repository returns it, with its raw scores. */
export interface Candidate {
  serverId: string;
  toolName: string;
  description: string;
  httpMethod: string | null;
  endpointTemplate: string | null;
  /** Set when a project registered the tool for itself. */
  projectId: string | null;
  providerName: string;
  category: string;
  providerCountry: string;
  providerCountries: string[];
  authType: string;
  selfServeAuth: boolean;
  sandboxAvailable: boolean;
  providerStatus: string;
  /** Cosine distance to the query vector; null without a query vector or without an embedding of the current model. */
  cosineDistance: number | null;
  /** Whether the approximate nearest-neighbour pass returned this row (as opposed to re-scoring it). */
  fromVectorPass: boolean;
  nameSimilarity: number;
  descriptionSimilarity: number;
  providerNameSimilarity: number;
  providerDescriptionSimilarity: number;
  /** Status of the project's connection row for this provider in the caller's environment, if there is one. */
  connectionRowStatus: string | null;
}

export interface RankingSettings {
  bonusVector: number;
  bonusTrigram: number;
  testPenalty: number;
  trigramThreshold: number;
  providerWeight: number;
  weightVector: number;
  weightTrigram: number;
  maxDistance: number;
}

export interface RankedTool {
  candidate: Candidate;
  connectionStatus: DiscoverConnectionStatus;
  cosineDistance: number | null;
  trigramSimilarity: number | null;
  /** True when the test-environment penalty applied. */
  blocked: boolean;
  score: number;
}

/** Auth schemes a developer cannot set up alone from a dashboard. */
export const NON_SELF_SERVE_AUTH: ReadonlySet<string> = new Set(['certificate', 'hmac', 'jwt', 'two_header']);

export function connectionStatusOf(authType: string, rowStatus: string | null): DiscoverConnectionStatus {
  if (authType === 'none') return 'not_required';
  return rowStatus === 'connected' ? 'connected' : 'disconnected';
}

/** Credentials a developer can create alone, without the provider's onboarding. */
export function isSelfServe(c: Pick<Candidate, 'authType' | 'selfServeAuth'>): boolean {
  return c.selfServeAuth && !NON_SELF_SERVE_AUTH.has(c.authType);
}

/**
 * The lexical score: the tool's best similarity (its name or its
 * description) plus `providerWeight` times the provider's best (its name or
 * its description). A part counts only when its own similarity reaches the
 * threshold; null when no part does. Ranges from 0 to 1 + providerWeight.
 */
export function trigramScore(c: Candidate, s: Pick<RankingSettings, 'trigramThreshold' | 'providerWeight'>): number | null {
  const best = (a: number, b: number): number | null => {
    const m = Math.max(a, b);
    return m >= s.trigramThreshold ? m : null;
  };
  const tool = best(c.nameSimilarity, c.descriptionSimilarity);
  const provider = best(c.providerNameSimilarity, c.providerDescriptionSimilarity);
  if (tool === null && provider === null) return null;
  return (tool ?? 0) + s.providerWeight * (provider ?? 0);
}

/**
 * Scores one candidate, or returns null when neither pass matched it: not
 * close enough in the vector space and under the trigram threshold.
 *
 * score = wV·(1 − distance + bonusV) + wT·(trigram + bonusT) − penalty,
 * each bonus only for a connected or `not_required` rail, each term only when
 * its pass scored the row, the penalty only in `test` for a disconnected rail
 * behind credentials that are not self-serve.
 */
export function scoreCandidate(c: Candidate, environment: Environment, s: RankingSettings): RankedTool | null {
  const trigram = trigramScore(c, s);
  const vectorMatch = c.cosineDistance !== null && c.cosineDistance <= s.maxDistance;
  if (!vectorMatch && trigram === null) return null;
  const connectionStatus = connectionStatusOf(c.authType, c.connectionRowStatus);
  const reachable = connectionStatus !== 'disconnected';
  const blocked = environment === 'test' && connectionStatus === 'disconnected' && !isSelfServe(c);
  let score = 0;
  if (c.cosineDistance !== null) score += s.weightVector * (1 - c.cosineDistance + (reachable ? s.bonusVector : 0));
  if (trigram !== null) score += s.weightTrigram * (trigram + (reachable ? s.bonusTrigram : 0));
  if (blocked) score -= s.testPenalty;
  return { candidate: c, connectionStatus, cosineDistance: c.cosineDistance, trigramSimilarity: trigram, blocked, score };
}

/** Every match, best first; ties break on the callable name so answers are stable. */
export function rankCandidates(candidates: readonly Candidate[], environment: Environment, s: RankingSettings): RankedTool[] {
  const ranked: RankedTool[] = [];
  for (const c of candidates) {
    const r = scoreCandidate(c, environment, s);
    if (r) ranked.push(r);
  }
  return ranked.sort(
    (a, b) =>
      b.score - a.score ||
      (a.candidate.serverId < b.candidate.serverId ? -1 : a.candidate.serverId > b.candidate.serverId ? 1 : 0) ||
      (a.candidate.toolName < b.candidate.toolName ? -1 : a.candidate.toolName > b.candidate.toolName ? 1 : 0),
  );
}
