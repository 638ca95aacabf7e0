-- Tool calls made over the project MCP transport (`POST /mcp`) have no
-- session, so a call row now names its project (and environment) directly and
-- its session only when there is one. The quota counts calls per org through
-- project_id. Existing rows take both values from their session.

-- AlterTable
ALTER TABLE "session_tool_calls" ADD COLUMN "project_id" TEXT,
ADD COLUMN "environment" "environment",
ALTER COLUMN "session_id" DROP NOT NULL;

-- Backfill
UPDATE "session_tool_calls" AS t
SET "project_id" = s."project_id", "environment" = s."environment"
FROM "sessions" AS s
WHERE s."id" = t."session_id" AND t."project_id" IS NULL;

-- A call belongs to a session, a project, or both; never to nothing.
ALTER TABLE "session_tool_calls" ADD CONSTRAINT "session_tool_calls_owner_check" CHECK ("session_id" IS NOT NULL OR "project_id" IS NOT NULL);

-- CreateIndex
CREATE INDEX "session_tool_calls_project_id_called_at_idx" ON "session_tool_calls"("project_id", "called_at");

-- AddForeignKey
ALTER TABLE "session_tool_calls" ADD CONSTRAINT "session_tool_calls_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
