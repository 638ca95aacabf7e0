import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ConnectionDeleteCommand,
  ConnectionListCommand,
  ConnectionSaveCommand,
  type ConnectionDeleted,
  type ConnectionList,
  type ConnectionSaved,
} from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { ConnectionsService } from './connections.service';

/** Provider connections over the transport. Answers never carry credentials. */
@Controller()
export class ConnectionsController {
  constructor(private readonly connections: ConnectionsService) {}

  @MessagePattern('session.connections.save')
  save(@Payload(new ZodPipe(ConnectionSaveCommand)) cmd: ConnectionSaveCommand): Promise<ConnectionSaved> {
    return this.connections.save(cmd);
  }

  @MessagePattern('session.connections.list')
  list(@Payload(new ZodPipe(ConnectionListCommand)) _cmd: ConnectionListCommand): Promise<ConnectionList> {
    return this.connections.list();
  }

  @MessagePattern('session.connections.delete')
  delete(@Payload(new ZodPipe(ConnectionDeleteCommand)) cmd: ConnectionDeleteCommand): Promise<ConnectionDeleted> {
    return this.connections.delete(cmd);
  }
}
