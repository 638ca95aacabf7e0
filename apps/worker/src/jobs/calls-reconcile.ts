import type { CallLookupAnswer } from '@rota/contracts';
import type { Logger } from 'pino';
import type { LookupRecord, SessionsRepository, StaleCall } from './sessions.repository';

/** Asks the provider, through the session service, what a call made (see `session.calls.lookup`). */
export type CallLookup = (
  call: StaleCall & { orgId: string; projectId: string; environment: 'live' | 'test' },
) => Promise<CallLookupAnswer>;

/** Hands the calls a sweep settled to the session service, which streams them (see `session.calls.settled`). */
export type SettledPublisher = (toolCallIds: string[]) => Promise<unknown>;

/** Rows one sweep settles at most; the rest wait for the next one. */
export const RECONCILE_BATCH = 100;

/**
 * The answer a retry with the caller's idempotency key gets once the call is
 * known to have run: the proxy's shape for a proxy call, execute's for a
 * raw tool.
 */
export function replayAnswer(call: StaleCall, found: Extract<CallLookupAnswer, { outcome: 'found' }>): unknown {
  if (call.tool === 'proxy')
    return {
      status: found.status,
      data: found.body,
      headers: found.headers,
      duration: 0,
      proxy_call_id: call.id,
      reconciled: true,
    };
  return {
    success: true,
    // What the provider holds now under the key, not the answer the call got (which nobody saw).
    data: { status: found.status, headers: found.headers, body: found.body, reconciled: true },
    error: null,
    duration: 0,
    server: call.server,
    tool: call.tool,
    tool_call_id: call.id,
    called_at: new Date(call.calledAt).toISOString(),
  };
}

/**
 * `calls.reconcile`: every provider call left `pending` past the threshold
 * is settled, and every call that ended `outcome_unknown` (a timeout after
 * the request left, a reset mid-answer) is looked up once the same way: what
 * the provider made completes it (`done`), and a retry with the caller's key
 * then gets the settled answer marked `reconciled`. Where the catalog says how, the provider is asked by the
 * idempotency key Rota sent; what it made completes the row (`done`), and
 * anything else (nothing under the key, no lookup, the lookup failing)
 * leaves the outcome unknown (`outcome_unknown`). The row records whether
 * the provider was asked and what it said.
 */
export async function reconcileCalls(
  repo: SessionsRepository,
  lookup: CallLookup | undefined,
  afterSeconds: number,
  log?: Logger,
  publish?: SettledPublisher,
): Promise<{ found: number; unknown: number }> {
  const settled = { found: 0, unknown: 0 };
  const ids: string[] = [];
  const stale = await repo.stalePending(afterSeconds, RECONCILE_BATCH);
  // Calls that ended `outcome_unknown` and were never looked up: asked once, the same way.
  const unknown =
    stale.length < RECONCILE_BATCH ? await repo.unknownNotLookedUp(afterSeconds, RECONCILE_BATCH - stale.length) : [];
  for (const call of [...stale, ...unknown]) {
    const at = new Date().toISOString();
    let answer: CallLookupAnswer;
    if (!lookup) answer = { outcome: 'not_supported', reason: 'This worker cannot reach the session service.' };
    else if (!call.orgId || !call.projectId || !call.environment)
      answer = { outcome: 'not_supported', reason: 'The call names no project.' };
    else {
      const tenant = { ...call, orgId: call.orgId, projectId: call.projectId, environment: call.environment };
      answer = await lookup(tenant).catch((err: Error & { code?: string }) => ({
        outcome: 'failed' as const,
        reason: `The session service did not answer the lookup (${err.code ?? err.message}).`,
      }));
    }
    if (answer.outcome === 'found') {
      const record: LookupRecord = { looked_up: true, outcome: 'found', at };
      if (await repo.markFound(call, answer, replayAnswer(call, answer), record)) {
        settled.found++;
        ids.push(call.id);
      }
      continue;
    }
    const record: LookupRecord =
      answer.outcome === 'not_found'
        ? {
            looked_up: true,
            outcome: 'not_found',
            reason: `The provider answered ${answer.status}: nothing under the key.`,
            at,
          }
        : { looked_up: answer.outcome === 'failed', outcome: answer.outcome, reason: answer.reason, at };
    if (call.state === 'outcome_unknown') {
      // Still unknown: the row keeps what was asked, so it is not asked again.
      await repo.recordLookup(call, record);
      continue;
    }
    if (await repo.markUnknown(call, record)) {
      settled.unknown++;
      ids.push(call.id);
    }
  }
  // On the live log stream too; a subscriber who misses them still finds them in GET /v1/logs.
  if (publish && ids.length > 0) {
    await publish(ids).catch((err: unknown) =>
      log?.warn({ err, calls: ids.length }, 'reconciled calls not put on the call log stream'),
    );
  }
  if (settled.found + settled.unknown > 0) log?.warn(settled, 'provider calls left pending were reconciled');
  return settled;
}

/**
 * Keys left `running` behind a call that is no longer `pending` take the
 * answer of their call, so a retry gets it instead of `409
 * request_in_progress` for a day. Part of `calls.reconcile`.
 */
export async function finishStuckKeys(repo: SessionsRepository, log?: Logger): Promise<number> {
  const finished = await repo.finishStuckKeys(RECONCILE_BATCH);
  if (finished > 0) log?.warn({ keys: finished }, 'idempotency keys left running behind a finished call were finished');
  return finished;
}
