-- Mocks of raw catalog tools in a test-environment session. Each row answers
-- `times` calls of one tool with a fixed response; `remaining` counts down in
-- one conditional UPDATE, so replicas racing for the last answer never hand
-- it out twice. Rows go with their session.

-- CreateTable
CREATE TABLE "session_mocks" (
    "id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "response" JSONB NOT NULL,
    "times" INTEGER NOT NULL,
    "remaining" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- The order mocks of one tool answer in (two may share a millisecond).
    "seq" BIGSERIAL NOT NULL,

    CONSTRAINT "session_mocks_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "session_mocks_times_check" CHECK ("times" BETWEEN 1 AND 1000),
    CONSTRAINT "session_mocks_remaining_check" CHECK ("remaining" BETWEEN 0 AND "times")
);

-- Execute looks up a session's mocks of one tool, oldest first.
CREATE INDEX "session_mocks_session_id_tool_seq_idx" ON "session_mocks"("session_id", "tool", "seq");

-- AddForeignKey
ALTER TABLE "session_mocks" ADD CONSTRAINT "session_mocks_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
