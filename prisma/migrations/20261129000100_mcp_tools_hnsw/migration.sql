-- Approximate nearest-neighbour index for semantic tool search (cosine
-- distance, the `<=>` operator). Kept in its own hand-written migration: the
-- schema language cannot declare it, and `prisma migrate dev` would otherwise
-- propose dropping it (prisma/orm#27770). Rows with a NULL embedding are not
-- indexed, which is what we want for tools still waiting to be embedded.

-- CreateIndex
CREATE INDEX "mcp_tools_embedding_hnsw_idx" ON "mcp_tools" USING hnsw ("embedding" vector_cosine_ops);
