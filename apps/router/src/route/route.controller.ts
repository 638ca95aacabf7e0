import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  RouterMetricsQuery,
  RouterRecordRequest,
  RouterRouteRequest,
  RouterTenant,
  type EligibilityRefreshResponse,
  type MetaToolsDiscoverResponse,
  type RouterMetricsResponse,
  type RouterRecordResponse,
} from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { EligibilityService } from './eligibility/eligibility';
import { RAILS } from './rails/rails';
import { RouteService } from './routing/route.service';
import { routerMetrics } from './telemetry/metrics';
import { TelemetryStore } from './telemetry/telemetry.store';

/** Path C and the router's telemetry over the transport. */
@Controller()
export class PathCController {
  constructor(
    @Inject(RouteService) private readonly routes: RouteService,
    @Inject(TelemetryStore) private readonly telemetry: TelemetryStore,
    @Inject(EligibilityService) private readonly eligibility: EligibilityService,
  ) {}

  @MessagePattern('router.route')
  route(@Payload(new ZodPipe(RouterRouteRequest)) req: RouterRouteRequest): Promise<MetaToolsDiscoverResponse> {
    return this.routes.route(req);
  }

  @MessagePattern('router.record')
  async record(@Payload(new ZodPipe(RouterRecordRequest)) e: RouterRecordRequest): Promise<RouterRecordResponse> {
    return { recorded: await this.telemetry.record({ ...e, at: e.at === undefined ? undefined : Date.parse(e.at) }) };
  }

  @MessagePattern('router.metrics')
  metrics(@Payload(new ZodPipe(RouterMetricsQuery)) q: RouterMetricsQuery): Promise<RouterMetricsResponse> {
    return routerMetrics(this.telemetry, q);
  }

  @MessagePattern('router.eligibility.refresh')
  async refresh(@Payload(new ZodPipe(RouterTenant)) tenant: RouterTenant): Promise<EligibilityRefreshResponse> {
    const set = await this.eligibility.refresh(tenant);
    return { rails: RAILS.filter((r) => set.providers[r.provider_id] !== undefined).length, refreshed_at: set.refreshed_at };
  }
}
