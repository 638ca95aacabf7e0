import { Controller } from '@nestjs/common';
import { ROUTES, type MetaToolsDiscoverResponse, type RouterMetricsResponse } from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import { Input, Route, type In } from '../http/route';

/**
 * Path C and the router's metrics. Path C reads the caller's tenant (from the
 * request context): which rails are eligible depends on the project's
 * connections and environment.
 */
@Controller()
export class RouteController {
  constructor(private readonly rpc: RpcClient) {}

  @Route(ROUTES.routeOperation)
  routeOperation(@Input() { body }: In<typeof ROUTES.routeOperation>): Promise<MetaToolsDiscoverResponse> {
    return this.rpc.send('router.route', body);
  }

  @Route(ROUTES.getRouterMetrics)
  getRouterMetrics(@Input() { query }: In<typeof ROUTES.getRouterMetrics>): Promise<RouterMetricsResponse> {
    return this.rpc.send('router.metrics', query);
  }
}
