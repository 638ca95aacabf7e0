import type { DiscoverConnectionStatus, Environment } from '@rota/contracts';
import { analyze, opensSentence, tokenize } from '@rota/lexicon';

/**
 * Fusion of discover's two channels (vector and lexical) into one ranking.
 * Pure: the repository hands over both raw scores for every candidate of the
 * union, this module decides which candidates are matches and in what order.
 */

/** One catalog tool as the repository returns it, with its raw scores. */
export interface Candidate {
  /** The tool's row id. */
  id: string;
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
  /** pg_trgm similarities of the use case to the tool's name and description and its provider's: shown, never ranked on (the catalog may fill them only for the rows shown). */
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
  /**
   * What naming a provider in the request adds to its tools: added to the
   * blended score, or, with `rrf`, the weight of a third vote that ranks
   * every tool of a named provider first.
   */
  bonusNamed: number;
  /** Added to the score of a tool whose name opens with the kind of act the request opens with (see `requestAct`). */
  bonusAct: number;
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

/**
 * The providers a request names ("pagar por PSE con ePayco", "emitir boleto
 * no Banco Inter"): a run of the request's words equal to the provider's
 * name or id, written as a name. A single word must carry a capital letter
 * and, as the first word of the request or of any sentence in it, one
 * inside it too ("ePayco", "PayU"): a capitalised first word is usually just
 * the start of a sentence, and
 * many provider names are ordinary words ("Envia" is Spanish for "sends").
 * A name of two words or more counts however it is written. A name the
 * lexicon reads as something other than a brand (WhatsApp is a channel, Pix
 * a rail, Envia a verb) says what to do, not whom to ask, and never counts.
 */
export function namedProviders(
  useCase: string,
  candidates: readonly Pick<Candidate, 'serverId' | 'providerName'>[],
): Set<string> {
  const tokens = tokenize(useCase);
  const named = new Set<string>();
  if (tokens.length === 0) return named;
  const seen = new Set<string>();
  for (const c of candidates) {
    if (seen.has(c.serverId)) continue;
    seen.add(c.serverId);
    for (const name of [c.providerName, c.serverId]) {
      if (notABrand(name)) continue;
      const words = tokenize(name).map((t) => t.text);
      if (words.length === 0 || words.join('').length < 3) continue;
      if (occursAsName(tokens, words, useCase)) {
        named.add(c.serverId);
        break;
      }
    }
  }
  return named;
}

/**
 * Kinds of act, by the English verbs that say them. REST catalogs name tools
 * verb first (`create_order`, `get_report`, `cancel_boleto`), so a request
 * that opens with "create", "issue" or "publish" is after a tool whose name
 * opens with a making verb, and one that opens with "see" or "look up" after
 * a reading one: a tie-breaker between tools about the same thing.
 */
const ACTS: Record<string, readonly string[]> = {
  make: [
    'create',
    'make',
    'generate',
    'issue',
    'emit',
    'open',
    'new',
    'add',
    'register',
    'start',
    'initiate',
    'publish',
    'post',
    'build',
    'stamp',
  ],
  read: [
    'get',
    'retrieve',
    'read',
    'fetch',
    'see',
    'show',
    'view',
    'lookup',
    'consult',
    'query',
    'check',
    'inspect',
    'describe',
  ],
  list: ['list', 'browse', 'enumerate'],
  search: ['search', 'find'],
  cancel: ['cancel', 'void', 'annul', 'revoke'],
  refund: ['refund', 'reverse', 'return'],
  change: ['update', 'change', 'modify', 'edit', 'set', 'patch'],
  remove: ['delete', 'remove', 'erase'],
  send: ['send', 'notify', 'dispatch', 'deliver'],
  track: ['track', 'trace'],
  download: ['download', 'export'],
};
const ACT_OF = new Map(Object.entries(ACTS).flatMap(([act, verbs]) => verbs.map((v) => [v, act] as const)));

/** Request openings that are not the act itself ("please", "I want to", "how do I"). */
const LEAD_IN = new Set([
  'please',
  'i',
  'we',
  'want',
  'need',
  'would',
  'like',
  'to',
  'how',
  'do',
  'can',
  'you',
  'help',
  'me',
  'us',
  'let',
  'lets',
  'a',
  'an',
  'the',
]);

/** The kind of act an English request opens with, or null: its first word past any lead-in, "look up" read as one verb. */
export function requestAct(english: string): string | null {
  const words = tokenize(english).map((t) => t.text);
  let i = 0;
  while (i < words.length && LEAD_IN.has(words[i]!)) i++;
  const w = words[i];
  if (w === undefined) return null;
  if ((w === 'look' || w === 'check') && words[i + 1] === 'up') return 'read';
  return ACT_OF.get(w) ?? null;
}

/** The kind of act a tool's name opens with (`create_order`, `getReport`, `lookup-cep`), or null. */
export function toolAct(toolName: string): string | null {
  const first = toolName.split(/[_\-.\s]|(?<=[a-z])(?=[A-Z])/)[0]?.toLowerCase();
  return first ? (ACT_OF.get(first) ?? null) : null;
}

/** Concepts that name a company: a provider, a platform, a bank or a carrier. */
const BRAND_CONCEPTS = new Set(['obj.provider_brand', 'obj.platform_brand', 'obj.bank_brand', 'obj.carrier']);

/** Provider names change rarely and recur on every call: each is read by the lexicon once per process. */
const brandVerdicts = new Map<string, boolean>();

function notABrand(name: string): boolean {
  let verdict = brandVerdicts.get(name);
  if (verdict === undefined) {
    verdict = analyze(name).matches.some((m) => !BRAND_CONCEPTS.has(m.concept));
    if (brandVerdicts.size >= 10_000) brandVerdicts.clear();
    brandVerdicts.set(name, verdict);
  }
  return verdict;
}

function occursAsName(tokens: ReturnType<typeof tokenize>, words: string[], original: string): boolean {
  for (let i = 0; i + words.length <= tokens.length; i++) {
    if (!words.every((w, j) => tokens[i + j]!.text === w)) continue;
    if (words.length > 1) return true;
    const written = original.slice(tokens[i]!.start, tokens[i]!.end);
    if (
      i === 0 || opensSentence(original, tokens[i]!.start) ? /\p{Lu}/u.test(written.slice(1)) : /\p{Lu}/u.test(written)
    )
      return true;
  }
  return false;
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
export function trigramScore(
  c: Candidate,
  s: Pick<RankingSettings, 'trigramThreshold' | 'providerWeight'>,
): number | null {
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
  return (
    (a.serverId < b.serverId ? -1 : a.serverId > b.serverId ? 1 : 0) ||
    (a.toolName < b.toolName ? -1 : a.toolName > b.toolName ? 1 : 0)
  );
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
export function rankCandidates(
  candidates: readonly Candidate[],
  environment: Environment,
  s: RankingSettings,
  named: ReadonlySet<string> = new Set(),
  act: string | null = null,
): RankedTool[] {
  const rows = prepare(candidates, environment, s);
  let fused: (p: Prepared) => number;
  if (s.fusion === 'rrf') {
    const vr = channelRanks(rows, (p) => p.vector);
    const lr = channelRanks(rows, (p) => p.lexical);
    fused = (p) =>
      (vr.has(p) ? s.weightVector / (s.rrfK + vr.get(p)!) : 0) +
      (lr.has(p) ? s.weightLexical / (s.rrfK + lr.get(p)!) : 0) +
      (named.has(p.c.serverId) ? s.bonusNamed / (s.rrfK + 1) : 0) +
      (act !== null && toolAct(p.c.toolName) === act ? s.bonusAct / (s.rrfK + 1) : 0);
  } else {
    fused = (p) =>
      (p.vector !== null ? s.weightVector * p.vector : 0) +
      (p.lexical !== null ? s.weightLexical * p.lexical : 0) +
      (named.has(p.c.serverId) ? s.bonusNamed : 0) +
      (act !== null && toolAct(p.c.toolName) === act ? s.bonusAct : 0);
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
