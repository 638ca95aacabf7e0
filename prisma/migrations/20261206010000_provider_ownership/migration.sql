-- Provider ids belong to their owner, and a connection's credentials to the
-- address they were given for.
--
-- 1. A project row that uses an id of the global catalog moves out of its
--    way, to `<project>.<id>` (the project id as a slug, a dot, the old id).
--    Its tools follow through the (server_id, server_owner) foreign key
--    (ON UPDATE CASCADE), and so do the project's connections to it: they
--    were made for that row. Call history and sessions keep the old name.
-- 2. `moves_money`: whether calls to a provider can move money, as an
--    operator declared it. Null means "not declared": a global provider then
--    goes by its category, a project's own provider counts as moving money.
-- 3. `connections.origin`: the scheme, host and port of the base URL the
--    credentials were stored for, in the connection's environment. Rota
--    injects them only into requests to that origin; a provider whose address
--    changed needs a new connection. Existing rows take the origin their
--    provider has now.

-- 1. Shadowing project rows.
CREATE TEMP TABLE provider_ownership_moves ON COMMIT DROP AS
SELECT p.id AS old_id, p.project_id,
       left(regexp_replace(lower(p.project_id), '[^a-z0-9]+', '-', 'g') || '.' || p.id, 64) AS new_id
FROM providers p
WHERE p.owner <> '' AND EXISTS (SELECT 1 FROM providers g WHERE g.id = p.id AND g.owner = '');

UPDATE connections c SET server_id = m.new_id, updated_at = now()
FROM provider_ownership_moves m
WHERE c.project_id = m.project_id AND c.server_id = m.old_id;

UPDATE providers p SET id = m.new_id, updated_at = now()
FROM provider_ownership_moves m
WHERE p.owner = m.project_id AND p.id = m.old_id;

-- 2. Money.
ALTER TABLE "providers" ADD COLUMN "moves_money" BOOLEAN;

-- 3. Origins.
ALTER TABLE "connections" ADD COLUMN "origin" TEXT;

UPDATE connections c SET origin = (
  SELECT lower(substring(p.base_urls ->> c.environment::text FROM '^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*'))
  FROM providers p WHERE p.id = c.server_id AND p.owner IN ('', c.project_id) ORDER BY p.owner DESC LIMIT 1
);
