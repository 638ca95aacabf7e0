import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ToolSearchRequest, type ToolSearchResponse } from '@rota/contracts';
import { RpcClient, ZodPipe } from '@rota/service-kit';
import { RequireScope } from '../auth/decorators';

/**
 * Path A. The handler never reads the caller's tenant: the same body gets the
 * same answer for every key.
 */
@Controller('v1/tools')
export class ToolsController {
  constructor(private readonly rpc: RpcClient) {}

  @Post('search')
  @HttpCode(200)
  @RequireScope('servers:read')
  search(@Body(new ZodPipe(ToolSearchRequest)) body: ToolSearchRequest): Promise<ToolSearchResponse> {
    return this.rpc.send('search.tools', body);
  }
}
