-- Governance of a project and environment: policy rules, the decisions they
-- took, approvals, per-user daily reservations, and rate limits.

-- Rules are replaced as a whole (PUT /v1/policy); `position` keeps their order.
CREATE TABLE "policy_rules" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "environment" "environment" NOT NULL,
    "position" INTEGER NOT NULL,
    "rule" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "policy_rules_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "policy_rules_project_id_environment_position_idx" ON "policy_rules"("project_id", "environment", "position");
ALTER TABLE "policy_rules" ADD CONSTRAINT "policy_rules_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One row per refusal a rule took; a refused call has no session_tool_calls row.
CREATE TABLE "policy_decisions" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "environment" "environment" NOT NULL,
    "session_id" TEXT,
    "user_id" TEXT,
    "key_id" TEXT,
    "tool" TEXT NOT NULL,
    "action" TEXT,
    "decision" TEXT NOT NULL,
    "rule_id" TEXT NOT NULL,
    "rule_type" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "approval_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "policy_decisions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "policy_decisions_decision_check" CHECK ("decision" IN ('deny', 'approval_required'))
);
CREATE INDEX "policy_decisions_project_id_environment_created_at_idx" ON "policy_decisions"("project_id", "environment", "created_at");
ALTER TABLE "policy_decisions" ADD CONSTRAINT "policy_decisions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- An approval binds the tenant, the session's user, the tool, the action and a
-- hash of the coerced arguments; `used_at` makes it pass exactly one call.
CREATE TABLE "approvals" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "environment" "environment" NOT NULL,
    "session_id" TEXT,
    "user_id" TEXT,
    "tool" TEXT NOT NULL,
    "action" TEXT,
    "args_hash" TEXT NOT NULL,
    "amount_minor" BIGINT,
    "currency" TEXT,
    "rule_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "requested_by_key" TEXT NOT NULL,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_by_key" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "approvals_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "approvals_status_check" CHECK ("status" IN ('pending', 'approved', 'denied', 'used', 'expired'))
);
CREATE INDEX "approvals_project_id_environment_requested_at_idx" ON "approvals"("project_id", "environment", "requested_at");
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- What each user has reserved today (UTC) per tool and currency, under
-- user_daily_limit rules. Keyed by tool rather than rule id, so replacing the
-- rules does not reset the day.
CREATE TABLE "policy_daily_usage" (
    "project_id" TEXT NOT NULL,
    "environment" "environment" NOT NULL,
    "tool" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "reserved_minor" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "policy_daily_usage_pkey" PRIMARY KEY ("project_id", "environment", "tool", "currency", "user_id", "day")
);
ALTER TABLE "policy_daily_usage" ADD CONSTRAINT "policy_daily_usage_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Rate limits are enforced by the gateway in Redis; this is their configuration.
CREATE TABLE "rate_limits" (
    "project_id" TEXT NOT NULL,
    "environment" "environment" NOT NULL,
    "limits" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rate_limits_pkey" PRIMARY KEY ("project_id", "environment")
);
ALTER TABLE "rate_limits" ADD CONSTRAINT "rate_limits_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
