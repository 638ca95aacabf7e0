import { AppError } from '@rota/contracts';
import { requestContext } from '@rota/service-kit';
import type { IdempotencyRepository, IdempotencyState, KeyRef } from './idempotency.repository';

/** When the caller stops waiting: a claimed key whose deadline passed without a call row may be taken over. */
function callDeadline(): Date {
  return new Date(requestContext.getStore()?.deadline ?? Date.now() + 30_000);
}

/** What a claim attempt means for the request: run it, or answer from the first one. */
export type KeyDecision = { run: true } | { run: false; state: Exclude<IdempotencyState, 'running'>; response: unknown };

/**
 * Claims an idempotency key for a request (execute and proxy share it): the
 * key is the caller's, the hash says which request it names. Refuses a key
 * reused for another request (409 `idempotency_key_reused`) and a repeat
 * while the first still runs (409 `request_in_progress`).
 */
export async function claimKey(repo: IdempotencyRepository, ref: KeyRef, requestHash: string): Promise<KeyDecision> {
  const claim = await repo.claim(ref, requestHash, callDeadline());
  if (claim.claimed) return { run: true };
  if (claim.requestHash !== requestHash)
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used for a different request in the last 24 hours.');
  if (claim.state === 'running')
    throw new AppError('request_in_progress', 'A request with this Idempotency-Key is still running; retry later with the same key.');
  return { run: false, state: claim.state, response: claim.response };
}
