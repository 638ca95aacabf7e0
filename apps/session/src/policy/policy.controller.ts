import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ApprovalDecideCommand,
  ApprovalsListCommand,
  PolicyGetCommand,
  PolicyPutCommand,
  RateLimitsGetCommand,
  RateLimitsPutCommand,
  UsageCommand,
  type ApprovalList,
  type ApprovalView,
  type PolicyView,
  type RateLimitsView,
  type UsageView,
} from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { PolicyService } from './policy.service';

/** Governance over the transport: policy rules, approvals, rate-limit settings and usage. */
@Controller()
export class PolicyController {
  constructor(private readonly policy: PolicyService) {}

  @MessagePattern('session.policy.get')
  get(@Payload(new ZodPipe(PolicyGetCommand)) _cmd: unknown): Promise<PolicyView> {
    return this.policy.getPolicy();
  }

  @MessagePattern('session.policy.put')
  put(@Payload(new ZodPipe(PolicyPutCommand)) cmd: PolicyPutCommand): Promise<PolicyView> {
    return this.policy.putPolicy(cmd.body);
  }

  @MessagePattern('session.approvals.list')
  approvals(@Payload(new ZodPipe(ApprovalsListCommand)) cmd: ApprovalsListCommand): Promise<ApprovalList> {
    return this.policy.listApprovals(cmd.query.status);
  }

  @MessagePattern('session.approvals.decide')
  decide(@Payload(new ZodPipe(ApprovalDecideCommand)) cmd: ApprovalDecideCommand): Promise<ApprovalView> {
    return this.policy.decide(cmd.id, cmd.decision, cmd.key_id);
  }

  @MessagePattern('session.ratelimits.get')
  rateLimits(@Payload(new ZodPipe(RateLimitsGetCommand)) _cmd: unknown): Promise<RateLimitsView> {
    return this.policy.getRateLimits();
  }

  @MessagePattern('session.ratelimits.put')
  putRateLimits(@Payload(new ZodPipe(RateLimitsPutCommand)) cmd: RateLimitsPutCommand): Promise<RateLimitsView> {
    return this.policy.putRateLimits(cmd.body);
  }

  @MessagePattern('session.usage')
  usage(@Payload(new ZodPipe(UsageCommand)) _cmd: unknown): Promise<UsageView> {
    return this.policy.usage();
  }
}
