import { Controller } from '@nestjs/common';
import { ROUTES, type ToolSearchResponse } from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import { Input, Route, type In } from '../http/route';

/**
 * Path A. The handler never reads the caller's tenant: the same body gets the
 * same answer for every key.
 */
@Controller()
export class ToolsSearchController {
  constructor(private readonly rpc: RpcClient) {}

  @Route(ROUTES.searchTools)
  searchTools(@Input() { body }: In<typeof ROUTES.searchTools>): Promise<ToolSearchResponse> {
    return this.rpc.send('search.tools', body);
  }
}
