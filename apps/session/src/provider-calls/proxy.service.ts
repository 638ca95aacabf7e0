import { AppError, type ProxyCommand, type ProxyReply, type ProxyResult } from '@rota/contracts';
import { currentTenant } from '@rota/service-kit';
import { callerKeyOf, type ClaimedKey, type IdempotencyRepository, type KeyRef } from '../calls/idempotency.repository';
import { answerFromKey, claimKey, LostClaimError, type KeyDecision } from '../calls/idempotency';
import { requestHash } from '../calls/request-hash';
import type { PolicyService } from '../policy/policy.service';
import type { SessionsService } from '../sessions/sessions.service';
import { sentNothing, type CallDone, type KeyOutcome, type ProviderCallsService } from './provider-calls.service';

/** The proxy's answer for a provider response. */
function proxyResult(done: CallDone, r: Extract<CallDone['result'], { kind: 'response' }>): ProxyResult {
  return {
    status: r.status,
    data: r.body,
    headers: r.headers,
    duration: Math.round(r.durationMs * 100) / 100,
    proxy_call_id: done.toolCallId,
  };
}

/**
 * What the caller's key keeps for each end of a proxy call: the answer for a
 * response, `unknown` when the outcome is, and nothing (the key is given
 * back) when the request provably never reached the provider.
 */
function keyOutcome(done: CallDone): KeyOutcome {
  const r = done.result;
  if (r.kind === 'response') return { state: 'done', response: proxyResult(done, r) };
  if (r.kind === 'outcome_unknown') return { state: 'unknown', response: null };
  return { state: 'forget' };
}

/**
 * `session.proxy`: the checks in the execute order (idempotency key, then
 * the session, then the request itself), then one provider call.
 */
export class ProxyService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly idempotency: IdempotencyRepository,
    private readonly calls: ProviderCallsService,
    private readonly policy: PolicyService,
  ) {}

  async proxy(cmd: ProxyCommand): Promise<ProxyReply> {
    const tenant = currentTenant();
    const ref: KeyRef | null = cmd.idempotency_key ? { tenant, key: cmd.idempotency_key } : null;
    const hash = requestHash({
      session_id: cmd.session_id,
      tool: 'proxy',
      input: cmd.request as unknown as Record<string, unknown>,
    });
    // A key bound to one end user never gets a stored answer of another user's session: its session is checked before the claim.
    if (ref && tenant.user_id !== undefined) await this.sessions.find(tenant, cmd.session_id);
    let key: ClaimedKey | null = null;
    if (ref) {
      const decision = await claimKey(this.idempotency, ref, hash);
      if (!decision.run) return replay(decision);
      key = decision.key;
    }
    let sent = false;
    try {
      const session = await this.sessions.requireActive(tenant, cmd.session_id);
      // Policy rules govern the proxy like execute: the last check before anything is sent.
      await this.policy.checkProxy({
        tenant,
        sessionId: session.id,
        userId: session.userId,
        keyId: cmd.key_id ?? null,
        provider: cmd.request.server,
        method: cmd.request.method,
        endpoint: cmd.request.endpoint,
      });
      const caller = callerKeyOf(key);
      const done = await this.calls.proxy({
        tenant,
        sessionId: session.id,
        servers: session.servers,
        request: cmd.request,
        // The key is finished (or given back) by the statement that completes the call.
        caller: caller ? { key: caller, answer: keyOutcome } : null,
        calledAt: new Date(),
      });
      sent = true;
      const r = done.result;
      if (r.kind === 'response') return { result: proxyResult(done, r), replayed: false };
      if (r.kind === 'outcome_unknown')
        throw new AppError(
          'outcome_unknown',
          'The request may have reached the provider and no answer came back. Retry with the same Idempotency-Key.',
        );
      // Provably never reached the provider: the completion gave the key back for a retry.
      if (key && sentNothing(r)) await this.idempotency.forgetMarker(key);
      if (r.kind === 'credentials') throw new AppError('connection_required', r.message);
      if (r.reason === 'address_refused')
        throw new AppError(
          'provider_not_callable',
          'The provider resolves to an address Rota does not call (private, loopback, link-local or metadata); nothing was sent.',
        );
      throw new AppError('upstream_unreachable', `The provider could not be reached (${r.reason}); nothing was sent.`);
    } catch (err) {
      // A later request took the key over while this one stalled before writing: answer as a repeat would.
      if (err instanceof LostClaimError && ref) return replay(await answerFromKey(this.idempotency, ref, hash));
      if (key && !sent) await this.idempotency.release(key).catch(() => undefined);
      throw err;
    }
  }
}

/** A repeat's answer: the stored one, marked as a replay; a stored unknown is still unknown. */
function replay(decision: Extract<KeyDecision, { run: false }>): ProxyReply {
  if (decision.state === 'unknown')
    throw new AppError(
      'outcome_unknown',
      'The first request with this Idempotency-Key may have reached the provider and its outcome is not known yet.',
    );
  return { result: decision.response as ProxyResult, replayed: true };
}
