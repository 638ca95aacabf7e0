import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AppError,
  type ApprovalDecision,
  type ApprovalList,
  type ApprovalStatus,
  type ApprovalView,
  type EventName,
  type EventPayload,
  type PolicyPutRequest,
  type PolicyRefusal,
  type PolicyRule,
  type PolicyView,
  type RateLimitsPutRequest,
  type RateLimitsView,
  type Tenant,
  type UsageView,
} from '@rota/contracts';
import { CONFIG, createLogger, currentTenant } from '@rota/service-kit';
import type { SessionConfig } from '../config';
import { ToolCallsRepository } from '../calls/tool-calls.repository';
import type { PolicyCheck, PolicyPass as Pass } from '../execute/executors';
import { enforceable, evaluate, proxyCall, type DailyReservation } from './evaluate';
import { PolicyRepository, type ApprovalRow, type DailyKey } from './policy.repository';

/** The algorithm the gateway's limiter applies, as `GET /v1/rate-limits` reports it. */
export const RATE_LIMIT_ALGORITHM =
  'GCRA per limit (a burst of up to the quota, then one call per period/quota), every limit of a call checked and counted atomically in one Redis script shared by every gateway replica';

/** JSON with sorted keys: equal arguments hash equally whatever their order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The hash an approval binds: the coerced arguments, so `"100"` and `100` are the same call. */
export function argsHash(args: Record<string, unknown>): string {
  return createHash('sha256').update(canonical(args)).digest('hex');
}

/** One call as the execute pipeline hands it to the check (the pipeline's port, which this service fills). */
export type PolicyCheckInput = PolicyCheck;

/** One `proxyExecute` call, once its session is known and before anything is sent. */
export interface ProxyPolicyInput {
  tenant: Tenant;
  sessionId: string;
  /** The session's `user_id`. */
  userId: string | null;
  keyId: string | null;
  /** The provider the request goes to (`request.server`). */
  provider: string;
  method: string;
  endpoint: string;
}

/** What a passed check leaves for the dispatcher, with the reservations this service can give back. */
export type PolicyPass = Pass<{ key: DailyKey; minor: bigint }>;

const NO_RULES: PolicyPass = { allowedProviders: null, providerRuleId: null, reservations: [] };

/**
 * The policy engine: the rules of a project and environment, read through a
 * short per-replica cache, evaluated for each call after argument coercion
 * and before dispatch. A refusal is `policy_denied` carrying the policy body
 * and leaves a decision record; an unreadable rules store is
 * `policy_engine_error` for every project that has (or may have) rules.
 */
@Injectable()
export class PolicyService {
  private readonly log;
  private readonly cache = new Map<string, { rules: PolicyRule[]; at: number }>();

  constructor(
    @Inject(CONFIG) private readonly config: SessionConfig,
    private readonly repo: PolicyRepository,
    private readonly calls: ToolCallsRepository,
  ) {
    this.log = createLogger('session', config.LOG_LEVEL);
  }

  /** The rules of a tenant, failing closed when they cannot be read and none are known to be absent. */
  private async rulesOf(tenant: Tenant): Promise<PolicyRule[]> {
    const key = `${tenant.project_id}:${tenant.environment}`;
    const cached = this.cache.get(key);
    if (cached && Date.now() - cached.at < this.config.ROTA_POLICY_CACHE_MS) return cached.rules;
    try {
      const { rules } = await this.repo.rules(tenant.project_id, tenant.environment);
      this.cache.set(key, { rules, at: Date.now() });
      return rules;
    } catch (err) {
      // A project last seen without rules keeps running without them; any
      // other is refused, since its rules may forbid this very call.
      if (cached && cached.rules.length === 0) return cached.rules;
      this.log.error({ err, project_id: tenant.project_id }, 'policy rules unreadable; refusing the call');
      throw new AppError('policy_engine_error', 'The policy engine could not read the rules; nothing was done.');
    }
  }

  /**
   * Checks one call against the rules. Passes (with what the dispatcher needs
   * to know), or throws `policy_denied` with the refusal body, having
   * recorded the decision and, for an approval threshold, opened an approval.
   */
  async check(input: PolicyCheckInput): Promise<PolicyPass> {
    const rules = await this.rulesOf(input.tenant);
    if (rules.length === 0) return NO_RULES;
    let raw = input.raw;
    if (raw && raw.category === null)
      raw = {
        ...raw,
        ...(await this.engine(() =>
          this.repo.rawFacts(raw!.provider, input.tool.slice(raw!.provider.length + 1), input.tenant.project_id),
        )),
      };
    const verdict = evaluate(rules, { ...input, raw });
    if (verdict.kind === 'deny') return this.refuse(input, verdict.rule, verdict.reason, null);

    const reservations: PolicyPass['reservations'] = [];
    try {
      for (const d of verdict.daily) {
        const key = this.dailyKey(input, d);
        if (!(await this.engine(() => this.repo.reserveDaily(key, d.minor, BigInt(d.rule.max_minor))))) {
          return await this.refuse(
            input,
            d.rule,
            `The user's ${d.rule.currency} total for ${input.tool} today would go above ${d.rule.max_minor} minor units.`,
            null,
          );
        }
        reservations.push({ key, minor: d.minor });
      }
      if (verdict.approval)
        await this.approve(input, verdict.approval, verdict.amount.kind === 'amount' ? verdict.amount : null);
    } catch (err) {
      await this.release(reservations);
      throw err;
    }
    const providerRuleId = rules.find((r) => r.type === 'allow_providers')?.id ?? null;
    return { allowedProviders: verdict.allowedProviders, providerRuleId, reservations };
  }

  /**
   * Checks one proxy call against the rules: it calls no tool, so rules name
   * it `proxy` with its HTTP method as the action; `allow_providers` refuses
   * another provider; and while amount rules exist, a non-GET request to a
   * payments, banking or crypto provider is refused unless an `allow_tools`
   * rule names `proxy` (its body cannot be read for an amount). Passes, or
   * throws `policy_denied` (recorded) or `policy_engine_error`, exactly as
   * `check` does; nothing reserves or opens an approval here, since no
   * amount rule can read a proxy body.
   */
  async checkProxy(input: ProxyPolicyInput): Promise<void> {
    const rules = await this.rulesOf(input.tenant);
    if (rules.length === 0) return;
    const { category, movesMoney } = await this.engine(() =>
      this.repo.providerCategory(input.provider, input.tenant.project_id),
    );
    const call = proxyCall({
      provider: input.provider,
      category,
      movesMoney,
      method: input.method,
      endpoint: input.endpoint,
      userId: input.userId,
    });
    const verdict = evaluate(rules, call);
    if (verdict.kind === 'deny')
      await this.refuse(
        { ...call, tenant: input.tenant, sessionId: input.sessionId, keyId: input.keyId, approvalId: null },
        verdict.rule,
        verdict.reason,
        null,
      );
  }

  /** Gives back the daily reservations of a call that certainly ran nothing. */
  async release(reservations: PolicyPass['reservations']): Promise<void> {
    for (const r of reservations) {
      await this.repo
        .releaseDaily(r.key, r.minor)
        .catch((err: unknown) => this.log.warn({ err }, 'could not release a daily reservation'));
    }
  }

  private dailyKey(input: PolicyCheckInput, d: DailyReservation): DailyKey {
    return {
      projectId: input.tenant.project_id,
      environment: input.tenant.environment,
      tool: input.tool,
      currency: d.rule.currency,
      userId: input.userId!,
    };
  }

  /** An approval threshold was crossed: spend the presented approval, or open one and refuse. */
  private async approve(
    input: PolicyCheckInput,
    rule: Extract<PolicyRule, { type: 'approval_above' }>,
    amount: { minor: bigint; currency: string } | null,
  ): Promise<void> {
    const binding = {
      projectId: input.tenant.project_id,
      environment: input.tenant.environment,
      userId: input.userId,
      tool: input.tool,
      action: input.action,
      argsHash: argsHash(input.args),
    };
    if (input.approvalId) {
      if (await this.engine(() => this.repo.spendApproval(input.approvalId!, binding))) return;
      const found = await this.engine(() =>
        this.repo.findApproval(input.approvalId!, input.tenant.project_id, input.tenant.environment),
      );
      if (found?.status === 'expired') await this.expired(found);
      const why = !found
        ? 'names no approval of this project'
        : found.status !== 'approved'
          ? `is ${found.status}`
          : found.tool !== binding.tool ||
              found.action !== binding.action ||
              found.userId !== binding.userId ||
              found.argsHash !== binding.argsHash
            ? 'was approved for a different call'
            : 'cannot be used';
      await this.refuse(input, rule, `Approval ${input.approvalId} ${why}; the call was not run.`, null);
    }
    const row = await this.engine(() =>
      this.repo.createApproval({
        ...binding,
        sessionId: input.sessionId,
        amountMinor: amount?.minor ?? null,
        currency: amount?.currency ?? null,
        ruleId: rule.id,
        requestedByKey: input.keyId ?? 'unknown',
        ttlSeconds: rule.ttl_seconds,
      }),
    );
    this.emit('approval.requested', {
      ...this.eventBase(row),
      expires_at: row.expiresAt.toISOString(),
      requested_by_key: row.requestedByKey,
    });
    await this.refuse(
      input,
      rule,
      `Above ${rule.above_minor} ${rule.currency} minor units this call needs an approval; retry with Rota-Approval-Id once it is approved.`,
      row,
    );
  }

  private async refuse(
    input: PolicyCheckInput,
    rule: PolicyRule,
    reason: string,
    opened: ApprovalRow | null,
  ): Promise<never> {
    await this.engine(() =>
      this.repo.recordDecision({
        projectId: input.tenant.project_id,
        environment: input.tenant.environment,
        sessionId: input.sessionId,
        userId: input.userId,
        keyId: input.keyId,
        tool: input.tool,
        action: input.action,
        decision: opened ? 'approval_required' : 'deny',
        ruleId: rule.id,
        ruleType: rule.type,
        reason,
        approvalId: opened?.id ?? null,
      }),
    );
    const body: PolicyRefusal = {
      reason,
      ruleType: rule.type,
      ruleId: rule.id,
      ...(opened ? { approval_id: opened.id, expires_at: opened.expiresAt.toISOString() } : {}),
    };
    throw new AppError('policy_denied', reason, body);
  }

  /** A store failure inside the check is an engine failure, never a pass. */
  private async engine<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (err instanceof AppError) throw err;
      this.log.error({ err }, 'policy store failed during a check; refusing the call');
      throw new AppError('policy_engine_error', 'The policy engine could not complete the check; nothing was done.');
    }
  }

  async getPolicy(): Promise<PolicyView> {
    const tenant = currentTenant();
    const { rules, updatedAt } = await this.repo.rules(tenant.project_id, tenant.environment);
    return { environment: tenant.environment, rules, updated_at: updatedAt?.toISOString() ?? null };
  }

  async putPolicy(body: PolicyPutRequest): Promise<PolicyView> {
    const tenant = currentTenant();
    // A rule this engine cannot enforce is refused, never stored to be silently skipped.
    const unknown = body.rules.flatMap((r, i) =>
      enforceable(r.type)
        ? []
        : [{ path: ['rules', i, 'type'], message: `rule type ${r.type} is not enforced here`, code: 'custom' }],
    );
    if (unknown.length > 0)
      throw new AppError('invalid_body', 'The policy names a rule type this deployment cannot enforce.', {
        issues: unknown,
      });
    await this.repo.replaceRules(tenant.project_id, tenant.environment, body.rules);
    this.cache.delete(`${tenant.project_id}:${tenant.environment}`);
    return this.getPolicy();
  }

  async listApprovals(status: ApprovalStatus | undefined): Promise<ApprovalList> {
    const tenant = currentTenant();
    const rows = await this.repo.listApprovals(tenant.project_id, tenant.environment, status);
    return { approvals: rows.map(approvalView) };
  }

  async decide(id: string, decision: ApprovalDecision, keyId: string): Promise<ApprovalView> {
    const tenant = currentTenant();
    const found = await this.repo.findApproval(id, tenant.project_id, tenant.environment);
    if (!found) throw new AppError('approval_not_found', 'No approval with this id.');
    if (found.requestedByKey === keyId)
      throw new AppError(
        'forbidden',
        'The key that made the call cannot decide its approval; use another key with approvals:write.',
      );
    const row = await this.repo.decide(
      id,
      tenant.project_id,
      tenant.environment,
      decision === 'approve' ? 'approved' : 'denied',
      keyId,
    );
    if (!row) {
      const now = await this.repo.findApproval(id, tenant.project_id, tenant.environment);
      if (now?.status === 'expired') await this.expired(now);
      throw new AppError(
        'approval_not_pending',
        `The approval is ${now?.status ?? found.status}; only a pending approval can be decided.`,
        {
          status: now?.status ?? found.status,
        },
      );
    }
    this.emit(decision === 'approve' ? 'approval.approved' : 'approval.denied', {
      ...this.eventBase(row),
      decided_by_key: keyId,
    });
    return approvalView(row);
  }

  private async expired(row: ApprovalRow) {
    if (await this.repo.markExpired(row.id)) this.emit('approval.expired', this.eventBase(row));
  }

  private eventBase(row: ApprovalRow) {
    return {
      approval_id: row.id,
      project_id: row.projectId,
      environment: row.environment,
      tool: row.tool,
      action: row.action,
      user_id: row.userId,
      rule_id: row.ruleId,
      at: new Date().toISOString(),
    };
  }

  /** One line per event, named from the catalog; delivery reads the catalog, not this log. */
  private emit<E extends EventName>(event: E, payload: EventPayload<E>) {
    this.log.info({ event, ...(payload as Record<string, unknown>) }, 'event');
  }

  async getRateLimits(): Promise<RateLimitsView> {
    const tenant = currentTenant();
    return {
      environment: tenant.environment,
      limits: await this.repo.rateLimits(tenant.project_id, tenant.environment),
      algorithm: RATE_LIMIT_ALGORITHM,
    };
  }

  async putRateLimits(body: RateLimitsPutRequest): Promise<RateLimitsView> {
    const tenant = currentTenant();
    await this.repo.saveRateLimits(tenant.project_id, tenant.environment, body.limits);
    return this.getRateLimits();
  }

  async usage(): Promise<UsageView> {
    const tenant = currentTenant();
    const [month, org] = await Promise.all([
      this.repo.monthCalls(tenant.project_id, tenant.environment),
      this.calls.usage(tenant.org_id),
    ]);
    return {
      period: { from: month.from.toISOString(), to: month.to.toISOString() },
      environment: tenant.environment,
      calls: month.byTool,
      total: month.byTool.reduce((n, t) => n + t.calls, 0),
      quota: {
        plan: org?.plan ?? 'free',
        limit: org?.quotaMonthlyCalls ?? this.config.ROTA_QUOTA_DEFAULT_MONTHLY_CALLS,
        used: org?.used ?? 0,
        enforced: this.config.ROTA_QUOTA_ENFORCE,
      },
    };
  }
}

function approvalView(r: ApprovalRow): ApprovalView {
  return {
    id: r.id,
    status: r.status,
    tool: r.tool,
    action: r.action,
    user_id: r.userId,
    session_id: r.sessionId,
    amount_minor: r.amountMinor === null ? null : Number(r.amountMinor),
    currency: r.currency,
    rule_id: r.ruleId,
    requested_by_key: r.requestedByKey,
    requested_at: r.requestedAt.toISOString(),
    expires_at: r.expiresAt.toISOString(),
    decided_by_key: r.decidedByKey,
    decided_at: r.decidedAt?.toISOString() ?? null,
    used_at: r.usedAt?.toISOString() ?? null,
  };
}
