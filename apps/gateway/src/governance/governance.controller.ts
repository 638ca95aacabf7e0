import { Controller } from '@nestjs/common';
import {
  AppError,
  ROUTES,
  type ApprovalList,
  type ApprovalView,
  type PolicyView,
  type RateLimitsView,
  type UsageView,
} from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import { Auth } from '../auth/decorators';
import type { Principal, ProjectPrincipal } from '../auth/principal';
import { Input, Route, type In } from '../http/route';
import { CallRateLimiter } from './rate-limits';

/** Only project keys reach these routes (the pipeline refuses operator keys); this narrows the type. */
function project(p: Principal): ProjectPrincipal {
  if (p.kind !== 'project')
    throw new AppError(
      'forbidden',
      'Operator keys act on the deployment, not on a project: use a project key for this route.',
    );
  return p;
}

/** Policy rules, approvals, rate limits and usage of the key's project and environment. */
@Controller()
export class GovernanceController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly limiter: CallRateLimiter,
  ) {}

  @Route(ROUTES.getPolicy)
  getPolicy(): Promise<PolicyView> {
    return this.rpc.send('session.policy.get', {});
  }

  @Route(ROUTES.putPolicy)
  putPolicy(@Input() { body }: In<typeof ROUTES.putPolicy>): Promise<PolicyView> {
    return this.rpc.send('session.policy.put', { body });
  }

  @Route(ROUTES.listApprovals)
  listApprovals(@Input() { query }: In<typeof ROUTES.listApprovals>): Promise<ApprovalList> {
    return this.rpc.send('session.approvals.list', { query });
  }

  @Route(ROUTES.approveApproval)
  approve(@Auth() p: Principal, @Input() { params }: In<typeof ROUTES.approveApproval>): Promise<ApprovalView> {
    return this.rpc.send('session.approvals.decide', { id: params.id, decision: 'approve', key_id: project(p).keyId });
  }

  @Route(ROUTES.denyApproval)
  deny(@Auth() p: Principal, @Input() { params }: In<typeof ROUTES.denyApproval>): Promise<ApprovalView> {
    return this.rpc.send('session.approvals.decide', { id: params.id, decision: 'deny', key_id: project(p).keyId });
  }

  @Route(ROUTES.getRateLimits)
  getRateLimits(): Promise<RateLimitsView> {
    return this.rpc.send('session.ratelimits.get', {});
  }

  @Route(ROUTES.putRateLimits)
  async putRateLimits(
    @Auth() p: Principal,
    @Input() { body }: In<typeof ROUTES.putRateLimits>,
  ): Promise<RateLimitsView> {
    const view = await this.rpc.send('session.ratelimits.put', { body });
    this.limiter.forget(project(p));
    return view;
  }

  @Route(ROUTES.getUsage)
  getUsage(): Promise<UsageView> {
    return this.rpc.send('session.usage', {});
  }
}
