import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { SessionCreateCommand, SessionRefCommand, type SessionClosed, type SessionRecord } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { SessionsService } from './sessions.service';

/** Sessions over the transport: `session.create`, `session.get`, `session.close`. */
@Controller()
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

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
}
