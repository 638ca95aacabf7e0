-- The lexical channel of codespar_discover: an ordered (GIN) index over each
-- tool's own words and its provider's, ranked with BM25 in the discover
-- statement. Documents are analysed by Postgres itself, so every writer of
-- mcp_tools (imports, project registrations, seeds, benchmarks) keeps the
-- index current without knowing about it.

CREATE EXTENSION IF NOT EXISTS unaccent;

-- English Snowball stems of accent-folded words: catalog descriptions are
-- written in English, and discover brings Portuguese and Spanish requests
-- into English (through @rota/lexicon) before they reach this index.
CREATE TEXT SEARCH CONFIGURATION rota_search (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION rota_search
  ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
  WITH unaccent, english_stem;

-- `createPixCharge`, `create_pix_charge` and `v1/payments.refund` read as words.
CREATE FUNCTION rota_search_words(s text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(regexp_replace(coalesce(s, ''), '([a-z0-9])([A-Z])', '\1 \2', 'g'), '[_./:]+', ' ', 'g');

-- One document per tool, each field under its own weight label so the ranking
-- can weigh them (BM25F): A tool name, B description, C provider name,
-- D provider description.
CREATE FUNCTION rota_tool_document(tool_name text, description text, provider_name text, provider_description text) RETURNS tsvector
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN setweight(to_tsvector('rota_search', rota_search_words(tool_name)), 'A')
      || setweight(to_tsvector('rota_search', rota_search_words(description)), 'B')
      || setweight(to_tsvector('rota_search', rota_search_words(provider_name)), 'C')
      || setweight(to_tsvector('rota_search', rota_search_words(provider_description)), 'D');

ALTER TABLE "mcp_tools" ADD COLUMN "search_document" tsvector;
-- Word count of the document (positions, not distinct words): BM25's document length.
ALTER TABLE "mcp_tools" ADD COLUMN "search_length" integer NOT NULL DEFAULT 0;

CREATE FUNCTION mcp_tools_search_document() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  p record;
BEGIN
  SELECT name, description INTO p FROM providers WHERE id = NEW.server_id AND owner = NEW.server_owner;
  NEW.search_document := rota_tool_document(NEW.tool_name, NEW.description, p.name, p.description);
  NEW.search_length := (SELECT coalesce(sum(array_length(positions, 1)), 0) FROM unnest(NEW.search_document));
  RETURN NEW;
END $$;

CREATE TRIGGER mcp_tools_search_document
  BEFORE INSERT OR UPDATE OF tool_name, description, server_id, server_owner ON "mcp_tools"
  FOR EACH ROW EXECUTE FUNCTION mcp_tools_search_document();

-- A provider renamed or re-described re-analyses its tools.
CREATE FUNCTION providers_search_document() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE mcp_tools t
     SET search_document = rota_tool_document(t.tool_name, t.description, NEW.name, NEW.description)
   WHERE t.server_id = NEW.id AND t.server_owner = NEW.owner;
  UPDATE mcp_tools t
     SET search_length = (SELECT coalesce(sum(array_length(positions, 1)), 0) FROM unnest(t.search_document))
   WHERE t.server_id = NEW.id AND t.server_owner = NEW.owner;
  RETURN NULL;
END $$;

CREATE TRIGGER providers_search_document
  AFTER UPDATE OF name, description ON "providers"
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description)
  EXECUTE FUNCTION providers_search_document();

UPDATE "mcp_tools" t
   SET search_document = rota_tool_document(t.tool_name, t.description, p.name, p.description)
  FROM providers p
 WHERE p.id = t.server_id AND p.owner = t.server_owner;
UPDATE "mcp_tools" SET search_length = (SELECT coalesce(sum(array_length(positions, 1)), 0) FROM unnest(search_document));

CREATE INDEX "mcp_tools_search_document_idx" ON "mcp_tools" USING gin ("search_document");
