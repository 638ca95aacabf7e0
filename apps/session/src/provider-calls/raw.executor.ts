import { Injectable } from '@nestjs/common';
import { failureData } from '../calls/call-book';
import { keyedCall, type ExecCall, type Executor, type Outcome } from '../execute/executors';
import { ProviderCallsService, sentNothing, toolOutcome, type CallDone } from './provider-calls.service';

/** A raw catalog tool: one provider call, written down before it is sent (see ProviderCallsService). */
@Injectable()
export class RawToolExecutor implements Executor<'raw'> {
  constructor(private readonly providerCalls: ProviderCallsService) {}

  async run(call: ExecCall<Extract<ExecCall['resolved'], { kind: 'raw' }>>): Promise<Outcome> {
    const { resolved, ctx } = call;
    // A test session with mocks answers from them and never reaches the provider (see MocksService).
    const mocked = await call.mocked();
    if (mocked) return mocked;
    const outcomeOf = (done: CallDone): Outcome => {
      const { success, data, error } = toolOutcome(done);
      return {
        success,
        data,
        error,
        server: resolved.server,
        record: true,
        written: { toolCallId: done.toolCallId, state: done.state, keyForgotten: sentNothing(done.result) },
      };
    };
    const done = await this.providerCalls.callTool({
      tenant: ctx.tenant,
      sessionId: ctx.sessionId,
      server: resolved.server,
      toolName: resolved.name.slice(resolved.server.length + 1),
      callable: resolved.name,
      input: call.input,
      // What the key keeps is the very answer the caller gets, stored by the completion statement.
      caller: keyedCall(call, outcomeOf),
      calledAt: call.calledAt,
    });
    if (done.kind === 'refused') {
      // Nothing was written or sent: the same shape as the other refusals that write no row.
      return {
        success: false,
        data: failureData(done.code, done.message, done.details ?? {}),
        error: done.message,
        server: resolved.server,
        record: false,
      };
    }
    return outcomeOf(done);
  }
}
