import { Controller } from '@nestjs/common';
import { ROUTES, type MockList, type MockView } from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import { Input, Route, type In } from '../http/route';

/** Mocks of raw catalog tools in test sessions. Everything past validation happens in the session service. */
@Controller()
export class MocksController {
  constructor(private readonly rpc: RpcClient) {}

  @Route(ROUTES.createMock)
  createMock(@Input() { params, body }: In<typeof ROUTES.createMock>): Promise<MockView> {
    return this.rpc.send('session.mocks.create', { session_id: params.id, body });
  }

  @Route(ROUTES.listMocks)
  listMocks(@Input() { params }: In<typeof ROUTES.listMocks>): Promise<MockList> {
    return this.rpc.send('session.mocks.list', { session_id: params.id });
  }
}
