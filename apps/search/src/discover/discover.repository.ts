import { createSqlPool, namedStatement, type SqlPool } from '@rota/db';
import type { Environment } from '@rota/contracts';
import { toVectorLiteral } from '@rota/catalog/embedder';
import type { DiscoverConfig } from './config';
import type { Candidate } from './ranking';

/** What the candidate query needs to know. */
export interface CandidateQuery {
  projectId: string;
  environment: Environment;
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
 * The statement for one shape of query. Parameters are positional so each
 * value, the 1,536-number query vector above all, crosses the wire and is
 * parsed once however often the statement uses it:
 * $1 text, $2 vector, $3 model, $4 project, $5 environment, $6 candidates,
 * $7 provider candidates, $8 lexical scan cap, $9 category, $10 country.
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
 */
export function candidateSql(shape: { vector: boolean; category: boolean; country: boolean }): string {
  const filters: string[] = [];
  if (shape.category) filters.push('lower(p.category) = $9');
  if (shape.country) filters.push("(p.country IN ($10, '*') OR $10 = ANY(p.countries))");
  const pf = filters.length ? `AND ${filters.join(' AND ')}` : '';
  const joinProviders = filters.length ? 'JOIN providers p ON p.id = t.server_id' : '';
  // Tools of the shared catalog, and this project's own ones; never another project's.
  // Written so no index can serve it: an index on project_id would offer the
  // planner an exact scan over every visible row as an alternative to HNSW.
  const visible = 'coalesce(t.project_id, $4) = $4';
  // The right-hand side of '%' is a sub-select so the planner sees no constant:
  // estimating a trigram condition's selectivity with a constant runs the
  // similarity over the column's statistics sample, which costs more than
  // the whole search. Index scans still take the value at execution time.
  const needle = '(SELECT $1::text)';
  // Every shape names all ten parameters, so the unused ones get a type too
  // (the planner folds these conditions away).
  const typed = '($2::vector IS NULL OR true) AND ($3::text IS NULL OR true) AND ($9::text IS NULL OR true) AND ($10::text IS NULL OR true)';
  const vectorPass = shape.vector
    ? `SELECT t.id, t.embedding <=> $2::vector AS d
       FROM mcp_tools t ${joinProviders}
       WHERE t.embedding IS NOT NULL AND t.embedding_model = $3 AND ${visible} ${pf}
       ORDER BY t.embedding <=> $2::vector
       LIMIT $6`
    : 'SELECT NULL::uuid AS id, NULL::float8 AS d WHERE false';
  const rescoredDistance = shape.vector ? 'CASE WHEN t.embedding_model = $3 THEN t.embedding <=> $2::vector END' : 'NULL::float8';
  return `
    WITH vec AS MATERIALIZED (${vectorPass}),
    prov AS MATERIALIZED (
      SELECT p.id FROM providers p
      WHERE (SELECT count(*) FROM vec) < $6 AND p.name % ${needle} ${pf}
      ORDER BY similarity(p.name, $1) DESC
      LIMIT $7
    ),
    lex AS MATERIALIZED (
      SELECT id FROM (
        SELECT t.id, greatest(similarity(t.tool_name, $1), similarity(t.description, $1)) AS s
        FROM mcp_tools t ${joinProviders}
        WHERE (SELECT count(*) FROM vec) < $6
          AND (t.tool_name % ${needle} OR t.description % ${needle}) AND ${visible} ${pf}
        LIMIT $8
      ) m
      ORDER BY s DESC
      LIMIT $6
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
             similarity(p.name, $1) AS pname_sim, similarity(p.description, $1) AS pdesc_sim
      FROM (SELECT DISTINCT server_id FROM scored) s JOIN providers p ON p.id = s.server_id
    )
    SELECT t.server_id, t.tool_name, t.description, t.http_method, t.endpoint_template, t.project_id,
           ps.name AS provider_name, ps.category, ps.country, ps.countries, ps.auth_type, ps.self_serve_auth,
           ps.sandbox_available, ps.status AS provider_status,
           t.cosine_distance, t.from_vector,
           similarity(t.tool_name, $1) AS name_sim,
           similarity(t.description, $1) AS desc_sim,
           ps.pname_sim, ps.pdesc_sim,
           c.status AS connection_status
    FROM scored t
    JOIN ps ON ps.id = t.server_id
    LEFT JOIN connections c
      ON c.project_id = $4 AND c.environment = $5::environment AND c.server_id = t.server_id
    WHERE ${typed}`;
}

/** The eight statement shapes (query vector or not, category filter or not, country filter or not), indexed by those three bits. */
const STATEMENTS = Array.from({ length: 8 }, (_, i) => namedStatement(candidateSql({ vector: (i & 4) !== 0, category: (i & 2) !== 0, country: (i & 1) !== 0 })));

/**
 * The only database code of discover: one prepared statement, one round trip
 * per call, on a pool of its own whose connections start with the settings
 * that tune it (trigram threshold, `hnsw.ef_search`, iterative index scans,
 * generic plans), so nothing leaks into other users of a connection and no
 * call pays for `SET`s or for planning.
 *
 * Sequential scans are off on these connections: every access here is
 * selective, and the planner prices neither the distance over a TOASTed
 * vector nor a trigram comparison anywhere near their real cost, so on small
 * catalogs it would otherwise compute the distance to every row.
 */
export class DiscoverRepository implements DiscoverCatalog {
  constructor(private readonly pool: SqlPool) {}

  /** A pool whose connections carry discover's settings, taken from its configuration. */
  static connect(
    databaseUrl: string,
    config: Pick<DiscoverConfig, 'ROTA_DISCOVER_TRIGRAM_THRESHOLD' | 'ROTA_DISCOVER_EF_SEARCH'>,
    poolMax?: number,
  ): DiscoverRepository {
    return new DiscoverRepository(
      createSqlPool(databaseUrl, {
        poolMax,
        settings: {
          'pg_trgm.similarity_threshold': config.ROTA_DISCOVER_TRIGRAM_THRESHOLD,
          'hnsw.ef_search': config.ROTA_DISCOVER_EF_SEARCH,
          'hnsw.iterative_scan': 'relaxed_order',
          enable_seqscan: 'off',
          // Plan each statement shape once per connection: the plan does not
          // depend on the values (the settings above already rule out
          // sequential scans), and planning this statement costs about 1 ms.
          plan_cache_mode: 'force_generic_plan',
        },
      }),
    );
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  async candidates(q: CandidateQuery): Promise<Candidate[]> {
    const vector = q.vector && q.model ? toVectorLiteral(q.vector) : null;
    const stmt = STATEMENTS[(vector !== null ? 4 : 0) | (q.category !== null ? 2 : 0) | (q.country !== null ? 1 : 0)]!;
    const { rows } = await this.pool.query<CandidateRow>({
      ...stmt,
      values: [q.text, vector, vector ? q.model : null, q.projectId, q.environment, q.candidates, q.providerCandidates, q.lexicalScanCap, q.category, q.country],
    });
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
