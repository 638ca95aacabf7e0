import type { ProviderHttp, ToolParameterMap } from '@rota/contracts';
import { namedStatement, Prisma, type PrismaClient } from '@rota/db';
import type { CatalogProvider, CatalogTool } from './format';

/** A project's provider that a global import displaced: renamed out of the way and disabled. */
export interface DisplacedProvider {
  project_id: string;
  id: string;
  renamed_to: string;
}

/**
 * The id a project's provider `p` moves to when the global catalog takes its
 * id: the project id as a slug, a dot, the old id (cut to 64 characters).
 * The migration `20261206010000_provider_ownership` uses the same expression.
 */
const DISPLACED_ID_SQL = Prisma.sql`regexp_replace(lower(p.project_id), '[^a-z0-9]+', '-', 'g') || '.' || p.id`;

/** A Prisma client or the client of an open transaction. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** An `mcp_tools` row as the import compares it. */
export interface StoredTool {
  id: string;
  serverId: string;
  toolName: string;
  description: string;
  inputSchema: unknown;
  httpMethod: string | null;
  endpointTemplate: string | null;
  parameters: ToolParameterMap | null;
  descriptionHash: string;
  embeddingModel: string | null;
}

export interface NewToolRow extends CatalogTool {
  serverId: string;
  projectId: string | null;
  /** Owner of the provider the tool hangs off: '' (global) or `projectId`. */
  serverOwner: string;
  descriptionHash: string;
  /** pgvector literal, when the import embeds as it goes. */
  vector?: string;
}

export interface ToolUpdateRow {
  id: string;
  description: string;
  inputSchema: Record<string, unknown> | null;
  httpMethod: string | null;
  endpointTemplate: string | null;
  parameters: ToolParameterMap | null;
  descriptionHash: string;
  /** The embedded text changed: drop the vector so the row is re-embedded. */
  clearEmbedding: boolean;
  /** The new vector, when the import embeds as it goes. */
  vector?: string;
}

/** A row the re-embed processor holds locked while it embeds. */
export interface LockedTool {
  id: string;
  toolName: string;
  description: string;
  providerName: string;
  descriptionHash: string;
  embeddingModel: string | null;
}

export interface ProviderRow {
  id: string;
  name: string;
  category: string;
  country: string;
  countries: string[];
  auth_type: string;
  tools_count: number;
  description: string;
  status: string;
  sandbox_available: boolean;
}

export interface ToolRow {
  /** Row id, used only for the paging cursor. */
  id: string;
  name: string;
  description: string;
  input_schema: Record<string, unknown> | null;
  http_method: string | null;
  endpoint_template: string | null;
}

/** What calling one provider (and one of its tools) needs from the catalog. */
/** A row of {@link PROVIDER_FOR_CALL}. */
export interface ProviderForCallRow {
  id: string;
  owner: string;
  status: string;
  auth_type: string;
  base_urls: { live?: string | null; test?: string | null } | null;
  http: ProviderHttp | null;
  tool: ProviderForCall['tool'];
}

/**
 * The provider a project means by an id ($1; its own under $2, else the
 * global one) and, when $3 names one, that tool as the project sees it (its
 * own before a catalog one of the same name): one round trip. A named
 * statement, so the session service runs it prepared on its plain pool on
 * every provider call, and `CatalogRepository` runs the same text.
 */
export const PROVIDER_FOR_CALL = namedStatement(`
  SELECT p.id, p.owner, p.status, p.auth_type, p.base_urls, p.http, tl.tool FROM (
    SELECT id, owner, status, auth_type, base_urls, http FROM providers
    WHERE id = $1 AND owner IN ('', $2)
    ORDER BY owner = $2 DESC LIMIT 1
  ) p
  LEFT JOIN LATERAL (
    SELECT jsonb_build_object('name', t.tool_name, 'httpMethod', t.http_method, 'endpointTemplate', t.endpoint_template,
                              'parameters', t.parameters, 'inputSchema', t.input_schema) AS tool
    FROM mcp_tools t
    WHERE $3::text IS NOT NULL AND t.server_id = p.id AND t.server_owner = p.owner AND t.tool_name = $3
      AND (t.project_id = $2 OR (t.project_id IS NULL AND NOT EXISTS (SELECT 1 FROM providers o WHERE o.id = t.server_id AND o.owner = $2)))
    ORDER BY t.project_id NULLS LAST LIMIT 1
  ) tl ON true`);

export function toProviderForCall(p: ProviderForCallRow): ProviderForCall {
  return {
    id: p.id,
    owner: p.owner,
    status: p.status,
    authType: p.auth_type,
    baseUrls: { live: p.base_urls?.live ?? null, test: p.base_urls?.test ?? null },
    http: p.http ?? null,
    tool: p.tool ?? null,
  };
}

export interface ProviderForCall {
  id: string;
  /** '' for a global provider, else the project that owns it. */
  owner: string;
  /** `disabled`: a project's provider a global import displaced; it is not called. */
  status: string;
  authType: string;
  baseUrls: { live: string | null; test: string | null };
  /** Null: the catalog (format v1) does not say how to call it, so calls are refused. */
  http: ProviderHttp | null;
  /** The tool asked for, when one was named and the caller sees it; else null. */
  tool: {
    name: string;
    httpMethod: string | null;
    endpointTemplate: string | null;
    /** Null: the catalog does not say where this tool's inputs go. */
    parameters: ToolParameterMap | null;
    inputSchema: Record<string, unknown> | null;
  } | null;
}

export interface CatalogCounts {
  providers: number;
  tools: number;
  embedded: number;
}

/** The HNSW index of the catalog's vector pass. */
export const VECTOR_INDEX = 'mcp_tools_embedding_hnsw_idx';
/**
 * How the index is built: the latest migration touching it
 * (prisma/migrations/20261130020000_mcp_tools_hnsw_m16_efc200) and every
 * rebuild after a bulk load use this same definition.
 */
export const VECTOR_INDEX_DEFINITION = `ON mcp_tools USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 200)`;

/**
 * Tools a caller may see: its own project's, and the global ones of every
 * provider it does not shadow with one of its own. Null: the global catalog
 * alone. The shadow test is one probe of the providers' primary key.
 */
export function visibleTo(projectId: string | null, alias = 't'): Prisma.Sql {
  const a = Prisma.raw(alias);
  if (projectId === null) return Prisma.sql`${a}.project_id IS NULL`;
  return Prisma.sql`(${a}.project_id = ${projectId} OR (${a}.project_id IS NULL AND NOT EXISTS (SELECT 1 FROM providers o WHERE o.id = ${a}.server_id AND o.owner = ${projectId})))`;
}

/**
 * Providers a caller may see: its own project's, and the global ones it does
 * not shadow. Another project's providers never, so no answer can reveal
 * their ids. Null: the global catalog alone.
 */
export function providerVisibleTo(projectId: string | null, alias = 'p'): Prisma.Sql {
  const a = Prisma.raw(alias);
  if (projectId === null) return Prisma.sql`${a}.owner = ''`;
  return Prisma.sql`(${a}.owner = ${projectId} OR (${a}.owner = '' AND NOT EXISTS (SELECT 1 FROM providers o WHERE o.id = ${a}.id AND o.owner = ${projectId})))`;
}

/** SQL for a vector written by `toVectorParam`: sparse or dense text. */
const vectorFromParam = (col: string): Prisma.Sql =>
  Prisma.raw(`(CASE WHEN left(${col}, 1) = '{' THEN ${col}::sparsevec::vector ELSE ${col}::vector END)`);

const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

/**
 * All SQL of the provider catalog. pgvector columns are read and written only
 * here, through `::vector` casts; bulk writes go through `unnest` of arrays,
 * one statement per chunk, so an import of thousands of tools is a handful of
 * round trips.
 */
export class CatalogRepository {
  constructor(private readonly db: Db) {}

  /** Runs `fn` in one transaction; the import and the embedding writes use it. */
  static async transaction<T>(
    prisma: PrismaClient,
    fn: (repo: CatalogRepository) => Promise<T>,
    opts: { timeoutMs?: number } = {},
  ): Promise<T> {
    return prisma.$transaction((tx) => fn(new CatalogRepository(tx)), {
      maxWait: 10_000,
      timeout: opts.timeoutMs ?? 600_000,
    });
  }

  /** The providers among `ids` of one owner: a project id, or '' for the global catalog. */
  async existingProviders(ids: string[], owner: string): Promise<CatalogProvider[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.$queryRaw<
      Array<{
        id: string;
        name: string;
        description: string;
        category: string;
        country: string;
        countries: string[];
        auth_type: string;
        self_serve_auth: boolean;
        base_urls: { live?: string | null; test?: string | null };
        status: string;
        sandbox_available: boolean;
        moves_money: boolean | null;
        http: ProviderHttp | null;
      }>
    >(Prisma.sql`
      SELECT id, name, description, category, country, countries, auth_type, self_serve_auth, base_urls, status, sandbox_available, moves_money, http
      FROM providers WHERE id = ANY(${ids}::text[]) AND owner = ${owner}`);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      description: r.description,
      category: r.category,
      country: r.country,
      countries: r.countries ?? [],
      authType: r.auth_type as CatalogProvider['authType'],
      selfServeAuth: r.self_serve_auth,
      baseUrls: { live: r.base_urls?.live ?? null, test: r.base_urls?.test ?? null },
      status: r.status,
      sandboxAvailable: r.sandbox_available,
      movesMoney: r.moves_money,
      http: r.http ?? null,
    }));
  }

  /**
   * Moves project providers that use any of these ids out of the way of the
   * global catalog, which is about to write them: each becomes
   * `<project>.<id>` (its tools follow through the foreign key, the
   * project's connections to it are moved here) and is disabled until its
   * project imports it again. Returns what moved.
   */
  async displaceProjectProviders(ids: string[]): Promise<DisplacedProvider[]> {
    if (ids.length === 0) return [];
    return this.db.$queryRaw<DisplacedProvider[]>(Prisma.sql`
      WITH moves AS (
        SELECT p.id AS old_id, p.project_id, left(${DISPLACED_ID_SQL}, 64) AS new_id
        FROM providers p WHERE p.id = ANY(${ids}::text[]) AND p.owner <> '' FOR UPDATE
      ), conns AS (
        UPDATE connections c SET server_id = m.new_id, updated_at = now()
        FROM moves m WHERE c.project_id = m.project_id AND c.server_id = m.old_id
        RETURNING c.id
      )
      UPDATE providers p SET id = m.new_id, status = 'disabled', updated_at = now()
      FROM moves m WHERE p.owner = m.project_id AND p.id = m.old_id
      RETURNING m.project_id, m.old_id AS id, m.new_id AS renamed_to`);
  }

  /** Inserts or rewrites providers of one owner (null: the global catalog), a chunk per statement. */
  async upsertProviders(list: CatalogProvider[], projectId: string | null): Promise<void> {
    for (let i = 0; i < list.length; i += 1000) {
      const c = list.slice(i, i + 1000);
      await this.db.$executeRaw(Prisma.sql`
        INSERT INTO providers (id, project_id, name, description, category, country, countries, auth_type, self_serve_auth, base_urls, status, sandbox_available, moves_money, http, updated_at)
        SELECT v.id, ${projectId}::text, v.name, v.description, v.category, v.country, ARRAY(SELECT jsonb_array_elements_text(v.countries::jsonb)), v.auth_type, v.self_serve,
               v.base_urls::jsonb, v.status, v.sandbox, v.moves_money, v.http::jsonb, now()
        FROM unnest(${c.map((p) => p.id)}::text[], ${c.map((p) => p.name)}::text[], ${c.map((p) => p.description)}::text[], ${c.map((p) => p.category)}::text[],
                    ${c.map((p) => p.country)}::text[], ${c.map((p) => JSON.stringify(p.countries))}::text[], ${c.map((p) => p.authType)}::text[],
                    ${c.map((p) => p.selfServeAuth)}::boolean[], ${c.map((p) => JSON.stringify(p.baseUrls))}::text[], ${c.map((p) => p.status)}::text[],
                    ${c.map((p) => p.sandboxAvailable)}::boolean[], ${c.map((p) => p.movesMoney)}::boolean[], ${c.map((p) => json(p.http))}::text[])
             AS v(id, name, description, category, country, countries, auth_type, self_serve, base_urls, status, sandbox, moves_money, http)
        ON CONFLICT (id, owner) DO UPDATE SET
          name = EXCLUDED.name, description = EXCLUDED.description, category = EXCLUDED.category, country = EXCLUDED.country,
          countries = EXCLUDED.countries, auth_type = EXCLUDED.auth_type, self_serve_auth = EXCLUDED.self_serve_auth,
          base_urls = EXCLUDED.base_urls, status = EXCLUDED.status, sandbox_available = EXCLUDED.sandbox_available,
          moves_money = EXCLUDED.moves_money, http = EXCLUDED.http, updated_at = now()`);
    }
  }

  /**
   * Moves a project's tools of these servers from the global providers onto
   * the project's own providers of the same ids, which it has just created:
   * from now on the project sees its own provider, with its own tools.
   */
  async adoptProjectTools(serverIds: string[], projectId: string): Promise<void> {
    if (serverIds.length === 0) return;
    await this.db.$executeRaw(Prisma.sql`
      UPDATE mcp_tools SET server_owner = ${projectId}, updated_at = now()
      WHERE server_id = ANY(${serverIds}::text[]) AND project_id = ${projectId} AND server_owner = ''`);
  }

  /** Tools of these servers owned by `projectId` (null: the global catalog). */
  async toolsOf(serverIds: string[], projectId: string | null): Promise<StoredTool[]> {
    if (serverIds.length === 0) return [];
    return this.db.$queryRaw<StoredTool[]>(Prisma.sql`
      SELECT id::text AS "id", server_id AS "serverId", tool_name AS "toolName", description, input_schema AS "inputSchema",
             http_method AS "httpMethod", endpoint_template AS "endpointTemplate", parameters, description_hash AS "descriptionHash",
             embedding_model AS "embeddingModel"
      FROM mcp_tools
      WHERE server_id = ANY(${serverIds}::text[]) AND project_id IS NOT DISTINCT FROM ${projectId}::text`);
  }

  /** Every tool of one provider (id and owner), whoever owns the tool (a provider rename changes all their texts). */
  async allToolsOfServer(serverId: string, owner: string): Promise<StoredTool[]> {
    return this.db.$queryRaw<StoredTool[]>(Prisma.sql`
      SELECT id::text AS "id", server_id AS "serverId", tool_name AS "toolName", description, input_schema AS "inputSchema",
             http_method AS "httpMethod", endpoint_template AS "endpointTemplate", parameters, description_hash AS "descriptionHash",
             embedding_model AS "embeddingModel"
      FROM mcp_tools WHERE server_id = ${serverId} AND server_owner = ${owner}`);
  }

  /**
   * Inserts tools. Rows that carry a vector (an import that embeds as it
   * goes) are written complete, so they never need an UPDATE later.
   */
  async insertTools(rows: NewToolRow[], model?: string): Promise<number> {
    let n = 0;
    for (let i = 0; i < rows.length; i += 1000) {
      const c = rows.slice(i, i + 1000);
      n += await this.db.$executeRaw(Prisma.sql`
        INSERT INTO mcp_tools (server_id, server_owner, tool_name, description, input_schema, http_method, endpoint_template, parameters, project_id, description_hash,
                               embedding, embedding_model, embedded_at)
        SELECT s, so, n, d, sc::jsonb, m, e, pm::jsonb, p, h, ${vectorFromParam('vec')}, CASE WHEN vec IS NULL THEN NULL ELSE ${model ?? null}::text END,
               CASE WHEN vec IS NULL THEN NULL ELSE now() END
        FROM unnest(${c.map((r) => r.serverId)}::text[], ${c.map((r) => r.serverOwner)}::text[], ${c.map((r) => r.name)}::text[], ${c.map((r) => r.description)}::text[],
                    ${c.map((r) => json(r.inputSchema))}::text[], ${c.map((r) => r.httpMethod)}::text[], ${c.map((r) => r.endpointTemplate)}::text[],
                    ${c.map((r) => json(r.parameters))}::text[], ${c.map((r) => r.projectId)}::text[], ${c.map((r) => r.descriptionHash)}::text[],
                    ${c.map((r) => r.vector ?? null)}::text[])
             AS v(s, so, n, d, sc, m, e, pm, p, h, vec)`);
    }
    return n;
  }

  async updateTools(rows: ToolUpdateRow[], model?: string): Promise<number> {
    let n = 0;
    for (let i = 0; i < rows.length; i += 1000) {
      const c = rows.slice(i, i + 1000);
      n += await this.db.$executeRaw(Prisma.sql`
        UPDATE mcp_tools AS t SET
          description = v.d, input_schema = v.sc::jsonb, http_method = v.m, endpoint_template = v.e, parameters = v.pm::jsonb, description_hash = v.h,
          embedding = CASE WHEN v.vec IS NOT NULL THEN ${vectorFromParam('v.vec')} WHEN v.clr THEN NULL ELSE t.embedding END,
          embedding_model = CASE WHEN v.vec IS NOT NULL THEN ${model ?? null}::text WHEN v.clr THEN NULL ELSE t.embedding_model END,
          embedded_at = CASE WHEN v.vec IS NOT NULL THEN now() WHEN v.clr THEN NULL ELSE t.embedded_at END,
          updated_at = now()
        FROM unnest(${c.map((r) => r.id)}::uuid[], ${c.map((r) => r.description)}::text[], ${c.map((r) => json(r.inputSchema))}::text[],
                    ${c.map((r) => r.httpMethod)}::text[], ${c.map((r) => r.endpointTemplate)}::text[], ${c.map((r) => r.descriptionHash)}::text[],
                    ${c.map((r) => r.clearEmbedding)}::boolean[], ${c.map((r) => r.vector ?? null)}::text[], ${c.map((r) => json(r.parameters))}::text[])
             AS v(id, d, sc, m, e, h, clr, vec, pm)
        WHERE t.id = v.id`);
    }
    return n;
  }

  async deleteTools(ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.db.$executeRaw(Prisma.sql`DELETE FROM mcp_tools WHERE id = ANY(${ids}::uuid[])`);
  }

  async projectExists(projectId: string): Promise<boolean> {
    const rows = await this.db.$queryRaw<unknown[]>(Prisma.sql`SELECT 1 FROM projects WHERE id = ${projectId}`);
    return rows.length > 0;
  }

  // ------------------------------------------------------------ embedding

  /**
   * Ids of rows without a vector of `model`, in id order, after `afterId`.
   * The sweep pages through them and enqueues them in batches.
   */
  async staleIds(model: string, limit: number, afterId?: string): Promise<Array<{ id: string; hash: string }>> {
    return this.db.$queryRaw<Array<{ id: string; hash: string }>>(Prisma.sql`
      SELECT id::text AS id, description_hash AS hash FROM mcp_tools
      WHERE (embedding IS NULL OR embedding_model IS DISTINCT FROM ${model})
        ${afterId ? Prisma.sql`AND id > ${afterId}::uuid` : Prisma.empty}
      ORDER BY id LIMIT ${limit}`);
  }

  /**
   * Locks the rows of a batch that still need a vector of `model`. Rows another
   * transaction holds (a concurrent job, an import) are skipped, not waited
   * for: whoever holds them is about to write them.
   */
  async lockStale(ids: string[], model: string): Promise<LockedTool[]> {
    if (ids.length === 0) return [];
    return this.db.$queryRaw<LockedTool[]>(Prisma.sql`
      SELECT t.id::text AS id, t.tool_name AS "toolName", t.description, p.name AS "providerName",
             t.description_hash AS "descriptionHash", t.embedding_model AS "embeddingModel"
      FROM mcp_tools t JOIN providers p ON p.id = t.server_id AND p.owner = t.server_owner
      WHERE t.id = ANY(${ids}::uuid[]) AND (t.embedding IS NULL OR t.embedding_model IS DISTINCT FROM ${model})
      ORDER BY t.id
      FOR UPDATE OF t SKIP LOCKED`);
  }

  /**
   * Writes vectors with a compare-and-set on the hash each job read: a row
   * whose text changed since is left alone and stays stale for the next sweep.
   */
  async writeEmbeddings(
    model: string,
    rows: Array<{ id: string; seenHash: string; newHash: string; vector: string }>,
  ): Promise<number> {
    if (rows.length === 0) return 0;
    return this.db.$executeRaw(Prisma.sql`
      UPDATE mcp_tools AS t SET embedding = ${vectorFromParam('v.vec')}, embedding_model = ${model}, embedded_at = now(), description_hash = v.nh
      FROM unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.seenHash)}::text[], ${rows.map((r) => r.newHash)}::text[],
                  ${rows.map((r) => r.vector)}::text[]) AS v(id, sh, nh, vec)
      WHERE t.id = v.id AND t.description_hash = v.sh`);
  }

  // ------------------------------------------------------------ vector index

  async vectorIndexExists(): Promise<boolean> {
    const rows = await this.db.$queryRaw<unknown[]>(
      Prisma.sql`SELECT 1 FROM pg_indexes WHERE indexname = ${VECTOR_INDEX}`,
    );
    return rows.length > 0;
  }

  /**
   * Drops the HNSW index, for a bulk load: building it once afterwards is far
   * cheaper than inserting rows into it one by one. Until it is back, the
   * vector pass scans exactly (slower, same answers).
   */
  async dropVectorIndex(): Promise<void> {
    await this.db.$executeRawUnsafe(`DROP INDEX IF EXISTS ${VECTOR_INDEX}`);
  }

  /**
   * (Re)creates the HNSW cosine index with enough memory to build it in RAM
   * and parallel workers. Inside a transaction, the settings stay local to it.
   */
  async createVectorIndex(opts: { maintenanceWorkMem?: string; parallelWorkers?: number } = {}): Promise<void> {
    const mem = opts.maintenanceWorkMem ?? '1GB';
    if (!/^\d+(kB|MB|GB)$/.test(mem)) throw new Error(`bad maintenance_work_mem ${mem}`);
    await this.db.$executeRawUnsafe(`SET LOCAL maintenance_work_mem = '${mem}'`);
    await this.db.$executeRawUnsafe(
      `SET LOCAL max_parallel_maintenance_workers = ${Math.max(0, Math.floor(opts.parallelWorkers ?? 2))}`,
    );
    await this.db.$executeRawUnsafe(`CREATE INDEX IF NOT EXISTS ${VECTOR_INDEX} ${VECTOR_INDEX_DEFINITION}`);
  }

  // ------------------------------------------------------------ reads

  /**
   * Providers, tools and vectors of `model`: what one project sees (the
   * global catalog and its own rows), or with `'deployment'` every row.
   */
  async counts(model: string, scope: { projectId: string } | 'deployment' = 'deployment'): Promise<CatalogCounts> {
    const providers = scope === 'deployment' ? Prisma.sql`true` : providerVisibleTo(scope.projectId);
    const tools = scope === 'deployment' ? Prisma.sql`true` : visibleTo(scope.projectId);
    const [row] = await this.db.$queryRaw<Array<{ providers: bigint; tools: bigint; embedded: bigint }>>(Prisma.sql`
      SELECT (SELECT count(*) FROM providers p WHERE ${providers}) AS providers,
             count(*) AS tools,
             count(*) FILTER (WHERE t.embedding IS NOT NULL AND t.embedding_model = ${model}) AS embedded
      FROM mcp_tools t WHERE ${tools}`);
    return {
      providers: Number(row?.providers ?? 0),
      tools: Number(row?.tools ?? 0),
      embedded: Number(row?.embedded ?? 0),
    };
  }

  /**
   * The provider a project means by `serverId` (its own, else the global
   * one) with what a call needs, and optionally one of its tools as that
   * project sees it (its own tool before a catalog one of the same name).
   * Null when the project sees no provider of that id.
   */
  async providerForCall(serverId: string, projectId: string, toolName?: string): Promise<ProviderForCall | null> {
    const rows = await this.db.$queryRawUnsafe<ProviderForCallRow[]>(
      PROVIDER_FOR_CALL.text,
      serverId,
      projectId,
      toolName ?? null,
    );
    return rows[0] ? toProviderForCall(rows[0]) : null;
  }

  /** Whether the caller sees a provider of this id (its own or a global one). */
  async providerExists(id: string, projectId: string | null): Promise<boolean> {
    const owners = projectId === null ? [''] : ['', projectId];
    const rows = await this.db.$queryRaw<unknown[]>(
      Prisma.sql`SELECT 1 FROM providers WHERE id = ${id} AND owner = ANY(${owners}::text[])`,
    );
    return rows.length > 0;
  }

  /** Providers matching the filters, in id order after `afterId`, with the caller's visible tool count. */
  async listProviders(f: {
    category?: string;
    country?: string;
    q?: string;
    limit: number;
    afterId?: string;
    projectId: string | null;
  }): Promise<{ total: number; filtered: number; rows: ProviderRow[] }> {
    const visible = providerVisibleTo(f.projectId);
    const where: Prisma.Sql[] = [visible];
    if (f.category) where.push(Prisma.sql`p.category = ${f.category}`);
    // A global provider (`*`) serves every country.
    if (f.country && f.country !== '*')
      where.push(Prisma.sql`(p.country = ${f.country} OR p.country = '*' OR ${f.country} = ANY(p.countries))`);
    if (f.q) {
      const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(Prisma.sql`(p.id ILIKE ${like} OR p.name ILIKE ${like} OR p.description ILIKE ${like})`);
    }
    const filter = Prisma.sql`WHERE ${Prisma.join(where, ' AND ')}`;
    const page = [...where];
    if (f.afterId) page.push(Prisma.sql`p.id > ${f.afterId}`);
    const pageFilter = Prisma.sql`WHERE ${Prisma.join(page, ' AND ')}`;
    const [counts] = await this.db.$queryRaw<Array<{ total: bigint; filtered: bigint }>>(Prisma.sql`
      SELECT (SELECT count(*) FROM providers p WHERE ${visible}) AS total, (SELECT count(*) FROM providers p ${filter}) AS filtered`);
    // A visible provider's tools are the ones hanging off that very row, minus other projects' own tools.
    const rows = await this.db.$queryRaw<Array<ProviderRow & { tools_count: bigint }>>(Prisma.sql`
      SELECT p.id, p.name, p.category, p.country, p.countries, p.auth_type,
             (SELECT count(*) FROM mcp_tools t WHERE t.server_id = p.id AND t.server_owner = p.owner AND ${visibleTo(f.projectId)}) AS tools_count,
             p.description, p.status, p.sandbox_available
      FROM providers p ${pageFilter}
      ORDER BY p.id LIMIT ${f.limit}`);
    return {
      total: Number(counts?.total ?? 0),
      filtered: Number(counts?.filtered ?? 0),
      rows: rows.map((r) => ({ ...r, countries: r.countries ?? [], tools_count: Number(r.tools_count) })),
    };
  }

  /** One server's tools visible to the caller, in name order after `afterName`. */
  async listTools(f: {
    serverId: string;
    limit: number;
    after?: { name: string; id: string };
    projectId: string | null;
  }): Promise<{ total: number; rows: ToolRow[] }> {
    const [c] = await this.db.$queryRaw<Array<{ n: bigint }>>(Prisma.sql`
      SELECT count(*) AS n FROM mcp_tools t WHERE t.server_id = ${f.serverId} AND ${visibleTo(f.projectId)}`);
    // A project's own tool may share a name with a catalog tool; order by owner too so paging is stable.
    const rows = await this.db.$queryRaw<ToolRow[]>(Prisma.sql`
      SELECT t.id::text AS id, t.tool_name AS name, t.description, t.input_schema, t.http_method, t.endpoint_template
      FROM mcp_tools t
      WHERE t.server_id = ${f.serverId} AND ${visibleTo(f.projectId)}
        ${f.after ? Prisma.sql`AND (t.tool_name COLLATE "C", t.id) > (${f.after.name} COLLATE "C", ${f.after.id}::uuid)` : Prisma.empty}
      ORDER BY t.tool_name COLLATE "C", t.id LIMIT ${f.limit}`);
    return { total: Number(c?.n ?? 0), rows };
  }
}
