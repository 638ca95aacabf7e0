-- Idempotency keys of execute and proxy calls, per tenant. A key remembers a
-- hash of its request and, once the call is done, its answer, for 24 hours.
-- `state`: running (claimed, not finished), done (answer stored), unknown
-- (the call may have reached a provider and its outcome is not known yet).
-- `tool_call_id` is set in the same transaction as the call's first row, so a
-- key whose deadline passed without one provably never dispatched anything.

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "org_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "environment" "environment" NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "tool_call_id" TEXT,
    "response" JSONB,
    "deadline" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("org_id", "project_id", "environment", "key"),
    CONSTRAINT "idempotency_keys_state_check" CHECK ("state" IN ('running', 'done', 'unknown'))
);

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

-- AddForeignKey
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
