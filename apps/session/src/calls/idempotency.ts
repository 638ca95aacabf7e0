import { AppError } from '@rota/contracts';
import { requestContext } from '@rota/service-kit';
import type { ClaimedKey, IdempotencyRepository, IdempotencyState, KeyRef } from './idempotency.repository';

/** When the caller stops waiting: a claimed key whose deadline passed without a call row may be taken over. */
function callDeadline(): Date {
  return new Date(requestContext.getStore()?.deadline ?? Date.now() + 30_000);
}

/** What a claim attempt means for the request: run it (holding `key`), or answer from the first one. */
export type KeyDecision =
  { run: true; key: ClaimedKey } | { run: false; state: Exclude<IdempotencyState, 'running'>; response: unknown };

/** The prefix of keys the test-only pause point stalls before their pending row (see `ROTA_TEST_PAUSE_AFTER_CLAIM_MS`). */
export const PAUSE_AFTER_CLAIM_PREFIX = 'pause-after-claim-';

/**
 * Thrown by the statement that writes a call's pending row when the key is
 * no longer this request's (a retry took it over while this one stalled):
 * nothing was written or sent, and the request answers from the key as a
 * replay would (see `answerFromKey`).
 */
export class LostClaimError extends Error {
  constructor() {
    super('The idempotency key was taken over by a later request; nothing was sent.');
    this.name = 'LostClaimError';
  }
}

/**
 * Claims an idempotency key for a request (execute and proxy share it): the
 * key is the caller's, the hash says which request it names. Refuses a key
 * reused for another request (409 `idempotency_key_reused`) and a repeat
 * while the first still runs (409 `request_in_progress`).
 */
export async function claimKey(repo: IdempotencyRepository, ref: KeyRef, requestHash: string): Promise<KeyDecision> {
  const claim = await repo.claim(ref, requestHash, callDeadline());
  if (claim.claimed) return { run: true, key: claim.key };
  return decide(claim, requestHash);
}

/**
 * The answer of a request that lost its claim before it wrote anything: the
 * key as a later request left it, exactly what a repeat would get now.
 */
export async function answerFromKey(
  repo: IdempotencyRepository,
  ref: KeyRef,
  requestHash: string,
): Promise<Extract<KeyDecision, { run: false }>> {
  const row = await repo.read(ref);
  if (!row)
    throw new AppError(
      'request_in_progress',
      'A later request with this Idempotency-Key took it over; retry with the same key.',
    );
  return decide(row, requestHash);
}

function decide(
  claim: { requestHash: string; state: IdempotencyState; response: unknown },
  requestHash: string,
): Extract<KeyDecision, { run: false }> {
  if (claim.requestHash !== requestHash)
    throw new AppError(
      'idempotency_key_reused',
      'This Idempotency-Key was used for a different request in the last 24 hours.',
    );
  if (claim.state === 'running')
    throw new AppError(
      'request_in_progress',
      'A request with this Idempotency-Key is still running; retry later with the same key.',
    );
  return { run: false, state: claim.state, response: claim.response };
}
