import { AppError, type ProxyCommand, type ProxyReply, type ProxyResult } from '@rota/contracts';
import { currentTenant } from '@rota/service-kit';
import type { IdempotencyRepository, KeyRef } from '../calls/idempotency.repository';
import { claimKey } from '../calls/idempotency';
import { requestHash } from '../calls/request-hash';
import type { PolicyService } from '../policy/policy.service';
import type { SessionsService } from '../sessions/sessions.service';
import type { ProviderCallsService } from './provider-calls.service';

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
    const key: KeyRef | null = cmd.idempotency_key ? { tenant, key: cmd.idempotency_key } : null;
    // A key bound to one end user never gets a stored answer of another user's session: its session is checked before the claim.
    if (key && tenant.user_id !== undefined) await this.sessions.find(tenant, cmd.session_id);
    if (key) {
      const decision = await claimKey(
        this.idempotency,
        key,
        requestHash({ session_id: cmd.session_id, tool: 'proxy', input: cmd.request as unknown as Record<string, unknown> }),
      );
      if (!decision.run) {
        if (decision.state === 'unknown')
          throw new AppError('outcome_unknown', 'The first request with this Idempotency-Key may have reached the provider and its outcome is not known yet.');
        return { result: decision.response as ProxyResult, replayed: true };
      }
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
      const done = await this.calls.proxy({
        tenant,
        sessionId: session.id,
        servers: session.servers,
        request: cmd.request,
        callerKey: key?.key ?? null,
        calledAt: new Date(),
      });
      sent = true;
      const r = done.result;
      if (r.kind === 'response') {
        const result: ProxyResult = {
          status: r.status,
          data: r.body,
          headers: r.headers,
          duration: Math.round(r.durationMs * 100) / 100,
          proxy_call_id: done.toolCallId,
        };
        if (key) await this.idempotency.finish(key, 'done', result);
        return { result, replayed: false };
      }
      if (r.kind === 'outcome_unknown') {
        if (key) await this.idempotency.finish(key, 'unknown', null);
        throw new AppError('outcome_unknown', 'The request may have reached the provider and no answer came back. Retry with the same Idempotency-Key.');
      }
      // Provably never reached the provider: the key is free for a retry.
      if (key) await this.idempotency.forget(key);
      if (r.kind === 'credentials') throw new AppError('connection_required', r.message);
      if (r.reason === 'address_refused')
        throw new AppError(
          'provider_not_callable',
          'The provider resolves to an address Rota does not call (private, loopback, link-local or metadata); nothing was sent.',
        );
      throw new AppError('upstream_unreachable', `The provider could not be reached (${r.reason}); nothing was sent.`);
    } catch (err) {
      if (key && !sent) await this.idempotency.release(key).catch(() => undefined);
      throw err;
    }
  }
}
