import type { DiscoverConnectionStatus, Environment } from '@rota/contracts';

/**
 * Fusion of discover's two channels (vector and lexical) into one ranking.
 * Pure: the repository hands over both raw scores for every candidate of the
 * union, this module decides which candidates are matches and in what order.
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
  /** BM25 of the row against the lexical query; null when no query term is in the row (or the channel did not run). */
  lexicalScore: number | null;
  /** Whether the lexical channel returned this row among its own top candidates. */
  fromLexicalPass: boolean;
  nameSimilarity: number;
  descriptionSimilarity: number;
  providerNameSimilarity: number;
  providerDescriptionSimilarity: number;
  /** Status of the project's connection row for this provider in the caller's environment, if there is one. */
  connectionRowStatus: string | null;
}

/** How the two channels' scores become one: a weighted sum of normalised scores, or reciprocal rank fusion. */
export type FusionMethod = 'blend' | 'rrf';

export interface RankingSettings {
  bonusVector: number;
  bonusLexical: number;
  testPenalty: number;
  /** For the displayed `trigram_similarity` only. */
  trigramThreshold: number;
  /** For the displayed `trigram_similarity` only. */
  providerWeight: number;
  weightVector: number;
  weightLexical: number;
  maxDistance: number;
  fusion: FusionMethod;
  /** The constant of reciprocal rank fusion (rank r counts 1 / (k + r)). */
  rrfK: number;
}

export interface RankedTool {
  candidate: Candidate;
  connectionStatus: DiscoverConnectionStatus;
  cosineDistance: number | null;
  trigramSimilarity: number | null;
  /** BM25 against the lexical query, null when the row holds no query term. */
  lexicalScore: number | null;
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

interface Prepared {
  c: Candidate;
  connectionStatus: DiscoverConnectionStatus;
  reachable: boolean;
  blocked: boolean;
  /** 1 - distance (+ bonus), when the row has a vector of the query's model. */
  vector: number | null;
  /** BM25 divided by the best BM25 among the candidates (+ bonus), when the row holds a query term. */
  lexical: number | null;
}

/**
 * The channel scores of each candidate that is a match (close enough in the
 * vector space, or holding a query term), each with its bonus: the bonus of
 * a connected or `not_required` rail is added to each channel's own score,
 * before fusion. BM25 is divided by the best BM25 of the query so that both
 * channels score on a 0..1 scale and the lexical bonus means the same on
 * every query.
 */
function prepare(candidates: readonly Candidate[], environment: Environment, s: RankingSettings): Prepared[] {
  let best = 0;
  for (const c of candidates) if (c.lexicalScore !== null && c.lexicalScore > best) best = c.lexicalScore;
  const out: Prepared[] = [];
  for (const c of candidates) {
    const vectorMatch = c.cosineDistance !== null && c.cosineDistance <= s.maxDistance;
    const lexicalMatch = c.lexicalScore !== null && c.lexicalScore > 0 && best > 0;
    if (!vectorMatch && !lexicalMatch) continue;
    const connectionStatus = connectionStatusOf(c.authType, c.connectionRowStatus);
    const reachable = connectionStatus !== 'disconnected';
    out.push({
      c,
      connectionStatus,
      reachable,
      blocked: environment === 'test' && connectionStatus === 'disconnected' && !isSelfServe(c),
      vector: c.cosineDistance === null ? null : 1 - c.cosineDistance + (reachable ? s.bonusVector : 0),
      lexical: lexicalMatch ? c.lexicalScore! / best + (reachable ? s.bonusLexical : 0) : null,
    });
  }
  return out;
}

/** 1-based rank of each prepared row by one channel's score (rows without it are left out). */
function channelRanks(rows: readonly Prepared[], score: (p: Prepared) => number | null): Map<Prepared, number> {
  const scored = rows.filter((p) => score(p) !== null).sort((a, b) => score(b)! - score(a)! || byName(a.c, b.c));
  return new Map(scored.map((p, i) => [p, i + 1]));
}

function byName(a: Candidate, b: Candidate): number {
  return (a.serverId < b.serverId ? -1 : a.serverId > b.serverId ? 1 : 0) || (a.toolName < b.toolName ? -1 : a.toolName > b.toolName ? 1 : 0);
}

/**
 * Every match, best first; ties break on the callable name so answers are
 * stable.
 *
 * - `blend`: score = wV·vector + wL·lexical, each term only when its channel
 *   scored the row (see {@link prepare} for the channel scores);
 * - `rrf`: score = wV / (k + vector rank) + wL / (k + lexical rank), ranks
 *   taken over the candidates by each channel's score with its bonus.
 *
 * Either way, in `test`, a disconnected rail behind credentials that are not
 * self-serve loses `testPenalty`, which sorts it after every other match.
 */
export function rankCandidates(candidates: readonly Candidate[], environment: Environment, s: RankingSettings): RankedTool[] {
  const rows = prepare(candidates, environment, s);
  let fused: (p: Prepared) => number;
  if (s.fusion === 'rrf') {
    const vr = channelRanks(rows, (p) => p.vector);
    const lr = channelRanks(rows, (p) => p.lexical);
    fused = (p) => (vr.has(p) ? s.weightVector / (s.rrfK + vr.get(p)!) : 0) + (lr.has(p) ? s.weightLexical / (s.rrfK + lr.get(p)!) : 0);
  } else {
    fused = (p) => (p.vector !== null ? s.weightVector * p.vector : 0) + (p.lexical !== null ? s.weightLexical * p.lexical : 0);
  }
  const ranked: RankedTool[] = rows.map((p) => ({
    candidate: p.c,
    connectionStatus: p.connectionStatus,
    cosineDistance: p.c.cosineDistance,
    trigramSimilarity: trigramScore(p.c, s),
    lexicalScore: p.c.lexicalScore !== null && p.c.lexicalScore > 0 ? p.c.lexicalScore : null,
    blocked: p.blocked,
    score: fused(p) - (p.blocked ? s.testPenalty : 0),
  }));
  return ranked.sort((a, b) => b.score - a.score || byName(a.candidate, b.candidate));
}
