import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EligibilityRefreshRequest, type EligibilityRefreshResponse } from '@rota/contracts';
import { currentTenant, ZodPipe } from '@rota/service-kit';
import { RAILS } from '../rails/rails';
import { EligibilityService } from './eligibility.service';

/** `router.eligibility.refresh` over the transport: recomputes the request's tenant's eligible rails. */
@Controller()
export class EligibilityController {
  constructor(@Inject(EligibilityService) private readonly eligibility: EligibilityService) {}

  @MessagePattern('router.eligibility.refresh')
  async refresh(
    @Payload(new ZodPipe(EligibilityRefreshRequest)) _req: EligibilityRefreshRequest,
  ): Promise<EligibilityRefreshResponse> {
    const set = await this.eligibility.refresh(currentTenant());
    return {
      rails: RAILS.filter((r) => set.providers[r.provider_id] !== undefined).length,
      refreshed_at: set.refreshed_at,
    };
  }
}
