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
export { EmbedderEnv, createEmbedder, currentEmbeddingModel, embedderKind, localModelKind } from './config';
export { NeuralEmbedder, NEURAL_EMBEDDING_MODEL, NEURAL_DIMENSIONS } from './neural-embedder';
export { HybridEmbedder, HYBRID_EMBEDDING_MODEL, NEURAL_SHARE } from './hybrid-embedder';
export { descriptionHash, humanizeToolName, toolEmbeddingText, type ToolText } from './text';
export * from './format';
export { importCatalog, type DisplacedProvider, type ImportOptions, type ImportResult } from './import';
export * from './reembed';
export * from './queue';
export {
  seedDemoCatalog,
  DEMO_CATALOG_PATH,
  DEFAULT_SANDBOX_URL,
  sandboxUrlFromEnv,
  substituteSandboxUrl,
} from './seed';
export { importAndRequestSweep, type ImportOutcome } from './service';
export {
  CATALOG_FETCH_MAX_BYTES,
  CATALOG_FETCH_TIMEOUT_MS,
  CatalogUrlError,
  fetchCatalogText,
  guardedFetch,
  isPublicAddress,
  privateAddressAllowed,
  type UrlPolicy,
  type FetchTextOptions,
  type GuardedFetchOptions,
} from './url';
export { listMcpTools, type McpListOptions } from './mcp';
export {
  LocalEmbedderPool,
  LOCAL_MODELS,
  localModel,
  type LocalEmbedderPoolOptions,
  type LocalModelKind,
} from './local-embedder-pool';
