-- Complete call records (GET /v1/logs): who made the call and over what.
-- `org_id` is the project's account at the time of the call; `user_id` the
-- session's end user; `connection_id` the connection whose credentials a
-- provider call used. None is a foreign key: a record outlives the session,
-- user and connection it names. `request_id` ties a record to the HTTP
-- request (X-Request-Id) that made it. Rows written before this migration
-- keep these null.

-- AlterTable
ALTER TABLE "session_tool_calls"
  ADD COLUMN "org_id" TEXT,
  ADD COLUMN "user_id" TEXT,
  ADD COLUMN "connection_id" TEXT,
  ADD COLUMN "request_id" TEXT;

-- GET /v1/logs pages a project and environment newest first, by (called_at, id).
CREATE INDEX "session_tool_calls_project_id_environment_called_at_id_idx" ON "session_tool_calls"("project_id", "environment", "called_at", "id");
