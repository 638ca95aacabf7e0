import type { PathCIntent, Urgency } from '@rota/contracts';
import type { ConnectionState } from '../eligibility/eligibility.service';
import { formatMoney, railCost, urgencyRank, type FxLookup, type Rail } from '../rails/rail';
import { medianOf, type WindowStats } from '../telemetry/window';

/**
 * Ranking of eligible rails. Each factor is a number between 0 and 1; the
 * score is their weighted mean. Pure: everything it needs is passed in.
 */

export interface Weights {
  success: number;
  latency: number;
  cost: number;
  urgency: number;
  connection: number;
}

export const DEFAULT_WEIGHTS: Weights = { success: 0.4, latency: 0.15, cost: 0.25, urgency: 0.15, connection: 0.05 };

/** Success rate assumed for a rail with no calls in the window. */
export const PRIOR_SUCCESS_RATE = 0.97;
/**
 * How many calls the prior counts for: a handful of early failures moves the
 * estimate, a long healthy record is hardly moved by one.
 */
export const PRIOR_WEIGHT = 10;

const CONNECTION_FACTOR: Record<ConnectionState, number> = { connected: 1, not_required: 1, sandbox: 0.8 };
const CONNECTION_WORDS: Record<ConnectionState, string> = {
  connected: 'the project has this provider connected',
  not_required: 'this provider needs no connection',
  sandbox: 'available through the shared sandbox of the test environment',
};
/** Factor for a rail 0, 1, 2 or 3 urgency steps slower than asked. */
const URGENCY_FIT = [1, 0.5, 0.2, 0];

export interface Candidate {
  rail: Rail;
  connection: ConnectionState;
  stats: WindowStats;
}

export interface ScoredRoute {
  rail: Rail;
  connection: ConnectionState;
  score: number;
  cost_minor: number;
  /** Observed over the window, or the prior when there were no calls. */
  success_rate: number;
  latency_p50_ms: number;
  mean_latency_ms: number;
  reasons: string[];
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function urgencyFit(rail: Rail, asked: Urgency | undefined): number {
  if (!asked) return 1;
  return URGENCY_FIT[Math.max(0, urgencyRank(rail.fastest) - urgencyRank(asked))] ?? 0;
}

/** Scores and orders candidates, best first; ties go to the cheaper, then to the rail id. */
export function rankRoutes(
  intent: PathCIntent,
  candidates: readonly Candidate[],
  weights: Weights = DEFAULT_WEIGHTS,
  fx?: FxLookup,
): ScoredRoute[] {
  const facts = candidates.map((c) => {
    const { attempts, successes } = c.stats;
    const observedP50 = medianOf(c.stats.histogram);
    const p50 = observedP50 ?? c.rail.nominal_latency_ms;
    const mean = attempts > 0 ? Math.round(c.stats.latency_sum_ms / attempts) : c.rail.nominal_latency_ms;
    const smoothed = (successes + PRIOR_SUCCESS_RATE * PRIOR_WEIGHT) / (attempts + PRIOR_WEIGHT);
    const cost = railCost(c.rail, intent.currency, intent.amount_minor, fx);
    return { c, attempts, successes, observedP50, p50, mean, smoothed, cost };
  });
  const minCost = Math.min(...facts.map((f) => f.cost.cost_minor));
  const minP50 = Math.max(1, Math.min(...facts.map((f) => f.p50)));
  const total = weights.success + weights.latency + weights.cost + weights.urgency + weights.connection || 1;

  const scored = facts.map((f) => {
    const factors = {
      success: f.smoothed,
      latency: minP50 / Math.max(1, f.p50),
      cost: (minCost + 1) / (f.cost.cost_minor + 1),
      urgency: urgencyFit(f.c.rail, intent.urgency),
      connection: CONNECTION_FACTOR[f.c.connection],
    };
    const score =
      (weights.success * factors.success +
        weights.latency * factors.latency +
        weights.cost * factors.cost +
        weights.urgency * factors.urgency +
        weights.connection * factors.connection) /
      total;
    return { f, factors, score };
  });
  scored.sort(
    (a, b) =>
      b.score - a.score || a.f.cost.cost_minor - b.f.cost.cost_minor || a.f.c.rail.id.localeCompare(b.f.c.rail.id),
  );

  const best = scored[0];
  return scored.map(({ f, factors, score }, index) => {
    const rail = f.c.rail;
    const reasons: string[] = [];
    reasons.push(
      index === 0
        ? `Ranked 1 of ${scored.length} with a score of ${score.toFixed(3)}.`
        : `Ranked ${index + 1} of ${scored.length} with a score of ${score.toFixed(3)}, ${(best!.score - score).toFixed(3)} below ${best!.f.c.rail.provider_id} ${best!.f.c.rail.method}.`,
    );
    reasons.push(
      f.attempts > 0
        ? `Succeeded in ${f.successes} of ${f.attempts} calls over the last 24 hours (${pct(f.successes / f.attempts)}); counted as ${pct(factors.success)} after smoothing.`
        : `No calls in the last 24 hours, so a success rate of ${pct(PRIOR_SUCCESS_RATE)} is assumed.`,
    );
    reasons.push(
      f.observedP50 !== null
        ? `Median latency ${f.observedP50} ms over the last 24 hours (fastest candidate: ${minP50} ms).`
        : `No latency measured yet; the rail's nominal ${rail.nominal_latency_ms} ms is used (fastest candidate: ${minP50} ms).`,
    );
    const money = (n: number) => formatMoney(n, intent.currency);
    const conv = f.cost.converted;
    if (conv) {
      const rate = `${conv.rate.toPrecision(6)} ${intent.currency} per ${conv.currency}${conv.via ? ` (through ${conv.via})` : ''}, rate of ${conv.as_of.toISOString().slice(0, 10)}`;
      reasons.push(
        `Costs ${money(f.cost.cost_minor)}${intent.amount_minor !== undefined ? ` on ${money(intent.amount_minor)}` : ''}: a fixed ${formatMoney(conv.minor, conv.currency)} converted at ${rate}${
          rail.cost.bps > 0 ? `, plus ${(rail.cost.bps / 100).toFixed(2)}%` : ''
        } (illustrative figures; cheapest candidate: ${money(minCost)}).`,
      );
    } else if (!f.cost.fixed_known) {
      reasons.push(
        `No price on record in ${intent.currency}; counted as free (cheapest candidate: ${money(minCost)}).`,
      );
    } else if (intent.amount_minor !== undefined && rail.cost.bps > 0) {
      reasons.push(
        `Costs ${money(f.cost.cost_minor)} on ${money(intent.amount_minor)}: ${money(f.cost.fixed_minor)} fixed plus ${(rail.cost.bps / 100).toFixed(2)}% (illustrative figures; cheapest candidate: ${money(minCost)}).`,
      );
    } else if (rail.cost.bps > 0) {
      reasons.push(
        `Costs ${money(f.cost.fixed_minor)} fixed plus ${(rail.cost.bps / 100).toFixed(2)}% of the amount; no amount was given, so only the fixed part is compared (illustrative figures).`,
      );
    } else {
      reasons.push(
        `Costs ${money(f.cost.cost_minor)} flat (illustrative figure; cheapest candidate: ${money(minCost)}).`,
      );
    }
    reasons.push(
      intent.urgency
        ? factors.urgency === 1
          ? `Can complete ${rail.fastest === 'instant' ? 'instantly' : rail.fastest.replace('_', ' ')}, which meets the ${intent.urgency.replace('_', ' ')} urgency asked.`
          : `Completes ${rail.fastest.replace('_', ' ')} at best, slower than the ${intent.urgency.replace('_', ' ')} urgency asked (fit ${factors.urgency}).`
        : `Completes ${rail.fastest === 'instant' ? 'instantly' : rail.fastest.replace('_', ' ')} at best; no urgency was given.`,
    );
    reasons.push(`${CONNECTION_WORDS[f.c.connection][0]!.toUpperCase()}${CONNECTION_WORDS[f.c.connection].slice(1)}.`);
    return {
      rail,
      connection: f.c.connection,
      score,
      cost_minor: f.cost.cost_minor,
      success_rate: f.attempts > 0 ? f.successes / f.attempts : PRIOR_SUCCESS_RATE,
      latency_p50_ms: f.p50,
      mean_latency_ms: f.mean,
      reasons,
    };
  });
}
