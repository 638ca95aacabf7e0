import type { PathCIntent } from '@rota/contracts';
import type { ConnectionState, EligibilitySet } from '../eligibility/eligibility.service';
import {
  MONEY_OPERATIONS,
  TOOL_FOR_OPERATION,
  carries,
  executable,
  servesCountry,
  servesCurrency,
  type Rail,
} from '../rails/rail';
import { RAILS } from '../rails/rails';

/**
 * Which eligible rails can carry an intent, or which of the two 424s it is.
 * Pure: the eligibility set and the rail list are the whole input.
 */

export type Plan =
  | { kind: 'routes'; routes: Array<{ rail: Rail; connection: ConnectionState }> }
  | { kind: 'eligibility_empty' | 'direction_blocked'; detail: string };

const OPERATION_WORDS: Record<PathCIntent['operation'], string> = {
  charge: 'collect a charge',
  refund: 'refund a charge',
  payout: 'pay out',
  issue_invoice: 'issue a fiscal document',
  send_notification: 'send a message',
  ship: 'quote a shipment',
};

/** Rails that fit the intent's place, currency and the optional method and recipient filters, whatever they carry. */
export function fitsIntent(rail: Rail, intent: PathCIntent): boolean {
  return (
    servesCountry(rail, intent.country) &&
    servesCurrency(rail, intent.currency) &&
    (intent.method === undefined || rail.method === intent.method) &&
    (intent.recipient_kind === undefined || rail.recipient_kinds.includes(intent.recipient_kind))
  );
}

function listOf(ids: readonly string[]): string {
  const unique = [...new Set(ids)];
  return unique.length <= 6 ? unique.join(', ') : `${unique.slice(0, 6).join(', ')} and ${unique.length - 6} more`;
}

export function planRoutes(intent: PathCIntent, set: EligibilitySet, rails: readonly Rail[] = RAILS): Plan {
  const where = `${intent.currency} in ${intent.country}${intent.method ? ` by ${intent.method}` : ''}${intent.recipient_kind ? ` to a ${intent.recipient_kind} recipient` : ''}`;
  // Only rails Rota can run are routed, offered as fixes or named in a refusal's detail.
  const eligible = rails.filter(
    (r) => executable(r) && set.providers[r.provider_id] !== undefined && fitsIntent(r, intent),
  );
  const routes = eligible
    .filter((r) => carries(r, intent.operation))
    .map((rail) => ({ rail, connection: set.providers[rail.provider_id]! }));
  if (routes.length > 0) return { kind: 'routes', routes };

  const catalog = new Set(set.catalog);
  // Local specialists first: a provider that serves only this country is the likeliest fix, then the regional ones.
  const reach = (r: Rail): number => (r.countries.includes('*') ? Number.MAX_SAFE_INTEGER : r.countries.length);
  const fixers = rails
    .filter((r) => catalog.has(r.provider_id) && fitsIntent(r, intent) && carries(r, intent.operation))
    .sort((a, b) => reach(a) - reach(b) || a.provider_id.localeCompare(b.provider_id))
    .map((r) => r.provider_id);
  const direction = MONEY_OPERATIONS[intent.operation];
  const tool = TOOL_FOR_OPERATION[intent.operation];

  if (intent.operation === 'refund') {
    // A refund goes back over the rail that took the money. When every rail the project
    // could have charged over only collects, another provider cannot send those charges back.
    const collecting = eligible.filter((r) => r.tool === tool && r.direction === 'in');
    if (collecting.length > 0) {
      const methods = listOf(collecting.map((r) => `${r.provider_id} ${r.method}`));
      return {
        kind: 'direction_blocked',
        detail: `The rails this project can use for ${where} (${methods}) only collect: none of them can send a charge back. Return the money as a payout (codespar_pay) instead; connecting another provider will not change this answer.`,
      };
    }
  } else if (direction) {
    const moving = eligible.filter((r) => r.direction === 'in' || r.direction === 'out');
    if (moving.length > 0 && fixers.length === 0) {
      const methods = listOf(moving.map((r) => `${r.provider_id} ${r.method}`));
      const way = direction === 'in' ? 'collect money' : 'pay money out';
      return {
        kind: 'direction_blocked',
        detail: `This project has rails for ${where} (${methods}), but they all move money the other way, and no provider in the catalog can ${way} there. Connecting another provider will not help.`,
      };
    }
  }

  return {
    kind: 'eligibility_empty',
    detail:
      fixers.length > 0
        ? `Nothing this project can use is set up to ${OPERATION_WORDS[intent.operation]} in ${where}. Connecting one of these providers would fix it: ${listOf(fixers)}.`
        : `Nothing in the catalog can ${OPERATION_WORDS[intent.operation]} in ${where} yet, so there is no provider to connect for it.`,
  };
}

/**
 * Every provider-and-tool pair that could carry the intent for some tenant.
 * Routing reads their telemetry in parallel with the eligibility set, so one
 * Redis round trip serves both.
 */
export function candidatePairs(
  intent: PathCIntent,
  rails: readonly Rail[] = RAILS,
): Array<{ provider_id: string; tool: string }> {
  const seen = new Map<string, { provider_id: string; tool: string }>();
  for (const r of rails)
    if (carries(r, intent.operation) && fitsIntent(r, intent))
      seen.set(`${r.provider_id}|${r.tool}`, { provider_id: r.provider_id, tool: r.tool });
  return [...seen.values()];
}
