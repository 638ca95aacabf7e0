/**
 * Text embedders for the provider catalog and for discover queries.
 *
 * Every vector is stored with the name of the model that made it; a query is
 * only ever compared with vectors of its own model.
 */
export const EMBEDDING_DIMENSIONS = 1536;

export interface Embedder {
  /** Stored in `mcp_tools.embedding_model`, e.g. `text-embedding-3-small` or `rota-local-…`. */
  readonly model: string;
  readonly dimensions: number;
  /** One unit-length vector per text, in order. Rejects on failure; never returns partial results. */
  embed(texts: string[]): Promise<Float32Array[]>;
}
