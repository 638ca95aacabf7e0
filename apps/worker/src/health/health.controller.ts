import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { HealthEvaluateCommand, HealthHistoryCommand, type HealthHistory, type HealthReport } from '@rota/contracts';
import { maybeTenant, ZodPipe } from '@rota/service-kit';
import { HealthService } from './health.service';

/** `GET /v1/health` and its history over the transport. An operator's request carries no tenant: deployment-wide only. */
@Controller()
export class HealthController {
  constructor(@Inject(HealthService) private readonly health: HealthService) {}

  @MessagePattern('worker.health')
  report(@Payload(new ZodPipe(HealthEvaluateCommand)) _cmd: HealthEvaluateCommand): Promise<HealthReport> {
    return this.health.report(maybeTenant());
  }

  @MessagePattern('worker.health.history')
  history(@Payload(new ZodPipe(HealthHistoryCommand)) query: HealthHistoryCommand): Promise<HealthHistory> {
    return this.health.history(query, maybeTenant());
  }
}
