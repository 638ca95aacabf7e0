import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ExecuteCommand, type ExecuteReply } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { ExecuteService } from './execute.service';

/** The execute pipeline over the transport: `session.execute`. */
@Controller()
export class ExecuteController {
  constructor(private readonly executor: ExecuteService) {}

  @MessagePattern('session.execute')
  execute(@Payload(new ZodPipe(ExecuteCommand)) cmd: ExecuteCommand): Promise<ExecuteReply> {
    return this.executor.execute(cmd);
  }
}
