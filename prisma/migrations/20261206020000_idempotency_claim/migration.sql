-- Each claim of an idempotency key carries a token of its own. The statements
-- that write the call's pending row, store an answer or give the key back do
-- so only while the key still holds their token, so a request that stalled
-- after claiming and lost the key to a retry (its deadline passed) writes and
-- sends nothing. Keys claimed before this migration have no token: they are
-- finished by the reconcile sweep or expire.
ALTER TABLE "idempotency_keys" ADD COLUMN "claim" TEXT;
