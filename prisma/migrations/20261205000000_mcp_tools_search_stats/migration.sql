-- The corpus statistics of discover's BM25 channel, kept at write time: the
-- number of documents and their total length (for the mean document length),
-- and each lexeme's document frequency. Discover reads one row and one row
-- per query term here instead of scanning mcp_tools and probing its GIN index
-- for every term on every call.
--
-- Statement triggers keep them. Each reads the statement's transition tables
-- and applies the net change of the whole statement at once, so a bulk import
-- of thousands of rows costs one pass, not one upsert per row. The counts
-- change inside the writer's own transaction: a rollback takes them back, and
-- they are exact under MVCC as long as every writer takes the same locks in
-- the same order (see mcp_tools_search_stats_apply).

-- One row (id 1); no row at all reads as an empty catalog.
CREATE TABLE "mcp_tools_search_stats" (
    "id"           SMALLINT NOT NULL DEFAULT 1,
    "documents"    BIGINT NOT NULL,
    "total_length" BIGINT NOT NULL,

    CONSTRAINT "mcp_tools_search_stats_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "mcp_tools_search_stats_one_row" CHECK ("id" = 1),
    CONSTRAINT "mcp_tools_search_stats_counts" CHECK ("documents" >= 0 AND "total_length" >= 0)
);

-- Lexemes held by at least one document; a lexeme whose last document goes is deleted.
CREATE TABLE "mcp_tools_search_terms" (
    "lexeme" TEXT NOT NULL,
    "df"     INTEGER NOT NULL,

    CONSTRAINT "mcp_tools_search_terms_pkey" PRIMARY KEY ("lexeme"),
    CONSTRAINT "mcp_tools_search_terms_df" CHECK ("df" >= 0)
);

-- Applies one statement's net change. The stats row is upserted first, even
-- when only lexemes change: its row lock, held to the end of the transaction,
-- makes writers that change documents take turns, so two of them can never
-- hold lexeme rows the other waits for (a deadlock), however many statements
-- each runs. Writers that leave documents alone (embedding updates) do not
-- take it. Lexemes are then written in one order for the same reason.
CREATE FUNCTION mcp_tools_search_stats_apply(documents_delta bigint, length_delta bigint, lexemes text[], deltas integer[]) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  IF documents_delta = 0 AND length_delta = 0 AND coalesce(cardinality(lexemes), 0) = 0 THEN
    RETURN;
  END IF;
  -- An upsert would check its proposed row, negative on deletes, against the
  -- table's constraint before finding the conflict; so update, and insert
  -- only the first time (then a concurrent first insert is waited for).
  UPDATE mcp_tools_search_stats SET documents = documents + documents_delta, total_length = total_length + length_delta WHERE id = 1;
  IF NOT FOUND THEN
    INSERT INTO mcp_tools_search_stats AS s (id, documents, total_length)
    VALUES (1, documents_delta, length_delta)
    ON CONFLICT (id) DO UPDATE SET documents = s.documents + excluded.documents, total_length = s.total_length + excluded.total_length;
  END IF;
  IF coalesce(cardinality(lexemes), 0) = 0 THEN
    RETURN;
  END IF;
  INSERT INTO mcp_tools_search_terms AS t (lexeme, df)
  SELECT u.lexeme, u.delta FROM unnest(lexemes, deltas) u(lexeme, delta) WHERE u.delta > 0 ORDER BY u.lexeme
  ON CONFLICT (lexeme) DO UPDATE SET df = t.df + excluded.df;
  UPDATE mcp_tools_search_terms t SET df = t.df + u.delta
    FROM unnest(lexemes, deltas) u(lexeme, delta)
   WHERE u.delta < 0 AND t.lexeme = u.lexeme;
  DELETE FROM mcp_tools_search_terms t
   USING unnest(lexemes, deltas) u(lexeme, delta)
   WHERE u.delta < 0 AND t.lexeme = u.lexeme AND t.df = 0;
END $$;

CREATE FUNCTION mcp_tools_search_stats_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d bigint;
  l bigint;
  lx text[];
  dx integer[];
BEGIN
  SELECT count(*), coalesce(sum(search_length), 0) INTO d, l FROM new_rows;
  SELECT array_agg(lexeme ORDER BY lexeme), array_agg(n ORDER BY lexeme) INTO lx, dx
    FROM (SELECT w AS lexeme, count(*)::integer AS n FROM new_rows r, unnest(tsvector_to_array(r.search_document)) w GROUP BY w) x;
  PERFORM mcp_tools_search_stats_apply(d, l, lx, dx);
  RETURN NULL;
END $$;

CREATE FUNCTION mcp_tools_search_stats_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d bigint;
  l bigint;
  lx text[];
  dx integer[];
BEGIN
  SELECT count(*), coalesce(sum(search_length), 0) INTO d, l FROM old_rows;
  SELECT array_agg(lexeme ORDER BY lexeme), array_agg(n ORDER BY lexeme) INTO lx, dx
    FROM (SELECT w AS lexeme, -count(*)::integer AS n FROM old_rows r, unnest(tsvector_to_array(r.search_document)) w GROUP BY w) x;
  PERFORM mcp_tools_search_stats_apply(-d, -l, lx, dx);
  RETURN NULL;
END $$;

-- Only rows whose document or length changed count: most updates of
-- mcp_tools (vectors, hashes, schemas) leave both alone and cost a join of
-- the transition tables. Rows are paired by id; a row whose id changed counts
-- as one deleted and one inserted.
CREATE FUNCTION mcp_tools_search_stats_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d bigint;
  l bigint;
  lx text[];
  dx integer[];
BEGIN
  WITH changed AS MATERIALIZED (
    SELECT o.id IS NOT NULL AS had, n.id IS NOT NULL AS has, o.search_document AS od, n.search_document AS nd,
           coalesce(o.search_length, 0) AS ol, coalesce(n.search_length, 0) AS nl
      FROM old_rows o FULL JOIN new_rows n ON n.id = o.id
     WHERE o.id IS NULL OR n.id IS NULL
        OR o.search_document IS DISTINCT FROM n.search_document OR o.search_length IS DISTINCT FROM n.search_length
  ),
  terms AS (
    SELECT w AS lexeme, sum(s)::integer AS n
      FROM (SELECT unnest(tsvector_to_array(nd)) AS w, 1 AS s FROM changed
            UNION ALL
            SELECT unnest(tsvector_to_array(od)), -1 FROM changed) x
     GROUP BY w HAVING sum(s) <> 0
  )
  SELECT (SELECT count(*) FILTER (WHERE has) - count(*) FILTER (WHERE had) FROM changed),
         (SELECT coalesce(sum(nl - ol), 0) FROM changed),
         (SELECT array_agg(lexeme ORDER BY lexeme) FROM terms),
         (SELECT array_agg(n ORDER BY lexeme) FROM terms)
    INTO d, l, lx, dx;
  PERFORM mcp_tools_search_stats_apply(d, l, lx, dx);
  RETURN NULL;
END $$;

-- Empties both tables. TRUNCATE fires no row or transition-table triggers;
-- this one runs for a cascaded TRUNCATE of providers or projects too.
CREATE FUNCTION mcp_tools_search_stats_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM mcp_tools_search_stats;
  DELETE FROM mcp_tools_search_terms;
  RETURN NULL;
END $$;

-- A full recount, for this migration and for repairs (after loading rows
-- with triggers disabled, say). Blocks writers of mcp_tools meanwhile.
CREATE FUNCTION mcp_tools_search_stats_rebuild() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  LOCK TABLE mcp_tools IN SHARE MODE;
  DELETE FROM mcp_tools_search_stats;
  DELETE FROM mcp_tools_search_terms;
  INSERT INTO mcp_tools_search_stats (id, documents, total_length)
  SELECT 1, count(*), coalesce(sum(search_length), 0) FROM mcp_tools HAVING count(*) > 0;
  INSERT INTO mcp_tools_search_terms (lexeme, df)
  SELECT w, count(*) FROM mcp_tools t, unnest(tsvector_to_array(t.search_document)) w GROUP BY w;
END $$;

-- Transition tables need one trigger per event. They run after the row
-- triggers that build each document, so they see the final documents, and a
-- provider's rename (an UPDATE of its tools from a trigger) is counted too.
CREATE TRIGGER mcp_tools_search_stats_insert
  AFTER INSERT ON "mcp_tools" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION mcp_tools_search_stats_insert();

CREATE TRIGGER mcp_tools_search_stats_update
  AFTER UPDATE ON "mcp_tools" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION mcp_tools_search_stats_update();

CREATE TRIGGER mcp_tools_search_stats_delete
  AFTER DELETE ON "mcp_tools" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION mcp_tools_search_stats_delete();

CREATE TRIGGER mcp_tools_search_stats_truncate
  AFTER TRUNCATE ON "mcp_tools"
  FOR EACH STATEMENT EXECUTE FUNCTION mcp_tools_search_stats_truncate();

SELECT mcp_tools_search_stats_rebuild();
