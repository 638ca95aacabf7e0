import { Module } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { POLICY_GATE, type PolicyGate } from '../execute/executors';
import { PolicyController } from './policy.controller';
import { PolicyRepository } from './policy.repository';
import { PolicyService } from './policy.service';

/** Policy rules, approvals, rate limits and usage; the policy gate of execute and the proxy. */
@Module({
  imports: [CallsModule],
  controllers: [PolicyController],
  providers: [
    PolicyRepository,
    PolicyService,
    { provide: POLICY_GATE, inject: [PolicyService], useFactory: (policy: PolicyService): PolicyGate => policy },
  ],
  exports: [PolicyService, POLICY_GATE],
})
export class PolicyModule {}
