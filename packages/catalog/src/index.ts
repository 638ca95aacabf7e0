/**
 * @rota/catalog: the provider catalog. Its file format and parsers, the
 * import, the embedders, the SQL over `providers` and `mcp_tools`, and the
 * re-embedding steps the worker runs.
 */
export * from './embedder';
export { LocalEmbedder, LOCAL_EMBEDDING_MODEL } from './local-embedder';
export { OpenAIEmbedder, OPENAI_EMBEDDING_MODEL, type OpenAIEmbedderOptions } from './openai-embedder';
export { EmbedderEnv, createEmbedder, currentEmbeddingModel, embedderKind } from './config';
export { descriptionHash, humanizeToolName, toolEmbeddingText, type ToolText } from './text';
export * from './format';
export { importCatalog, type ImportOptions, type ImportResult } from './import';
export * from './repository';
export * from './reembed';
export * from './queue';
export { seedDemoCatalog, DEMO_CATALOG_PATH } from './seed';
export { importAndRequestSweep, type ImportOutcome } from './service';
export { CatalogUrlError, fetchCatalogText, guardedFetch, isPublicAddress, type UrlPolicy, type FetchTextOptions } from './url';
export { listMcpTools, type McpListOptions } from './mcp';
export { LocalEmbedderPool } from './local-embedder-pool';
