import { MetaToolsDiscoverRequest, MetaToolsDiscoverResponse, RouterMetricsResponse } from '@rota/contracts';
import type { RouteDoc } from '../openapi/routes';

/** Path C and the router metrics in the OpenAPI document. */
export const ROUTER_ROUTES: RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/meta-tools/discover',
    summary: 'Path C: pick the provider rail for an operation ({intent} or {description}), with reasons and alternatives',
    tag: 'router',
    scope: 'servers:read',
    request: MetaToolsDiscoverRequest,
    response: MetaToolsDiscoverResponse,
    errors: [400, 401, 403, 424, 501, 502, 503, 504],
    success: 200,
  },
  {
    method: 'get',
    path: '/v1/router/metrics',
    summary: 'Per provider-and-tool attempts, success rate, p50 latency, last error and 24 hourly buckets (?provider_id, ?tool)',
    tag: 'router',
    scope: 'servers:read',
    response: RouterMetricsResponse,
    errors: [400, 401, 403, 503, 504],
  },
];
