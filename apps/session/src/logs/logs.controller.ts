import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CallsSettledCommand, LogsListCommand, type CallsSettledResult, type LogList } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { CallLogPublisher } from '../calls/call-log.publisher';
import { LogsRepository } from './logs.repository';
import { LogsService } from './logs.service';

/** Call records over the transport: `session.logs.list`, and `session.calls.settled` from the reconcile sweep. */
@Controller()
export class LogsController {
  constructor(
    private readonly logs: LogsService,
    private readonly repo: LogsRepository,
    private readonly publisher: CallLogPublisher,
  ) {}

  /** Calls the sweep settled in the database go on the live stream like every call this service finishes. */
  @MessagePattern('session.calls.settled')
  async settled(@Payload(new ZodPipe(CallsSettledCommand)) cmd: CallsSettledCommand): Promise<CallsSettledResult> {
    const rows = await this.repo.settled(cmd.tool_call_ids);
    for (const row of rows) this.publisher.published(row);
    return { published: rows.length };
  }

  @MessagePattern('session.logs.list')
  list(@Payload(new ZodPipe(LogsListCommand)) cmd: LogsListCommand): Promise<LogList> {
    return this.logs.list(cmd.query);
  }
}
