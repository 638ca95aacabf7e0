import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { MockCreateCommand, MockListCommand, type MockList, type MockView } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { MocksService } from './mocks.service';

/** Mocks over the transport: `session.mocks.create`, `session.mocks.list`. */
@Controller()
export class MocksController {
  constructor(private readonly mocks: MocksService) {}

  @MessagePattern('session.mocks.create')
  create(@Payload(new ZodPipe(MockCreateCommand)) cmd: MockCreateCommand): Promise<MockView> {
    return this.mocks.create(cmd);
  }

  @MessagePattern('session.mocks.list')
  list(@Payload(new ZodPipe(MockListCommand)) cmd: MockListCommand): Promise<MockList> {
    return this.mocks.list(cmd);
  }
}
