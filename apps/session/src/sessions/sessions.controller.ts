import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ExecuteCommand, SessionCreateCommand, SessionRefCommand, type ExecuteResult, type SessionClosed, type SessionRecord } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { ExecuteService } from '../execute/execute.service';
import { SessionsService } from './sessions.service';

/** Sessions and the execute pipeline over the transport. */
@Controller()
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly executor: ExecuteService,
  ) {}

  @MessagePattern('session.create')
  create(@Payload(new ZodPipe(SessionCreateCommand)) cmd: SessionCreateCommand): Promise<SessionRecord> {
    return this.sessions.create(cmd);
  }

  @MessagePattern('session.get')
  get(@Payload(new ZodPipe(SessionRefCommand)) cmd: SessionRefCommand): Promise<SessionRecord> {
    return this.sessions.get(cmd);
  }

  @MessagePattern('session.close')
  close(@Payload(new ZodPipe(SessionRefCommand)) cmd: SessionRefCommand): Promise<SessionClosed> {
    return this.sessions.close(cmd);
  }

  @MessagePattern('session.execute')
  execute(@Payload(new ZodPipe(ExecuteCommand)) cmd: ExecuteCommand): Promise<ExecuteResult> {
    return this.executor.execute(cmd);
  }
}
