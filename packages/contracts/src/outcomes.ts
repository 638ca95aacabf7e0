import type { ErrorCode } from './errors';
import type { PatternName } from './patterns';

/**
 * Patterns whose handler may have effects a caller must not repeat blindly
 * (a provider call, money moving). For these the transport never answers a
 * plain timeout: a request that reached Redis or a replica and got no answer
 * is `outcome_unknown`, and `unavailable` means it provably never started.
 */
export const ACTING_PATTERNS: Partial<Record<PatternName, 'acts'>> = {
  'session.execute': 'acts',
  'session.proxy': 'acts',
  /** Spends a one-time state and code and stores a connection. */
  'session.connections.oauth_callback': 'acts',
};

/** Whether a pattern acts (see {@link ACTING_PATTERNS}). Unknown names do not. */
export function patternActs(pattern: string): boolean {
  return Object.prototype.hasOwnProperty.call(ACTING_PATTERNS, pattern);
}

/**
 * Patterns whose handler only reads (filling a cache on the way at most):
 * running one twice, or after a peer has already answered it, changes
 * nothing anyone can see. A replica runs these without first claiming the
 * entry in Redis, which saves a round trip on the hot read paths (the rail
 * choice of every acting meta-tool, discover, path A and path C). Never list
 * a pattern here that writes.
 */
export const READ_ONLY_PATTERNS: Partial<Record<PatternName, 'reads'>> = {
  'router.select': 'reads',
  'router.route': 'reads',
  'search.discover': 'reads',
  'search.tools': 'reads',
};

/** Whether a pattern only reads (see {@link READ_ONLY_PATTERNS}). Unknown names do not. */
export function patternOnlyReads(pattern: string): boolean {
  return Object.prototype.hasOwnProperty.call(READ_ONLY_PATTERNS, pattern);
}

/**
 * Why a caller is left without the service's own answer:
 * - `never_started`: the request provably never reached a handler;
 * - `deadline`: the deadline passed before an answer came;
 * - `lost`: the request was (or may have been) handed over and then the
 *   transport or the replica went away.
 */
export type Unanswered = 'never_started' | 'deadline' | 'lost';

/**
 * The error code a caller gets when no answer comes from the service. On
 * acting patterns anything but a provable never-started is `outcome_unknown`;
 * elsewhere it is 504 `upstream_timeout`. `unavailable` always means the
 * request provably never started.
 */
export function unansweredCode(acts: boolean, why: Unanswered): ErrorCode {
  if (why === 'never_started') return 'unavailable';
  if (acts) return 'outcome_unknown';
  // A request that may have run is never answered `unavailable`, on any
  // route: that code promises it did not. Other routes say "no answer in
  // time" instead, which claims nothing about whether it ran.
  return 'upstream_timeout';
}
