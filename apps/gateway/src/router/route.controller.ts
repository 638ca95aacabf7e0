import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { MetaToolsDiscoverRequest, RouterMetricsQuery, type MetaToolsDiscoverResponse, type RouterMetricsResponse } from '@rota/contracts';
import { RpcClient, ZodPipe } from '@rota/service-kit';
import { Auth, RequireScope } from '../auth/decorators';
import type { Principal } from '../auth/principal';

/**
 * Path C and the router's metrics. Path C reads the caller's tenant: which
 * rails are eligible depends on the project's connections and environment.
 */
@Controller('v1')
export class RouterController {
  constructor(private readonly rpc: RpcClient) {}

  @Post('meta-tools/discover')
  @HttpCode(200)
  @RequireScope('servers:read')
  discover(@Auth() principal: Principal, @Body(new ZodPipe(MetaToolsDiscoverRequest)) body: MetaToolsDiscoverRequest): Promise<MetaToolsDiscoverResponse> {
    return this.rpc.send('router.route', {
      tenant: { org_id: principal.orgId, project_id: principal.projectId, environment: principal.environment },
      body,
    });
  }

  @Get('router/metrics')
  @RequireScope('servers:read')
  metrics(@Query(new ZodPipe(RouterMetricsQuery, 'invalid_query')) query: RouterMetricsQuery): Promise<RouterMetricsResponse> {
    return this.rpc.send('router.metrics', query);
  }
}
