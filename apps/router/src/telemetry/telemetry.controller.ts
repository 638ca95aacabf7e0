import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  RouterMetricsQuery,
  RouterRecordRequest,
  type RouterMetricsResponse,
  type RouterRecordResponse,
} from '@rota/contracts';
import { currentTenant, ZodPipe } from '@rota/service-kit';
import { routerMetrics } from './metrics';
import { observeAttempt } from './prometheus';
import { TelemetryStore } from './telemetry.store';

/** The router's telemetry over the transport: `router.record` writes it, `router.metrics` reads it. */
@Controller()
export class TelemetryController {
  constructor(@Inject(TelemetryStore) private readonly telemetry: TelemetryStore) {}

  @MessagePattern('router.record')
  async record(@Payload(new ZodPipe(RouterRecordRequest)) e: RouterRecordRequest): Promise<RouterRecordResponse> {
    observeAttempt(e);
    return {
      recorded: await this.telemetry.record({
        ...e,
        environment: currentTenant().environment,
        at: e.at === undefined ? undefined : Date.parse(e.at),
      }),
    };
  }

  @MessagePattern('router.metrics')
  metrics(@Payload(new ZodPipe(RouterMetricsQuery)) q: RouterMetricsQuery): Promise<RouterMetricsResponse> {
    return routerMetrics(this.telemetry, currentTenant().environment, q);
  }
}
