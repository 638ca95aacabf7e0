import { z } from 'zod';

/**
 * The provider catalog over HTTP: `GET /v1/providers` (and its deprecated
 * alias `GET /v1/servers`), `GET /v1/servers/{id}/tools`,
 * `GET /v1/catalog/status` and the admin `POST /v1/catalog/import`.
 */

const Slug = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/);
/** Page size of the catalog listings. */
const Limit = z.coerce.number().int().min(1).max(200).default(50);
/** Opaque paging token from `next_cursor`. */
const Cursor = z.string().min(1).max(512);

/** Query of `GET /v1/providers`. */
export const ProvidersQuery = z
  .object({
    /** Exact category, e.g. `payments`. */
    category: z.string().min(1).max(64).optional(),
    /** ISO 3166-1 alpha-2 (any case). Global providers (`*`) match every country; `*` means no filter. */
    country: z
      .string()
      .regex(/^([A-Za-z]{2}|\*)$/)
      .transform((c) => c.toUpperCase())
      .optional(),
    /** Words to find in the id, name or description. */
    q: z.string().min(1).max(200).optional(),
    limit: Limit,
    cursor: Cursor.optional(),
  })
  .strict();
export type ProvidersQuery = z.infer<typeof ProvidersQuery>;

/** `search.catalog.providers` payload; tool counts include the request's project's own tools. */
export const ProvidersListCommand = ProvidersQuery;
export type ProvidersListCommand = z.infer<typeof ProvidersListCommand>;

/** One provider (a "server") as listed. */
export const ProviderSummary = z.object({
  id: z.string(),
  name: z.string(),
  category: z.string(),
  /** Main country, or `*` for a global provider. */
  country: z.string(),
  countries: z.array(z.string()),
  auth_type: z.string(),
  /** Tools the caller can see: the catalog's plus its own project's. */
  tools_count: z.number().int().nonnegative(),
  description: z.string(),
  status: z.string(),
  sandbox_available: z.boolean(),
});
export type ProviderSummary = z.infer<typeof ProviderSummary>;

/** 200 body of `GET /v1/providers`. */
export const ProvidersList = z.object({
  /** Every provider in the catalog. */
  total: z.number().int().nonnegative(),
  /** Providers matching the filters (across all pages). */
  filtered: z.number().int().nonnegative(),
  servers: z.array(ProviderSummary),
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: z.string().nullable(),
});
export type ProvidersList = z.infer<typeof ProvidersList>;

/** Query of `GET /v1/servers/{id}/tools`. */
export const ServerToolsQuery = z.object({ limit: Limit, cursor: Cursor.optional() }).strict();
export type ServerToolsQuery = z.infer<typeof ServerToolsQuery>;

/** `search.catalog.tools` payload; the request's project's own tools are listed too. */
export const ServerToolsCommand = ServerToolsQuery.extend({ server_id: z.string().min(1).max(128) });
export type ServerToolsCommand = z.infer<typeof ServerToolsCommand>;

/** One tool of a provider. Method, endpoint and schema are null when unknown (tools imported from MCP). */
export const CatalogToolSummary = z.object({
  name: z.string(),
  description: z.string(),
  input_schema: z.record(z.string(), z.unknown()).nullable(),
  http_method: z.string().nullable(),
  endpoint_template: z.string().nullable(),
});
export type CatalogToolSummary = z.infer<typeof CatalogToolSummary>;

/** 200 body of `GET /v1/servers/{id}/tools`. */
export const ServerToolsList = z.object({
  server_id: z.string(),
  total: z.number().int().nonnegative(),
  tools: z.array(CatalogToolSummary),
  next_cursor: z.string().nullable(),
});
export type ServerToolsList = z.infer<typeof ServerToolsList>;

export const CatalogStatusCommand = z.object({}).strict();

/** 200 body of `GET /v1/catalog/status`. */
export const CatalogStatus = z.object({
  /** The embedding model queries are compared with. */
  model: z.string(),
  dimensions: z.number().int(),
  providers: z.number().int().nonnegative(),
  tools: z.number().int().nonnegative(),
  /** Tools with a vector of `model`. */
  embedded: z.number().int().nonnegative(),
  /** Tools still waiting for a vector of `model` (new, edited, or made by another model). */
  stale: z.number().int().nonnegative(),
  /** embedded / tools, 1 when the catalog is empty. */
  coverage: z.number().min(0).max(1),
  /** `partial` while some tools lack a vector of `model`: the vector pass sees only the embedded ones; the trigram pass sees all. */
  vector_search: z.enum(['complete', 'partial']),
  /** `missing` while a bulk re-embed has dropped the HNSW index (vector queries scan exactly until the worker rebuilds it). */
  vector_index: z.enum(['ready', 'missing']),
  /** Catalog jobs waiting, delayed or running. */
  queued_jobs: z.number().int().nonnegative(),
  /** Catalog jobs that gave up (kept for inspection; their rows are picked up again by the next sweep). */
  failed_jobs: z.number().int().nonnegative(),
  /** A sentence for people, present while `vector_search` is `partial`. */
  note: z.string().optional(),
  /**
   * Ids of the worker's job schedulers (`catalog-sweep`, `sessions-expire`,
   * `calls-reconcile`, `health-evaluate`, and `fx-refresh` while an FX source
   * is set) that Redis does not hold right now: while one is
   * missing, its sweep does not run. Empty when all are present; absent when
   * no worker answered in time.
   */
  schedulers_missing: z.array(z.string()).optional(),
});
export type CatalogStatus = z.infer<typeof CatalogStatus>;

/** Who owns imported providers and tools: the global catalog, or the importing key's project. */
export const CatalogOwner = z.enum(['catalog', 'project']);
export type CatalogOwner = z.infer<typeof CatalogOwner>;

/** Query of `POST /v1/catalog/import`. */
export const CatalogImportQuery = z
  .object({
    /** For an MCP `tools/list` body or a live MCP server: the known provider the tools belong to. */
    server: Slug.optional(),
    /** Delete tools of the imported servers that the input no longer lists. */
    prune: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .optional(),
    /**
     * `catalog`: the global catalog, every project sees it; needs an operator
     * key (scope `admin`). `project`: providers and tools only the caller's
     * project sees; a project key only. Defaults to the key's own kind:
     * `catalog` for an operator key, `project` for a project key.
     */
    owner: CatalogOwner.optional(),
  })
  .strict();
export type CatalogImportQuery = z.infer<typeof CatalogImportQuery>;

/**
 * Body of `POST /v1/catalog/import`: a Rota catalog document, an MCP
 * `tools/list` result (with `?server=`), or `{"url": "https://…"}` to fetch
 * one of those, or `{"url": "https://…", "mcp": true}` to list the tools of a
 * live MCP server (Streamable HTTP).
 */
export const CatalogImportBody = z.record(z.string(), z.unknown());
export type CatalogImportBody = z.infer<typeof CatalogImportBody>;

export const CatalogImportSource = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('document'), document: z.unknown() }),
  /** The body as the gateway received it: the service parses it, so the gateway never builds a large document. */
  z.object({ kind: z.literal('text'), text: z.string() }),
  z.object({ kind: z.literal('url'), url: z.string().url() }),
  z.object({ kind: z.literal('mcp'), url: z.string().url() }),
]);

export const CatalogImportCommand = z
  .object({
    source: CatalogImportSource,
    server: Slug.optional(),
    prune: z.boolean().default(false),
    /** Who owns the imported tools: the global catalog, or the request's project. */
    owner: CatalogOwner,
  })
  .strict();
export type CatalogImportCommand = z.infer<typeof CatalogImportCommand>;

/** 200 body of `POST /v1/catalog/import`. */
export const CatalogImportResult = z.object({
  providers: z.object({ created: z.number().int(), updated: z.number().int(), unchanged: z.number().int() }),
  tools: z.object({
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    removed: z.number().int(),
  }),
  /** Rows that now wait for a vector. */
  reembed: z.number().int(),
  /** Whether a re-embedding sweep was queued (only when `reembed` > 0). */
  sweep_requested: z.boolean(),
  /**
   * Project providers that used an id this global import wrote: each was
   * renamed to `renamed_to` and disabled, since an id belongs to one owner.
   * Absent when there were none (always, for a project's own import).
   */
  disabled: z.array(z.object({ project_id: z.string(), id: z.string(), renamed_to: z.string() })).optional(),
});
export type CatalogImportResult = z.infer<typeof CatalogImportResult>;
