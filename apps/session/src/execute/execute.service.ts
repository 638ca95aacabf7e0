import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import {
  AppError,
  failureSentNothing,
  type ExecuteCommand,
  type ExecuteReply,
  type ExecuteResult,
  type Tenant,
} from '@rota/contracts';
import { beforeDeadline, currentTenant } from '@rota/service-kit';
import { CallBook } from '../calls/call-book';
import { LostClaimError } from '../calls/idempotency';
import type { ClaimedKey } from '../calls/idempotency.repository';
import {
  CALL_CONTEXTS,
  EXECUTORS,
  POLICY_GATE,
  type Answer,
  type CallContexts,
  type ExecCall,
  type Executors,
  type Outcome,
  type PolicyGate,
} from './executors';
import { movesMoney, otherEnvironment, ToolResolver } from './resolve';

/** Thrown refusals from dispatch that certainly sent nothing: the user's day is given back. */
const RAN_NOTHING = new Set(['unavailable', 'mocks_engine_error']);

/**
 * The execute pipeline, after the gateway has authenticated the key and
 * parsed the body. The checks run in the documented order, and each early
 * exit says whether a `session_tool_calls` row is written:
 *
 * 1. session lookup (404, nothing written) and status (409 with the real status);
 * 2. org quota (403 `quota_exceeded`), only when enforced;
 * 3. tool resolution: `codespar_list_tools`, the published meta-tools, then the
 *    catalog by `server/tool` limited to the session's providers. No match is
 *    200 `Tool not registered`, nothing written;
 * 4. argument coercion, then validation against the tool's schema (zod for
 *    meta-tools, Ajv for catalog tools), and a meta-tool's
 *    `environment` argument against the key's (`invalid_args`, nothing written);
 * 5. the per-action scope gate (403, only when enforced);
 * 6. policy rules (`PolicyService.check`), which read the coerced arguments:
 *    a refusal is 403 with the policy body (no `error` key), kept as a policy
 *    decision record and no call row; an unreadable rules store is 503
 *    `policy_engine_error`;
 * 7. dispatch to the executor of the tool's kind (see `Executors`), recorded
 *    as one row whatever the tool answers, except the refusals that say they
 *    write nothing (`record: false`).
 */
@Injectable()
export class ExecuteService {
  constructor(
    private readonly book: CallBook,
    private readonly resolver: ToolResolver,
    @Inject(CALL_CONTEXTS) private readonly contexts: CallContexts,
    @Inject(POLICY_GATE) private readonly policy: PolicyGate,
    @Inject(EXECUTORS) private readonly executors: Executors,
  ) {}

  /**
   * Runs a call once per idempotency key: the key is claimed first (right
   * after the gateway's authentication and body validation, before the
   * session, quota or any other check), a repeat of a finished call gets its
   * stored answer, and a refusal that ran nothing gives the key back.
   */
  async execute(cmd: ExecuteCommand): Promise<ExecuteReply> {
    const tenant = currentTenant();
    // A key bound to one end user never gets a stored answer of another user's session: its session is checked before the claim.
    if (cmd.idempotency_key && tenant.user_id !== undefined && cmd.session_id !== null)
      await this.contexts.assertVisible(tenant, cmd.session_id);
    const { key, replay } = await this.book.claim(cmd, tenant);
    if (replay) return { result: replay, replayed: true };
    try {
      return { result: await this.run(cmd, tenant, key), replayed: false };
    } catch (err) {
      // A later request took the key over while this one stalled before writing: it sent nothing and answers as a repeat would.
      if (err instanceof LostClaimError && key) return { result: await this.book.answerLost(key, cmd), replayed: true };
      // Everything that throws here ran nothing (the call row is the last write).
      await this.book.release(key);
      throw err;
    }
  }

  private async run(cmd: ExecuteCommand, tenant: Tenant, key: ClaimedKey | null): Promise<ExecuteResult> {
    const calledAt = new Date();
    const { metaArgs, early } = this.resolver.early(cmd, tenant);
    // Reads an executor may start at once (discover's search, a rail's plan), in parallel with the checks.
    const prefetched = { rota: this.executors.rota.prefetch?.(early), rail: this.executors.rail.prefetch?.(early) };
    const ctx = await this.contexts.context(cmd, tenant);
    await this.book.checkQuota(tenant);

    const resolved = await this.resolver.resolve(cmd, ctx);
    const refuse = this.book.unrecorded.bind(this.book, key);
    if (!resolved) return refuse(cmd.tool, calledAt, 'tool_not_registered', 'Tool not registered', { tool: cmd.tool });
    if (resolved.kind === 'ambiguous') {
      return refuse(cmd.tool, calledAt, 'tool_not_registered', 'Tool name is ambiguous; call it as server/tool.', {
        tool: cmd.tool,
        candidates: resolved.candidates,
      });
    }
    if (cmd.via === 'mcp' && resolved.kind === 'raw') {
      return refuse(
        cmd.tool,
        calledAt,
        'tool_not_published',
        'Catalog tools run only through POST /v1/sessions/{id}/execute.',
        { tool: cmd.tool },
      );
    }
    const coerced = this.resolver.checkArgs(resolved, cmd.input, metaArgs);
    if (!coerced.ok)
      return refuse(resolved.name, calledAt, 'invalid_args', 'The arguments do not fit the tool input schema.', {
        issues: coerced.issues,
      });
    const input = coerced.value;
    if (resolved.kind !== 'raw' && otherEnvironment(input, tenant)) {
      return refuse(
        resolved.name,
        calledAt,
        'invalid_args',
        `This key acts in the ${tenant.environment} environment only.`,
        {
          issues: [
            {
              path: ['environment'],
              message: `environment must be ${tenant.environment}, the key's environment`,
              code: 'custom',
            },
          ],
        },
      );
    }
    this.resolver.checkScope(resolved.name, input, cmd.scopes);

    // Policy: the last check before anything is dispatched. It throws its
    // refusals (`policy_denied`, `policy_engine_error`), which run nothing
    // and write no call row; what it passes may carry per-user reservations.
    const governed = await this.policy.check({
      tenant,
      sessionId: ctx.sessionId,
      userId: ctx.userId,
      keyId: cmd.key_id ?? null,
      approvalId: cmd.approval_id ?? null,
      tool: resolved.name,
      action: typeof input.action === 'string' ? input.action : null,
      args: input,
      raw: resolved.kind === 'raw' ? { provider: resolved.server, category: null, method: null } : null,
    });

    // A prefetched read has been running since the request arrived.
    const started = (prefetched.rota as { started?: number } | undefined)?.started ?? performance.now();
    // The answer is built once, when the call ends: a provider call's completion stores this very answer in the key.
    let answered: ExecuteResult | null = null;
    const answer: Answer = (outcome) =>
      (answered ??= {
        success: outcome.success,
        data: outcome.data,
        error: outcome.error,
        duration: Math.round((performance.now() - started) * 100) / 100,
        server: outcome.server,
        tool: resolved.name,
        tool_call_id: outcome.written?.toolCallId ?? (outcome.record ? this.book.newCallId() : null),
        called_at: calledAt.toISOString(),
      });
    beforeDeadline();
    const call: ExecCall = {
      resolved,
      input,
      ctx,
      key,
      calledAt,
      governed,
      answer,
      mocked: () => this.executors.mock.run(call, null),
    };
    let outcome: Outcome;
    try {
      outcome = (await this.dispatch(call, prefetched))!;
    } catch (err) {
      // Refusals thrown from dispatch that certainly sent nothing give the user's day back; anything else might have run.
      if (err instanceof AppError && RAN_NOTHING.has(err.code) && governed.reservations.length > 0)
        await this.policy.release(governed.reservations);
      throw err;
    }
    // A tool without an executor, or a provider call refused or provably never sent: its amount does not count against the user's day.
    if (governed.reservations.length > 0 && (!outcome.record || failureSentNothing(outcome.data)))
      await this.policy.release(governed.reservations);
    const result = answer(outcome);
    const row = {
      sessionId: ctx.sessionId,
      tenant: ctx.tenant,
      server: outcome.server,
      input,
      data: outcome.data,
      durable: movesMoney(resolved),
    };
    await this.book.finish({ key, result, written: outcome.written, giveKeyBack: outcome.giveKeyBack, row });
    return result;
  }

  private dispatch(call: ExecCall, prefetched: { rota: unknown; rail: unknown }): Promise<Outcome | null> {
    const r = call.resolved;
    switch (r.kind) {
      case 'rota':
        return this.executors.rota.run({ ...call, resolved: r }, prefetched.rota);
      case 'rail':
        return this.executors.rail.run({ ...call, resolved: r }, prefetched.rail);
      case 'raw':
        return this.executors.raw.run({ ...call, resolved: r }, null);
    }
  }
}
