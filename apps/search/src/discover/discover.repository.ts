import { Prisma, type PrismaClient } from '@rota/db';
import type { DiscoverEnvironment } from '@rota/contracts';
import { toVectorLiteral } from '@rota/catalog/embedder';
import type { Candidate } from './ranking';

/** What the candidate query needs to know. */
export interface CandidateQuery {
  projectId: string;
  environment: DiscoverEnvironment;
  text: string;
  /** Unit-length query embedding, or null to run the trigram pass alone. */
  vector: Float32Array | null;
  /** The model that made `vector`; only rows embedded by the same model take part in the vector pass. */
  model: string | null;
  category: string | null;
  country: string | null;
  /** Rows the vector pass and the tool trigram pass each contribute at most. */
  candidates: number;
  /** Providers whose own text matches, at most, whose tools join the pool. */
  providerCandidates: number;
  trigramThreshold: number;
  efSearch: number;
  /** Most trigram matches the lexical pass examines before keeping the best `candidates`. */
  lexicalScanCap: number;
}

/** The catalog reads discover makes. The service sees only this. */
export interface DiscoverCatalog {
  candidates(q: CandidateQuery): Promise<Candidate[]>;
}

interface CandidateRow {
  server_id: string;
  tool_name: string;
  description: string;
  http_method: string | null;
  endpoint_template: string | null;
  project_id: string | null;
  provider_name: string;
  category: string;
  country: string;
  countries: string[] | null;
  auth_type: string;
  self_serve_auth: boolean;
  sandbox_available: boolean;
  provider_status: string;
  cosine_distance: number | null;
  from_vector: boolean;
  name_sim: number;
  desc_sim: number;
  pname_sim: number;
  pdesc_sim: number;
  connection_status: string | null;
}

/**
 * Provider filters shared by every pass. `country` keeps providers that
 * serve it, including global ones (`*`).
 */
function providerFilter(alias: Prisma.Sql, q: CandidateQuery): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (q.category) parts.push(Prisma.sql`lower(${alias}.category) = ${q.category}`);
  if (q.country) parts.push(Prisma.sql`(${alias}.country IN (${q.country}, '*') OR ${q.country} = ANY(${alias}.countries))`);
  return parts.length ? Prisma.sql`AND ${Prisma.join(parts, ' AND ')}` : Prisma.empty;
}

/**
 * The only database code of discover: one statement, run in one transaction
 * after the `SET LOCAL`s that tune it, so nothing leaks into other users of a
 * pooled connection.
 *
 * Candidates come from three places, then every one is re-scored with both
 * measures:
 * - `vec`: the HNSW index, nearest rows by cosine distance among rows embedded
 *   by the query's model;
 * - `lex`: tools whose name or description matches by trigrams at the
 *   configured threshold, examining at most `lexicalScanCap` matches;
 * - `prov`: providers whose name matches by trigrams (GIN index); all their
 *   visible tools join the pool.
 * With a sentence as the query and a threshold as low as 0.1, the two trigram
 * passes match a large share of any catalog and cost several times the rest
 * together, while the embedded text already carries the provider name, tool
 * name and description. So they run only when the vector pass came back short
 * (no query vector, a small or partly embedded catalog, a narrow filter);
 * otherwise the trigram measures only re-score the vector candidates.
 *
 * Sequential scans are switched off for the transaction: every access here is
 * selective, and the planner prices neither the distance over a TOASTed
 * vector nor a trigram comparison anywhere near their real cost, so on small
 * catalogs it would otherwise compute the distance to every row.
 */
export class DiscoverRepository implements DiscoverCatalog {
  constructor(private readonly prisma: PrismaClient) {}

  async candidates(q: CandidateQuery): Promise<Candidate[]> {
    const vec = q.vector && q.model ? toVectorLiteral(q.vector) : null;
    const text = q.text;
    // The right-hand side of '%' is a sub-select so the planner sees no constant:
    // estimating a trigram condition's selectivity with a constant runs the
    // similarity over the column's statistics sample, which costs more than
    // the whole search. Index scans still take the value at execution time.
    const needle = Prisma.sql`(SELECT ${text}::text)`;
    // Tools of the shared catalog, and this project's own ones; never another project's.
    // Written so no index can serve it: an index on project_id would offer the
    // planner an exact scan over every visible row as an alternative to HNSW.
    const visible = Prisma.sql`coalesce(t.project_id, ${q.projectId}) = ${q.projectId}`;
    const pf = providerFilter(Prisma.raw('p'), q);
    const joinProviders = pf === Prisma.empty ? Prisma.empty : Prisma.sql`JOIN providers p ON p.id = t.server_id`;

    const vectorPass = vec
      ? Prisma.sql`
        SELECT t.id, t.embedding <=> ${vec}::vector AS d
        FROM mcp_tools t ${joinProviders}
        WHERE t.embedding IS NOT NULL AND t.embedding_model = ${q.model} AND ${visible} ${pf}
        ORDER BY t.embedding <=> ${vec}::vector
        LIMIT ${q.candidates}`
      : Prisma.sql`SELECT NULL::uuid AS id, NULL::float8 AS d WHERE false`;

    const rescoredDistance = vec ? Prisma.sql`CASE WHEN t.embedding_model = ${q.model} THEN t.embedding <=> ${vec}::vector END` : Prisma.sql`NULL::float8`;

    const sql = Prisma.sql`
      WITH vec AS MATERIALIZED (${vectorPass}),
      prov AS MATERIALIZED (
        SELECT p.id FROM providers p
        WHERE (SELECT count(*) FROM vec) < ${q.candidates} AND p.name % ${needle} ${pf}
        ORDER BY similarity(p.name, ${text}) DESC
        LIMIT ${q.providerCandidates}
      ),
      lex AS MATERIALIZED (
        SELECT id FROM (
          SELECT t.id, greatest(similarity(t.tool_name, ${text}), similarity(t.description, ${text})) AS s
          FROM mcp_tools t ${joinProviders}
          WHERE (SELECT count(*) FROM vec) < ${q.candidates}
            AND (t.tool_name % ${needle} OR t.description % ${needle}) AND ${visible} ${pf}
          LIMIT ${q.lexicalScanCap}
        ) m
        ORDER BY s DESC
        LIMIT ${q.candidates}
      ),
      cand AS (
        SELECT id FROM vec
        UNION SELECT id FROM lex
        UNION SELECT t.id FROM mcp_tools t JOIN prov ON prov.id = t.server_id WHERE ${visible}
      ),
      scored AS MATERIALIZED (
        SELECT t.server_id, t.tool_name, t.description, t.http_method, t.endpoint_template, t.project_id,
               vec.d IS NOT NULL AS from_vector,
               coalesce(vec.d, ${rescoredDistance}) AS cosine_distance
        FROM cand JOIN mcp_tools t ON t.id = cand.id LEFT JOIN vec ON vec.id = t.id
      ),
      ps AS MATERIALIZED (
        SELECT p.id, p.name, p.category, p.country, p.countries, p.auth_type, p.self_serve_auth,
               p.sandbox_available, p.status,
               similarity(p.name, ${text}) AS pname_sim, similarity(p.description, ${text}) AS pdesc_sim
        FROM (SELECT DISTINCT server_id FROM scored) s JOIN providers p ON p.id = s.server_id
      )
      SELECT t.server_id, t.tool_name, t.description, t.http_method, t.endpoint_template, t.project_id,
             ps.name AS provider_name, ps.category, ps.country, ps.countries, ps.auth_type, ps.self_serve_auth,
             ps.sandbox_available, ps.status AS provider_status,
             t.cosine_distance, t.from_vector,
             similarity(t.tool_name, ${text}) AS name_sim,
             similarity(t.description, ${text}) AS desc_sim,
             ps.pname_sim, ps.pdesc_sim,
             c.status AS connection_status
      FROM scored t
      JOIN ps ON ps.id = t.server_id
      LEFT JOIN connections c
        ON c.project_id = ${q.projectId} AND c.environment = ${q.environment}::environment AND c.server_id = t.server_id`;

    const [, rows] = await this.prisma.$transaction([
      this.prisma.$queryRaw`SELECT set_config('pg_trgm.similarity_threshold', ${String(q.trigramThreshold)}, true),
                                   set_config('hnsw.ef_search', ${String(q.efSearch)}, true),
                                   set_config('hnsw.iterative_scan', 'relaxed_order', true),
                                   set_config('enable_seqscan', 'off', true)`,
      this.prisma.$queryRaw<CandidateRow[]>(sql),
    ]);
    return rows.map(toCandidate);
  }
}

function toCandidate(r: CandidateRow): Candidate {
  return {
    serverId: r.server_id,
    toolName: r.tool_name,
    description: r.description,
    httpMethod: r.http_method,
    endpointTemplate: r.endpoint_template,
    projectId: r.project_id,
    providerName: r.provider_name,
    category: r.category,
    providerCountry: r.country,
    providerCountries: r.countries ?? [],
    authType: r.auth_type,
    selfServeAuth: r.self_serve_auth,
    sandboxAvailable: r.sandbox_available,
    providerStatus: r.provider_status,
    cosineDistance: r.cosine_distance === null ? null : Number(r.cosine_distance),
    fromVectorPass: r.from_vector,
    nameSimilarity: Number(r.name_sim),
    descriptionSimilarity: Number(r.desc_sim),
    providerNameSimilarity: Number(r.pname_sim),
    providerDescriptionSimilarity: Number(r.pdesc_sim),
    connectionRowStatus: r.connection_status,
  };
}
