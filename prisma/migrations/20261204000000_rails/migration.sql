-- Meta-tool calls routed to rails: which rail answered, every attempt made
-- (written before each one is sent), and the id of the object the call
-- created, so that a follow-up (a refund, a status) goes to the same rail.
ALTER TABLE "session_tool_calls" ADD COLUMN "rail_id" TEXT;
ALTER TABLE "session_tool_calls" ADD COLUMN "object_ref" TEXT;
ALTER TABLE "session_tool_calls" ADD COLUMN "attempt_log" JSONB;
CREATE INDEX "session_tool_calls_object_ref_idx" ON "session_tool_calls" ("project_id", "environment", "tool", "object_ref") WHERE "object_ref" IS NOT NULL;
