import { Inject, Injectable } from '@nestjs/common';
import type { ApprovalStatus, Environment, PolicyRule, PolicyRuleInput, RateLimitRule } from '@rota/contracts';
import { newId, Prisma, type PrismaClient } from '@rota/db';
import { PRISMA } from '@rota/service-kit';

export interface ApprovalRow {
  id: string;
  projectId: string;
  environment: Environment;
  sessionId: string | null;
  userId: string | null;
  tool: string;
  action: string | null;
  argsHash: string;
  amountMinor: bigint | null;
  currency: string | null;
  ruleId: string;
  status: ApprovalStatus;
  requestedByKey: string;
  requestedAt: Date;
  expiresAt: Date;
  decidedByKey: string | null;
  decidedAt: Date | null;
  usedAt: Date | null;
}

/** What binds an approval to one call. */
export interface ApprovalBinding {
  projectId: string;
  environment: Environment;
  userId: string | null;
  tool: string;
  action: string | null;
  argsHash: string;
}

export interface DecisionInsert {
  projectId: string;
  environment: Environment;
  sessionId: string | null;
  userId: string | null;
  keyId: string | null;
  tool: string;
  action: string | null;
  decision: 'deny' | 'approval_required';
  ruleId: string;
  ruleType: string;
  reason: string;
  approvalId: string | null;
}

export interface DailyKey {
  projectId: string;
  environment: Environment;
  tool: string;
  currency: string;
  userId: string;
}

type RawApproval = {
  id: string;
  project_id: string;
  environment: Environment;
  session_id: string | null;
  user_id: string | null;
  tool: string;
  action: string | null;
  args_hash: string;
  amount_minor: bigint | null;
  currency: string | null;
  rule_id: string;
  status: ApprovalStatus;
  requested_by_key: string;
  requested_at: Date;
  expires_at: Date;
  decided_by_key: string | null;
  decided_at: Date | null;
  used_at: Date | null;
};

/** A pending approval past its expiry reads as expired, whether or not a write has said so yet. */
const STATUS = Prisma.sql`CASE WHEN status = 'pending' AND expires_at <= now() THEN 'expired' ELSE status END AS status`;
const APPROVAL_COLUMNS = Prisma.sql`id, project_id, environment, session_id, user_id, tool, action, args_hash, amount_minor, currency, rule_id, ${STATUS},
  requested_by_key, requested_at, expires_at, decided_by_key, decided_at, used_at`;

function approval(r: RawApproval): ApprovalRow {
  return {
    id: r.id,
    projectId: r.project_id,
    environment: r.environment,
    sessionId: r.session_id,
    userId: r.user_id,
    tool: r.tool,
    action: r.action,
    argsHash: r.args_hash,
    amountMinor: r.amount_minor,
    currency: r.currency,
    ruleId: r.rule_id,
    status: r.status,
    requestedByKey: r.requested_by_key,
    requestedAt: r.requested_at,
    expiresAt: r.expires_at,
    decidedByKey: r.decided_by_key,
    decidedAt: r.decided_at,
    usedAt: r.used_at,
  };
}

/**
 * Whether provider row `p` moves money as the catalog declares it: the
 * operator's declaration when there is one; otherwise a project's own
 * provider does (its category is the project's word, not the operator's),
 * and a global one is left to its category (null).
 */
const MOVES_MONEY = Prisma.sql`CASE WHEN p.moves_money IS NOT NULL THEN p.moves_money WHEN p.owner <> '' THEN true END`;

/** Today in UTC, as Postgres computes it (one clock for every replica). */
const TODAY = Prisma.sql`(now() AT TIME ZONE 'UTC')::date`;

/**
 * Policy rules, the decisions they took, approvals, per-user daily
 * reservations and rate-limit settings of a project and environment.
 */
@Injectable()
export class PolicyRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async rules(projectId: string, environment: Environment): Promise<{ rules: PolicyRule[]; updatedAt: Date | null }> {
    const rows = await this.prisma.$queryRaw<Array<{ id: string; rule: PolicyRuleInput; created_at: Date }>>(Prisma.sql`
      SELECT id, rule, created_at FROM policy_rules WHERE project_id = ${projectId} AND environment = ${environment}::environment ORDER BY position`);
    return { rules: rows.map((r) => ({ ...r.rule, id: r.id }) as PolicyRule), updatedAt: rows[0]?.created_at ?? null };
  }

  /** Replaces every rule in one transaction; each gets a new id. */
  async replaceRules(projectId: string, environment: Environment, rules: readonly PolicyRuleInput[]): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.$executeRaw(
        Prisma.sql`DELETE FROM policy_rules WHERE project_id = ${projectId} AND environment = ${environment}::environment`,
      ),
      ...rules.map((rule, i) =>
        this.prisma.$executeRaw(Prisma.sql`
          INSERT INTO policy_rules (id, project_id, environment, position, rule) VALUES (${newId('pr')}, ${projectId}, ${environment}::environment, ${i}, ${JSON.stringify(rule)}::jsonb)`),
      ),
    ]);
  }

  async recordDecision(d: DecisionInsert): Promise<void> {
    await this.prisma.$executeRaw(Prisma.sql`
      INSERT INTO policy_decisions (id, project_id, environment, session_id, user_id, key_id, tool, action, decision, rule_id, rule_type, reason, approval_id)
      VALUES (${newId('pd')}, ${d.projectId}, ${d.environment}::environment, ${d.sessionId}, ${d.userId}, ${d.keyId}, ${d.tool}, ${d.action}, ${d.decision}, ${d.ruleId}, ${d.ruleType}, ${d.reason}, ${d.approvalId})`);
  }

  /**
   * What the catalog says about a raw tool: its provider's category, whether
   * it moves money (see {@link MOVES_MONEY}) and the HTTP method it sends.
   */
  async rawFacts(
    serverId: string,
    toolName: string,
    projectId: string,
  ): Promise<{ category: string | null; movesMoney: boolean | null; method: string | null }> {
    const rows = await this.prisma.$queryRaw<
      Array<{ category: string; moves_money: boolean | null; http_method: string | null }>
    >(Prisma.sql`
      SELECT p.category, ${MOVES_MONEY} AS moves_money, t.http_method FROM mcp_tools t JOIN providers p ON p.id = t.server_id AND p.owner = t.server_owner
      WHERE t.server_id = ${serverId} AND t.tool_name = ${toolName} AND (t.project_id = ${projectId} OR t.project_id IS NULL)
      ORDER BY t.project_id NULLS LAST LIMIT 1`);
    return {
      category: rows[0]?.category ?? null,
      movesMoney: rows[0]?.moves_money ?? null,
      method: rows[0]?.http_method ?? null,
    };
  }

  /** A provider's category as the project sees it (its own import first, else the global catalog) and whether it moves money; nulls when it names none. */
  async providerCategory(
    serverId: string,
    projectId: string,
  ): Promise<{ category: string | null; movesMoney: boolean | null }> {
    const rows = await this.prisma.$queryRaw<Array<{ category: string; moves_money: boolean | null }>>(Prisma.sql`
      SELECT p.category, ${MOVES_MONEY} AS moves_money FROM providers p WHERE p.id = ${serverId} AND (p.project_id = ${projectId} OR p.project_id IS NULL)
      ORDER BY p.project_id NULLS LAST LIMIT 1`);
    return { category: rows[0]?.category ?? null, movesMoney: rows[0]?.moves_money ?? null };
  }

  async createApproval(
    a: ApprovalBinding & {
      sessionId: string | null;
      amountMinor: bigint | null;
      currency: string | null;
      ruleId: string;
      requestedByKey: string;
      ttlSeconds: number;
    },
  ): Promise<ApprovalRow> {
    const rows = await this.prisma.$queryRaw<RawApproval[]>(Prisma.sql`
      INSERT INTO approvals (id, project_id, environment, session_id, user_id, tool, action, args_hash, amount_minor, currency, rule_id, requested_by_key, expires_at)
      VALUES (${newId('apr')}, ${a.projectId}, ${a.environment}::environment, ${a.sessionId}, ${a.userId}, ${a.tool}, ${a.action}, ${a.argsHash}, ${a.amountMinor},
              ${a.currency}, ${a.ruleId}, ${a.requestedByKey}, now() + make_interval(secs => ${a.ttlSeconds}))
      RETURNING ${APPROVAL_COLUMNS}`);
    return approval(rows[0]!);
  }

  /**
   * Spends an approved, unexpired approval on the call it is bound to: true
   * once, false for anything else (another tenant, user, tool, action or
   * arguments; pending, denied, used or expired).
   */
  async spendApproval(id: string, b: ApprovalBinding): Promise<boolean> {
    const n = await this.prisma.$executeRaw(Prisma.sql`
      UPDATE approvals SET status = 'used', used_at = now()
      WHERE id = ${id} AND project_id = ${b.projectId} AND environment = ${b.environment}::environment AND status = 'approved' AND expires_at > now()
        AND tool = ${b.tool} AND action IS NOT DISTINCT FROM ${b.action} AND user_id IS NOT DISTINCT FROM ${b.userId} AND args_hash = ${b.argsHash}`);
    return n === 1;
  }

  async findApproval(id: string, projectId: string, environment: Environment): Promise<ApprovalRow | null> {
    const rows = await this.prisma.$queryRaw<RawApproval[]>(Prisma.sql`
      SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = ${id} AND project_id = ${projectId} AND environment = ${environment}::environment`);
    return rows[0] ? approval(rows[0]) : null;
  }

  /** Decides a pending, unexpired approval; null when it is not (any more) pending. */
  async decide(
    id: string,
    projectId: string,
    environment: Environment,
    status: 'approved' | 'denied',
    keyId: string,
  ): Promise<ApprovalRow | null> {
    const rows = await this.prisma.$queryRaw<RawApproval[]>(Prisma.sql`
      UPDATE approvals SET status = ${status}, decided_by_key = ${keyId}, decided_at = now()
      WHERE id = ${id} AND project_id = ${projectId} AND environment = ${environment}::environment AND status = 'pending' AND expires_at > now()
      RETURNING ${APPROVAL_COLUMNS}`);
    return rows[0] ? approval(rows[0]) : null;
  }

  /** Writes down the expiry of a pending approval whose time has passed; true when this call did. */
  async markExpired(id: string): Promise<boolean> {
    const n = await this.prisma.$executeRaw(
      Prisma.sql`UPDATE approvals SET status = 'expired' WHERE id = ${id} AND status = 'pending' AND expires_at <= now()`,
    );
    return n === 1;
  }

  async listApprovals(
    projectId: string,
    environment: Environment,
    status: ApprovalStatus | undefined,
  ): Promise<ApprovalRow[]> {
    const rows = await this.prisma.$queryRaw<RawApproval[]>(Prisma.sql`
      SELECT * FROM (SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE project_id = ${projectId} AND environment = ${environment}::environment) a
      ${status ? Prisma.sql`WHERE a.status = ${status}` : Prisma.empty}
      ORDER BY requested_at DESC, id LIMIT 200`);
    return rows.map(approval);
  }

  /**
   * Adds `minor` to today's reservation of a user when the total stays within
   * `max`, atomically (the row lock of the upsert orders concurrent calls).
   * False when it would go over; nothing is written then.
   */
  async reserveDaily(k: DailyKey, minor: bigint, max: bigint): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<Array<{ reserved_minor: bigint }>>(Prisma.sql`
      INSERT INTO policy_daily_usage AS u (project_id, environment, tool, currency, user_id, day, reserved_minor)
      SELECT ${k.projectId}, ${k.environment}::environment, ${k.tool}, ${k.currency}, ${k.userId}, ${TODAY}, ${minor}::bigint
      WHERE ${minor}::bigint <= ${max}::bigint
      ON CONFLICT (project_id, environment, tool, currency, user_id, day) DO UPDATE
        SET reserved_minor = u.reserved_minor + EXCLUDED.reserved_minor
        WHERE u.reserved_minor + EXCLUDED.reserved_minor <= ${max}::bigint
      RETURNING reserved_minor`);
    return rows.length === 1;
  }

  /** Gives back a reservation of a call that certainly ran nothing. */
  async releaseDaily(k: DailyKey, minor: bigint): Promise<void> {
    await this.prisma.$executeRaw(Prisma.sql`
      UPDATE policy_daily_usage SET reserved_minor = GREATEST(0, reserved_minor - ${minor}::bigint)
      WHERE project_id = ${k.projectId} AND environment = ${k.environment}::environment AND tool = ${k.tool} AND currency = ${k.currency} AND user_id = ${k.userId} AND day = ${TODAY}`);
  }

  async rateLimits(projectId: string, environment: Environment): Promise<RateLimitRule[]> {
    const rows = await this.prisma.$queryRaw<Array<{ limits: RateLimitRule[] }>>(Prisma.sql`
      SELECT limits FROM rate_limits WHERE project_id = ${projectId} AND environment = ${environment}::environment`);
    return rows[0]?.limits ?? [];
  }

  async saveRateLimits(projectId: string, environment: Environment, limits: readonly RateLimitRule[]): Promise<void> {
    await this.prisma.$executeRaw(Prisma.sql`
      INSERT INTO rate_limits (project_id, environment, limits) VALUES (${projectId}, ${environment}::environment, ${JSON.stringify(limits)}::jsonb)
      ON CONFLICT (project_id, environment) DO UPDATE SET limits = EXCLUDED.limits, updated_at = now()`);
  }

  /** This calendar month's (UTC) calls of a project and environment, by tool. */
  async monthCalls(
    projectId: string,
    environment: Environment,
  ): Promise<{ from: Date; to: Date; byTool: Array<{ tool: string; calls: number }> }> {
    const [bounds] = await this.prisma.$queryRaw<Array<{ from: Date; to: Date }>>(Prisma.sql`
      SELECT date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS "from",
             (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC' AS "to"`);
    const rows = await this.prisma.$queryRaw<Array<{ tool: string; calls: bigint }>>(Prisma.sql`
      SELECT tool, count(*) AS calls FROM session_tool_calls
      WHERE project_id = ${projectId} AND environment = ${environment}::environment AND called_at >= ${bounds!.from}
      GROUP BY tool ORDER BY count(*) DESC, tool`);
    return { from: bounds!.from, to: bounds!.to, byTool: rows.map((r) => ({ tool: r.tool, calls: Number(r.calls) })) };
  }
}
