-- Calls that reach providers. A call that can move money is written down
-- `pending` before it is sent and completed after, so a crash in between
-- leaves a row the worker's sweep reconciles instead of a silent gap.
-- `outcome_unknown`: the request may have reached the provider and no answer
-- came back. Rows written before this migration were all complete.

-- AlterTable
ALTER TABLE "session_tool_calls"
  ADD COLUMN "state" TEXT NOT NULL DEFAULT 'done',
  ADD COLUMN "upstream_status" INTEGER,
  ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "bytes_in" INTEGER,
  ADD COLUMN "bytes_out" INTEGER,
  ADD COLUMN "provider_idempotency_key" TEXT,
  ADD CONSTRAINT "session_tool_calls_state_check" CHECK ("state" IN ('pending', 'done', 'outcome_unknown'));

-- The sweep looks for pending rows only.
CREATE INDEX "session_tool_calls_pending_idx" ON "session_tool_calls"("called_at") WHERE "state" = 'pending';
