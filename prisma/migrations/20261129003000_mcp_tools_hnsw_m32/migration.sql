-- Rebuilds the HNSW index with more links per node (m 32 instead of 16) and a
-- wider search while building (ef_construction 96 instead of 64). Catalogs
-- made of many near-identical tools (the same API offered by many providers)
-- make a sparse graph unreliable: at 100,000 tools the default graph's
-- recall@10 moved from build to build and needed hnsw.ef_search 200, while
-- this one reaches the same recall at 120, so each query visits fewer nodes.
-- Must stay identical to VECTOR_INDEX_DEFINITION in
-- packages/catalog/src/repository.ts (a test checks).

-- DropIndex
DROP INDEX IF EXISTS "mcp_tools_embedding_hnsw_idx";

-- CreateIndex
CREATE INDEX "mcp_tools_embedding_hnsw_idx" ON "mcp_tools" USING hnsw ("embedding" vector_cosine_ops) WITH (m = 32, ef_construction = 96);
