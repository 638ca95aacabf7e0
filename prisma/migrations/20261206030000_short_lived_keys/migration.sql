-- Short-lived child keys (POST /v1/keys). A child key belongs to the project
-- and environment of the key that minted it (`parent_id`), expires
-- (`expires_at`, never after its parent's) and may be bound to one session
-- or one end user. Only keys without a parent may mint (a child never holds
-- `keys:write`), so a key has at most one ancestor: the lookup joins it and
-- refuses a child whose parent is revoked or expired, which makes revoking a
-- parent take effect on every child at once, whatever order rows are written
-- in. `revoked_at` is also stamped on the children so listings show it.
ALTER TABLE "api_keys"
    ADD COLUMN "parent_id"  TEXT,
    ADD COLUMN "expires_at" TIMESTAMPTZ(3),
    ADD COLUMN "session_id" TEXT,
    ADD COLUMN "user_id"    TEXT;

ALTER TABLE "api_keys"
    ADD CONSTRAINT "api_keys_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE INDEX "api_keys_parent_id_idx" ON "api_keys"("parent_id");
