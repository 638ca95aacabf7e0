import { Injectable } from '@nestjs/common';
import { ok, type ExecCall, type Executor, type Outcome } from '../execute/executors';
import { MocksService } from './mocks.service';

/**
 * A test session's mocks, asked by the rail and raw executors before
 * anything is sent: the mocked answer, or null when mocks do not apply.
 * A raw tool's mock answers with its provider as `server`; a meta-tool's
 * never names one.
 */
@Injectable()
export class MockExecutor implements Executor<'mock'> {
  constructor(private readonly mocks: MocksService) {}

  async run({ resolved, ctx, input }: ExecCall): Promise<Outcome | null> {
    switch (resolved.kind) {
      case 'raw': {
        const mocked = await this.mocks.answer({ tenant: ctx.tenant, sessionId: ctx.sessionId, tool: resolved.name });
        return mocked ? ok(mocked.response, resolved.server) : null;
      }
      case 'rail': {
        const mocked = await this.mocks.answerMetaTool({
          tenant: ctx.tenant,
          sessionId: ctx.sessionId,
          tool: resolved.name,
          input,
        });
        return mocked ? ok(mocked.response) : null;
      }
      case 'rota':
        return null;
    }
  }
}
