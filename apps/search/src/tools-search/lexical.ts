import { analyze, type Analysis } from '@rota/lexicon';
import { META_TOOL_NAMES, type MetaToolName } from '@rota/contracts/meta-tools';
import type { ToolSearchConfidence, ToolSearchHit } from '@rota/contracts/tools-search';
import { EVIDENCE, SHORT_TO_TOOL, TOOL_GIST } from './tool-evidence';

/**
 * The lexical fallback of path A: ranks the 15 meta-tools for a sentence
 * without any model, from the concepts @rota/lexicon finds in it and the
 * evidence table. Deterministic, synchronous, well under a millisecond.
 */

/** Below this score a tool is not mentioned at all. */
const MIN_SCORE = 0.8;
/** The top hit is `high` from this score on, when it also leads clearly. */
const HIGH_SCORE = 4.5;
const HIGH_MARGIN = 1.5;
/** `medium` from this score on. */
const MEDIUM_SCORE = 2.5;
/** A lone strong word ("saldo?") is also `medium` when nothing competes with it. */
const LONE_SCORE = 2;
const LONE_RATIO = 3;
const MAX_RATIONALE_TERMS = 4;
/** Words that make a sentence a "what is there that..." question. */
const DISCOVER_CUES = ['q.is_there', 'q.unknown_name', 'obj.tool', 'obj.integration', 'obj.catalog'];
const DISCOVER_BONUS = 1.5;
/** The bonus only applies while no other tool scores this much. */
const DISCOVER_BONUS_CEILING = 3;
/** Asking whether an integration is active is about a connection, not the catalog. */
const CONNECTION_STATE = ['q.status', 'obj.validity'];

interface CompiledRule {
  tool: MetaToolName;
  weight: number;
  all: string[][];
  none: string[][];
}

interface RuleIndex {
  rules: CompiledRule[];
  /** For each concept, the rules whose first required group names it. */
  byFirstConcept: Map<string, number[]>;
  /** Rules with no required group: they are checked for every sentence. */
  unconditional: number[];
}

let index: RuleIndex | undefined;

function ruleIndex(): RuleIndex {
  if (index) return index;
  const rules = EVIDENCE.map(([short, weight, ...groups]) => {
    const all: string[][] = [];
    const none: string[][] = [];
    for (const g of groups) {
      if (g.startsWith('!')) none.push(g.slice(1).split('|'));
      else all.push(g.split('|'));
    }
    return { tool: SHORT_TO_TOOL[short], weight, all, none };
  });
  const byFirstConcept = new Map<string, number[]>();
  const unconditional: number[] = [];
  rules.forEach((rule, i) => {
    if (rule.all.length === 0) return unconditional.push(i);
    for (const id of new Set(rule.all[0])) {
      const list = byFirstConcept.get(id);
      if (list) list.push(i);
      else byFirstConcept.set(id, [i]);
    }
  });
  index = { rules, byFirstConcept, unconditional };
  return index;
}

/** A tool's score and the concepts that raised it. */
export interface ToolScore {
  tool: MetaToolName;
  score: number;
  /** Concepts from rules that added to the score. */
  support: string[];
}

/** Scores every meta-tool for an analysed intent, best first (ties keep the published order). */
export function scoreTools(analysis: Analysis): ToolScore[] {
  const present = new Set(analysis.concepts);
  const byTool = new Map<MetaToolName, ToolScore>();
  for (const name of META_TOOL_NAMES) byTool.set(name, { tool: name, score: 0, support: [] });
  // Only rules whose first required group meets the sentence can fire; they
  // run in table order, so scores and support match a scan of every rule.
  const { rules, byFirstConcept, unconditional } = ruleIndex();
  const candidates = new Set(unconditional);
  for (const id of present) for (const i of byFirstConcept.get(id) ?? []) candidates.add(i);
  for (const i of [...candidates].sort((a, b) => a - b)) {
    const rule = rules[i]!;
    let fires = true;
    const hits: string[] = [];
    for (const group of rule.all) {
      const found = group.filter((id) => present.has(id));
      if (found.length === 0) {
        fires = false;
        break;
      }
      hits.push(...found);
    }
    if (!fires) continue;
    if (rule.none.some((group) => group.some((id) => present.has(id)))) continue;
    const entry = byTool.get(rule.tool)!;
    entry.score += rule.weight;
    if (rule.weight > 0) for (const h of hits) if (!entry.support.includes(h)) entry.support.push(h);
  }
  // Discover is the catch-all for "is there something that..." questions no
  // other meta-tool answers well; it earns that bonus only when nothing else
  // has strong evidence of its own.
  const discover = byTool.get('codespar_discover')!;
  const aboutExistingConnection =
    present.has('act.connect') || (!present.has('obj.tool') && CONNECTION_STATE.some((id) => present.has(id)));
  if (discover.score > 0 && DISCOVER_CUES.some((id) => present.has(id)) && !aboutExistingConnection) {
    let bestOther = 0;
    for (const s of byTool.values()) if (s.tool !== 'codespar_discover' && s.score > bestOther) bestOther = s.score;
    if (bestOther < DISCOVER_BONUS_CEILING) {
      discover.score += DISCOVER_BONUS;
      for (const id of DISCOVER_CUES) if (present.has(id) && !discover.support.includes(id)) discover.support.push(id);
    }
  }
  const order = new Map(META_TOOL_NAMES.map((n, i) => [n, i]));
  return [...byTool.values()].sort((a, b) => b.score - a.score || order.get(a.tool)! - order.get(b.tool)!);
}

function rationale(analysis: Analysis, s: ToolScore): string {
  const support = new Set(s.support);
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const m of analysis.matches) {
    if (!support.has(m.concept)) continue;
    const key = m.text.toLowerCase();
    if (seen.has(key)) continue;
    // A pattern hit often overlaps the word hit it came with ("ending in" / "ending in 4321").
    if ([...seen].some((k) => k.includes(key) || key.includes(k))) continue;
    seen.add(key);
    terms.push(`"${m.text}"`);
    if (terms.length >= MAX_RATIONALE_TERMS) break;
  }
  const gist = TOOL_GIST[s.tool];
  return terms.length > 0 ? `matched ${terms.join(', ')}: ${gist}` : `weak match for ${gist}`;
}

function confidenceOf(
  rank: number,
  s: ToolScore,
  top: number,
  runnerUp: number,
  offTopic: boolean,
): ToolSearchConfidence {
  if (rank === 0) {
    if (s.score >= HIGH_SCORE && s.score - runnerUp >= HIGH_MARGIN) return 'high';
    if (s.score >= MEDIUM_SCORE) return 'medium';
    return !offTopic && s.score >= LONE_SCORE && runnerUp * LONE_RATIO <= s.score ? 'medium' : 'low';
  }
  return s.score >= MEDIUM_SCORE + 0.5 && s.score >= 0.75 * top ? 'medium' : 'low';
}

/**
 * Ranks the meta-tools for an intent without a model. Answers `[]` when
 * nothing in the sentence points at commerce; a weak hint comes back `low`.
 */
export function classifyLexical(intent: string, limit = 3): ToolSearchHit[] {
  const analysis = analyze(intent);
  const scored = scoreTools(analysis);
  const top = scored[0]!.score;
  const runnerUp = scored[1]?.score ?? 0;
  const offTopic = analysis.concepts.some((id) => id.startsWith('ctx.'));
  const hits: ToolSearchHit[] = [];
  for (let i = 0; i < scored.length && hits.length < limit; i++) {
    const s = scored[i]!;
    if (s.score < MIN_SCORE) break;
    hits.push({
      tool_name: s.tool,
      confidence: confidenceOf(i, s, top, runnerUp, offTopic),
      rationale: rationale(analysis, s),
    });
  }
  return hits;
}
