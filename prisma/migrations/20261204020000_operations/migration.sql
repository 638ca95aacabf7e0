-- Operations: the health rollup's stored state and snapshots, the events
-- outbox, exchange rates, and the credential store's canary.

-- The stored health status of each scope: the deployment ('deployment') or
-- one project and environment ('project:<project_id>:<environment>').
-- Transitions are a compare-and-set on `version`, in the same statement that
-- writes the event, so replicas evaluating at once emit one event.
CREATE TABLE "health_states" (
    "scope_key" TEXT NOT NULL,
    "org_id" TEXT,
    "project_id" TEXT,
    "environment" "environment",
    "status" TEXT NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,
    "since" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "evaluated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "health_states_pkey" PRIMARY KEY ("scope_key"),
    CONSTRAINT "health_states_status_check" CHECK ("status" IN ('healthy', 'degraded', 'down')),
    CONSTRAINT "health_states_scope_check" CHECK (("project_id" IS NULL) = ("environment" IS NULL))
);

CREATE INDEX "health_states_project_id_idx" ON "health_states"("project_id");
ALTER TABLE "health_states" ADD CONSTRAINT "health_states_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Evaluations kept for GET /v1/health/history; `previous_status` is set on
-- the ones that changed the stored status.
CREATE TABLE "health_snapshots" (
    "id" BIGSERIAL NOT NULL,
    "scope_key" TEXT NOT NULL,
    "project_id" TEXT,
    "environment" "environment",
    "status" TEXT NOT NULL,
    "previous_status" TEXT,
    "checks" JSONB NOT NULL,
    "evaluated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "health_snapshots_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "health_snapshots_scope_key_id_idx" ON "health_snapshots"("scope_key", "id" DESC);
CREATE INDEX "health_snapshots_evaluated_at_idx" ON "health_snapshots"("evaluated_at");
ALTER TABLE "health_snapshots" ADD CONSTRAINT "health_snapshots_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The events outbox: every event of the catalog in contracts, written in the
-- same transaction (or statement) as the change it reports. Deployment-wide
-- events have no org or project. Delivery marks `dispatched_at`.
CREATE TABLE "events" (
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "org_id" TEXT,
    "project_id" TEXT,
    "environment" "environment",
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatched_at" TIMESTAMPTZ(3),

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "events_project_id_created_at_idx" ON "events"("project_id", "created_at");
CREATE INDEX "events_type_created_at_idx" ON "events"("type", "created_at");
CREATE INDEX "events_undispatched_idx" ON "events"("created_at") WHERE "dispatched_at" IS NULL;
ALTER TABLE "events" ADD CONSTRAINT "events_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The latest rate of each currency pair: 1 base = rate quote.
CREATE TABLE "fx_rates" (
    "base" TEXT NOT NULL,
    "quote" TEXT NOT NULL,
    "rate" DECIMAL(38,18) NOT NULL,
    "source" TEXT NOT NULL,
    "fetched_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fx_rates_pkey" PRIMARY KEY ("base", "quote"),
    CONSTRAINT "fx_rates_codes_check" CHECK ("base" ~ '^[A-Z]{3}$' AND "quote" ~ '^[A-Z]{3}$' AND "base" <> "quote"),
    CONSTRAINT "fx_rates_rate_check" CHECK ("rate" > 0)
);

-- One canary per credentials key id, sealed by the session service the first
-- time it checks that key: opening it later proves the key behind the id is
-- still the one that sealed the stored credentials.
CREATE TABLE "credentials_canaries" (
    "key_id" TEXT NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credentials_canaries_pkey" PRIMARY KEY ("key_id")
);

-- Webhook subscriptions: a project and environment's, or the deployment's
-- (made with an operator key; no project). The signing secret is sealed with
-- the worker's own key (ROTA_WEBHOOK_KEY), never the credentials key.
CREATE TABLE "webhook_subscriptions" (
    "id" TEXT NOT NULL,
    "org_id" TEXT,
    "project_id" TEXT,
    "environment" "environment",
    "url" TEXT NOT NULL,
    "events" TEXT[] NOT NULL,
    "description" TEXT,
    "secret_sealed" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_subscriptions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_subscriptions_scope_check" CHECK (("project_id" IS NULL) = ("environment" IS NULL))
);

CREATE INDEX "webhook_subscriptions_project_id_environment_idx" ON "webhook_subscriptions"("project_id", "environment");
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One delivery per subscription and event (the unique pair makes the fan-out
-- idempotent); `attempts` is the delivery log, one object per attempt.
CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "subscription_id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'retrying', 'delivered', 'dead'))
);

CREATE UNIQUE INDEX "webhook_deliveries_subscription_id_event_id_key" ON "webhook_deliveries"("subscription_id", "event_id");
CREATE INDEX "webhook_deliveries_subscription_id_created_at_idx" ON "webhook_deliveries"("subscription_id", "created_at" DESC);
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries"("updated_at") WHERE "status" IN ('pending', 'retrying');
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "webhook_subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;
