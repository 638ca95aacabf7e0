import { Inject, Injectable } from '@nestjs/common';
import { AppError, isActingMetaTool, type ActingMetaTool } from '@rota/contracts';
import { failureData } from '../calls/call-book';
import {
  keyedCall,
  POLICY_GATE,
  type EarlyCall,
  type ExecCall,
  type Executor,
  type Outcome,
  type PolicyGate,
} from '../execute/executors';
import { RailsService, type RailCall, type RailOutcome, type RailPlan } from './rails.service';

/** A rail choice asked for when the request arrived (see `prefetch`), with what it was made for. */
interface PlannedRail {
  tool: ActingMetaTool;
  /** The coerced arguments it was planned on (the very object dispatch receives when the call goes on). */
  input: Record<string, unknown>;
  planned: Promise<{ plan: RailPlan } | { error: unknown }>;
}

/** Plans a rail call; the promise never rejects, so one nobody awaits is harmless. */
function planRail(rails: RailsService, call: RailCall): PlannedRail['planned'] {
  return rails.plan(call).then(
    (plan) => ({ plan }),
    (error: unknown) => ({ error }),
  );
}

/**
 * An acting meta-tool: routed to a rail now, on current telemetry. The
 * agent never learns which provider ran it (`server` stays null); the
 * call row keeps the rail and every attempt.
 */
@Injectable()
export class RailExecutor implements Executor<'rail'> {
  constructor(
    private readonly rails: RailsService,
    @Inject(POLICY_GATE) private readonly policy: PolicyGate,
  ) {}

  /**
   * An acting meta-tool's rail choice (the router's select, and the early
   * provider read it allows) depends only on the tool, its arguments and the
   * tenant, and only reads. So it is asked for when the request arrives, in
   * parallel with the session lookup and the checks, on the arguments as
   * `checkArgs` will coerce them, as if no policy narrowed the providers.
   * Dispatch uses it only for that same input and when policy names no
   * providers; otherwise it plans again. Nothing is written or sent here.
   */
  prefetch({ cmd, tenant, metaArgs }: EarlyCall): PlannedRail | null {
    if (!isActingMetaTool(cmd.tool) || !metaArgs) return null;
    const planned = planRail(this.rails, {
      tool: cmd.tool,
      input: metaArgs.value,
      tenant,
      sessionId: null,
      callerKey: null,
      calledAt: new Date(),
      allowedProviders: null,
    });
    return { tool: cmd.tool, input: metaArgs.value, planned };
  }

  async run(c: ExecCall<Extract<ExecCall['resolved'], { kind: 'rail' }>>, prefetched: unknown): Promise<Outcome> {
    const { ctx, input, governed } = c;
    const tool = c.resolved.name;
    const earlyRail = (prefetched as PlannedRail | null | undefined) ?? null;
    const outcomeOf = (done: Extract<RailOutcome, { kind: 'called' }>): Outcome => ({
      success: done.success,
      data: done.data,
      error: done.error,
      server: null,
      record: true,
      written: { toolCallId: done.toolCallId, state: done.state, keyForgotten: done.sentNothing },
    });
    const call: RailCall = {
      tool,
      input,
      tenant: ctx.tenant,
      sessionId: ctx.sessionId,
      callerKey: c.key?.key ?? null,
      // The row is linked to the key only while this request holds it; the completion stores the very answer the caller gets.
      caller: keyedCall(c, outcomeOf),
      calledAt: c.calledAt,
      allowedProviders: governed.allowedProviders,
    };
    // The router's choice only reads, so it is asked for while the mocks are
    // looked up; a mocked answer drops it. The one asked for when the request
    // arrived serves when it was made for this very call: the same tool and
    // arguments, and no policy narrowing the providers.
    const reuse =
      earlyRail !== null && earlyRail.tool === tool && earlyRail.input === input && governed.allowedProviders == null;
    const planned = reuse ? earlyRail.planned : planRail(this.rails, call);
    // A test session's mock of this meta-tool answers before any rail runs; with none left the rails run (never a 422).
    const mocked = await c.mocked();
    if (mocked) return mocked;
    const settled = await planned;
    if ('error' in settled) throw settled.error;
    const done = await this.rails.perform(call, settled.plan);
    switch (done.kind) {
      case 'not_allowed': {
        // Policy left no rail: a policy refusal like any other (403, no `error` key), and nothing ran.
        const body = {
          reason: done.message,
          ruleType: 'allow_providers' as const,
          ruleId: governed.providerRuleId ?? '',
        };
        if (governed.reservations.length > 0) await this.policy.release(governed.reservations);
        throw new AppError('policy_denied', done.message, body);
      }
      case 'refused':
        return {
          success: false,
          data: failureData(done.code, done.message, done.details),
          error: done.message,
          server: null,
          record: false,
        };
      case 'not_sent':
        // No rail could be tried: an ordinary row, and the key is given back for a retry.
        return {
          success: false,
          data: failureData(done.code, done.message, done.details),
          error: done.message,
          server: null,
          record: true,
          giveKeyBack: true,
        };
      case 'called':
        return outcomeOf(done);
    }
  }
}
