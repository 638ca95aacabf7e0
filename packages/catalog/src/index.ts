/**
 * @rota/catalog: the provider catalog. Its file format and parsers, the
 * import, the embedders, and the re-embedding steps the worker runs.
 *
 * The SQL over `providers` and `mcp_tools` is not exported here but from
 * `@rota/catalog/repository`, so the lint rule that keeps database access in
 * repositories can see who reaches for it.
 */
export * from './embedder';
export { LocalEmbedder, LOCAL_EMBEDDING_MODEL } from './local-embedder';
export { OpenAIEmbedder, OPENAI_EMBEDDING_MODEL, type OpenAIEmbedderOptions } from './openai-embedder';
export { EmbedderEnv, createEmbedder, currentEmbeddingModel, embedderKind } from './config';
export { descriptionHash, humanizeToolName, toolEmbeddingText, type ToolText } from './text';
export * from './format';
export { importCatalog, type ImportOptions, type ImportResult } from './import';
export * from './reembed';
export * from './queue';
export { seedDemoCatalog, DEMO_CATALOG_PATH } from './seed';
export { importAndRequestSweep, type ImportOutcome } from './service';
export { CatalogUrlError, fetchCatalogText, guardedFetch, isPublicAddress, type UrlPolicy, type FetchTextOptions } from './url';
export { listMcpTools, type McpListOptions } from './mcp';
export { LocalEmbedderPool } from './local-embedder-pool';
