import { createSqlPool, namedStatement, type SqlPool } from '@rota/db';
import type { Environment } from '@rota/contracts';
import { toVectorLiteral } from '@rota/catalog/embedder';
import type { DiscoverConfig } from './config';
import type { Candidate } from './ranking';

/** What the candidate query needs to know. */
export interface CandidateQuery {
  projectId: string;
  environment: Environment;
  /** The use case as written: the pg_trgm similarities each match shows (`trigram_similarity`) are measured against it. */
  text: string;
  /** Unit-length query embedding, or null to leave the vector channel out. */
  vector: Float32Array | null;
  /** The model that made `vector`; only rows embedded by the same model take part in the vector pass. */
  model: string | null;
  category: string | null;
  country: string | null;
  /** Rows the vector channel and the lexical channel each contribute at most. */
  candidates: number;
  /** What the lexical channel reads; null leaves the channel out. */
  lexical: LexicalQuery | null;
}

/** The lexical channel's query and its BM25 settings. */
export interface LexicalQuery {
  /** The request's own words (Postgres analyses them with the `rota_search` configuration). */
  text: string;
  /** Words that expand it (the request brought into English, synonyms), each counted at `expansionWeight`. */
  expansion: string;
  expansionWeight: number;
  k1: number;
  b: number;
  /** BM25F weights of the document's fields: tool name, description, provider name, provider description. */
  fieldWeights: readonly [number, number, number, number];
  /** Rows the channel's candidate search may touch: query terms join it rarest first until their rows reach this. */
  scanCap: number;
  /**
   * Rows each step of the candidate search scores with BM25 at most (0 or
   * absent: every row it finds). Past it, the rows that hold the most of the
   * query's words, in the heaviest fields, are kept (Postgres's `ts_rank`,
   * which costs a fraction of the BM25 expression per row).
   */
  scoreCap?: number;
}

/** A query vector that is still being computed, with the model that makes it; null when there will be none. */
export type PendingVector = Promise<{ vector: Float32Array; model: string } | null>;

/** The catalog reads discover makes. The service sees only this. */
export interface DiscoverCatalog {
  candidates(q: CandidateQuery): Promise<Candidate[]>;
  /**
   * The same candidates, for a query whose vector is still being computed:
   * the lexical channel starts at once and the vector channel when the
   * vector arrives. Optional: without it the caller waits for the vector and
   * calls `candidates`.
   */
  candidatesWhileEmbedding?(q: Omit<CandidateQuery, 'vector' | 'model'>, vector: PendingVector): Promise<Candidate[]>;
  /**
   * The pg_trgm similarities of the use case to some candidates (by `id`):
   * shown in each match, never ranked on, so measured only for the rows an
   * answer shows. Optional: without it the candidates carry their own.
   */
  similarities?(text: string, ids: readonly string[]): Promise<Map<string, TrigramSimilarities>>;
}

/** The pg_trgm similarities a match shows (see `trigramScore`). */
export type TrigramSimilarities = Pick<
  Candidate,
  'nameSimilarity' | 'descriptionSimilarity' | 'providerNameSimilarity' | 'providerDescriptionSimilarity'
>;

const SIMILARITIES = namedStatement(`
    SELECT t.id, similarity(t.tool_name, $1) AS name_sim, similarity(t.description, $1) AS desc_sim,
           similarity(p.name, $1) AS pname_sim, similarity(p.description, $1) AS pdesc_sim
    FROM mcp_tools t JOIN providers p ON p.id = t.server_id AND p.owner = t.server_owner
    WHERE t.id = ANY ($2::uuid[])`);

interface CandidateRow {
  id: string;
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
  lexical_score: number | null;
  from_lexical: boolean;
  connection_status: string | null;
}

/**
 * Which statement runs the lexical channel. `current` reads BM25's corpus
 * figures from the tables that statement triggers on mcp_tools keep (migration
 * `20261205000000_mcp_tools_search_stats`) and searches in two steps (see
 * `split` below). `previous` is the statement as it was before: the figures
 * recounted on every call (a scan of mcp_tools and a GIN probe per query term)
 * and every row holding a seek term scored in one step over its whole
 * document. Both give the same scores (to rounding: the order in which a row's
 * terms are added follows the plan) and the same rows, but for rows tied at
 * the cut; `previous` is kept as the reference that tests check `current`
 * against and the benchmark's baseline.
 */
export type LexicalVariant = 'current' | 'previous';

/**
 * The statement for one shape of query. Parameters are positional so each
 * value, the query vector above all, crosses the wire and is parsed once
 * however often the statement uses it:
 * $1 text, $2 vector, $3 model, $4 project, $5 environment, $6 candidates,
 * $7 lexical text, $8 lexical expansion, $9 category, $10 country,
 * $11 BM25 settings [k1, b, weight of tool name, description, provider name,
 * provider description, expansion, score cap, then ts_rank's four label
 * weights], $12 lexical scan cap.
 *
 * Candidates come from two channels, each with its own index and its own top
 * `candidates`, and every candidate of the union is then scored by both:
 * - `vec`: the HNSW index, nearest rows by cosine distance among rows embedded
 *   by the query's model;
 * - `lex`: BM25 over `search_document` (tool name, description, provider name
 *   and description, analysed by the `rota_search` text search
 *   configuration), rows found through its GIN index. Field weights make it
 *   BM25F; the corpus size, mean document length and document frequencies
 *   are read from the tables kept at write time (see {@link LexicalVariant}).
 * The pg_trgm similarities each match shows are not ranked on, so they are
 * measured afterwards for the rows an answer shows only (`similarities`).
 */
export function candidateSql(
  shape: { vector: boolean; category: boolean; country: boolean; lexicalIds?: boolean; idsOnly?: boolean },
  variant: LexicalVariant = 'current',
): string {
  const filters: string[] = [];
  if (shape.category) filters.push('lower(p.category) = $9');
  if (shape.country) filters.push("(p.country IN ($10, '*') OR $10 = ANY(p.countries))");
  const pf = filters.length ? `AND ${filters.join(' AND ')}` : '';
  const joinProviders = filters.length ? 'JOIN providers p ON p.id = t.server_id AND p.owner = t.server_owner' : '';
  // Tools of the shared catalog, and this project's own ones; never another project's.
  // Written so no index can serve it: an index on project_id would offer the
  // planner an exact scan over every visible row as an alternative to HNSW.
  // A global tool drops out when the project has a provider of its own under
  // that id (one probe of the providers' primary key).
  // The project's own provider ids are read once per statement (an InitPlan), not probed per row.
  const visible =
    'coalesce(t.project_id, $4) = $4 AND (t.project_id IS NOT NULL OR t.server_id <> ALL (ARRAY(SELECT o.id FROM providers o WHERE o.owner = $4)))';
  // Every shape names all twelve parameters, so the unused ones get a type too
  // (the planner folds these conditions away).
  // With `lexicalIds`, $12 holds the lexical channel's rows, found by an
  // earlier statement (see `candidatesWhileEmbedding`), instead of the scan
  // cap, and a thirteenth parameter their BM25 scores, which that statement
  // computed already.
  const followUp = shape.lexicalIds === true;
  // A follow-up without a vector runs no search, so no LIMIT names $6 either.
  const typed = `($2::vector IS NULL OR true) AND ($3::text IS NULL OR true) AND ($9::text IS NULL OR true) AND ($10::text IS NULL OR true) AND ($12::${followUp ? 'uuid[]' : 'int'} IS NULL OR true)${followUp && !shape.vector ? ' AND ($6::bigint IS NULL OR true)' : ''}`;
  const vectorPass = shape.vector
    ? `SELECT t.id, t.embedding <=> $2::vector AS d
       FROM mcp_tools t ${joinProviders}
       WHERE t.embedding IS NOT NULL AND t.embedding_model = $3 AND ${visible} ${pf}
       ORDER BY t.embedding <=> $2::vector
       LIMIT $6`
    : 'SELECT NULL::uuid AS id, NULL::float8 AS d WHERE false';
  const rescoredDistance = shape.vector
    ? 'CASE WHEN t.embedding_model = $3 THEN t.embedding <=> $2::vector END'
    : 'NULL::float8';
  const previous = variant === 'previous';
  // BM25 of one row `t` over the query terms in `qidf` (idf already times the
  // term's query weight); a term's frequency is the sum of its positions'
  // field weights. Only the row's query terms are unnested: deleting from the
  // document the lexemes left once the query terms are deleted keeps the one
  // to three it shares with the query, where unnesting the whole document
  // (about 30 lexemes, each with its positions) cost twice as much per row.
  const terms = previous
    ? 't.search_document'
    : 'ts_delete(t.search_document, tsvector_to_array(ts_delete(t.search_document, (SELECT terms FROM qlist))))';
  const bm25 = `(SELECT sum(q.w * f.tf * (($11::float8[])[1] + 1) / (f.tf + ($11::float8[])[1] * (1 - ($11::float8[])[2] + ($11::float8[])[2] * t.search_length / c.avgdl)))
      FROM (SELECT u.lexeme, (SELECT sum(CASE l WHEN 'A' THEN ($11::float8[])[3] WHEN 'B' THEN ($11::float8[])[4] WHEN 'C' THEN ($11::float8[])[5] ELSE ($11::float8[])[6] END) FROM unnest(u.weights) l) AS tf
            FROM unnest(${terms}) u) f
      JOIN qidf q ON q.term = f.lexeme)`;
  const lexRows = (match: string) =>
    previous
      ? `SELECT t.id, ${bm25} AS s
      FROM mcp_tools t ${joinProviders} CROSS JOIN corpus c
      WHERE ${match} AND ${visible} ${pf}
      ORDER BY s DESC
      LIMIT $6`
      : // At most the score cap's rows get the BM25 expression: the ones
        // ts_rank puts first, with the field weights as its label weights
        // (D, C, B, A: provider description, provider name, description, tool name).
        `SELECT t.id, ${bm25} AS s
      FROM (SELECT t.id, t.search_document, t.search_length
            FROM mcp_tools t ${joinProviders}
            WHERE ${match} AND ${visible} ${pf}
            ORDER BY ts_rank((($11::float8[])[9:12])::float4[], t.search_document, (SELECT anyq FROM split)) DESC
            LIMIT nullif(($11::float8[])[8], 0)::bigint) t
      CROSS JOIN corpus c
      ORDER BY s DESC
      LIMIT $6`;
  // BM25's corpus: documents and their mean length over every row of
  // mcp_tools, and each query term's document frequency (every project's rows
  // count, as they always have).
  const corpus = previous
    ? 'SELECT count(*)::float8 AS n, greatest(avg(search_length), 1)::float8 AS avgdl FROM mcp_tools WHERE EXISTS (SELECT 1 FROM qterms)'
    : 'SELECT coalesce(sum(s.documents), 0)::float8 AS n, greatest(sum(s.total_length) / nullif(sum(s.documents), 0), 1)::float8 AS avgdl FROM mcp_tools_search_stats s';
  const documentFrequency = previous
    ? 'SELECT count(*)::float8 AS df FROM mcp_tools x WHERE x.search_document @@ quote_literal(q.term)::tsquery'
    : 'SELECT x.df::float8 AS df FROM mcp_tools_search_terms x WHERE x.lexeme = q.term';
  const search = followUp
    ? `qlist AS MATERIALIZED (SELECT array_agg(term) AS terms FROM qidf),
    lex AS MATERIALIZED (SELECT x.id, x.s FROM unnest($12::uuid[], $13::float8[]) AS x(id, s)),`
    : previous
      ? `lex AS MATERIALIZED (${lexRows("t.search_document @@ (SELECT string_agg(quote_literal(term), ' | ')::tsquery FROM seek)")}),`
      : `-- The search runs in two steps. The first keeps the best rows holding a
    -- seek term other than the most common one; the second looks at the rows
    -- holding only that most common term, and only at those that could still
    -- score above the worst row kept. A term adds less than its weight times
    -- (k1 + 1) to a row's BM25 (term frequencies saturate), so such a row
    -- scores below that bound for the common term alone, plus the same for
    -- each query term too common to seek that it also holds: when the first
    -- bound is below the cut, only the rows holding one of those other terms
    -- are read, and when the second is too, none. That common term, often
    -- the one that crossed the scan cap, is what otherwise costs the most
    -- rows; the rows found are the same either way, but for rows tied at the cut.
    qlist AS MATERIALIZED (SELECT array_agg(term) AS terms FROM qidf),
    last AS MATERIALIZED (SELECT term FROM seek WHERE (SELECT count(*) FROM seek) > 1 ORDER BY df DESC, term DESC LIMIT 1),
    split AS MATERIALIZED (
      SELECT (SELECT string_agg(quote_literal(term), ' | ')::tsquery FROM seek WHERE term NOT IN (SELECT term FROM last)) AS first,
             (SELECT quote_literal(term)::tsquery FROM last) AS last,
             (SELECT string_agg(quote_literal(term), ' | ')::tsquery FROM qidf WHERE term NOT IN (SELECT term FROM seek)) AS rest,
             (SELECT (($11::float8[])[1] + 1) * w FROM qidf WHERE term IN (SELECT term FROM last)) AS last_bound,
             (SELECT (($11::float8[])[1] + 1) * sum(w) FROM qidf WHERE term NOT IN (SELECT term FROM seek EXCEPT SELECT term FROM last)) AS bound,
             (SELECT string_agg(quote_literal(term), ' | ')::tsquery FROM qidf) AS anyq
    ),
    lex1 AS MATERIALIZED (${lexRows('t.search_document @@ (SELECT first FROM split)')}),
    cut AS MATERIALIZED (SELECT coalesce((SELECT min(s) FROM lex1 HAVING count(*) >= $6), 0) AS s),
    lex2 AS MATERIALIZED (${lexRows(
      `(SELECT x.last IS NOT NULL AND x.bound >= cut.s FROM split x, cut)
       AND t.search_document @@ (SELECT CASE WHEN x.last_bound >= cut.s THEN x.last ELSE x.last && x.rest END FROM split x, cut)
       AND NOT t.search_document @@ (SELECT first FROM split)`,
    )}),
    lex AS MATERIALIZED (SELECT id, s FROM lex1 UNION ALL SELECT id, s FROM lex2 ORDER BY s DESC LIMIT $6),`;
  // `idsOnly`: the lexical channel's rows by id and nothing else, for a
  // follow-up statement (see `candidatesWhileEmbedding`) that scores them.
  const tail = shape.idsOnly
    ? `SELECT lex.id, lex.s FROM lex WHERE ${typed} AND ($1::text IS NULL OR true) AND ($5::environment IS NULL OR true)`
    : `cand AS (SELECT id FROM vec UNION SELECT id FROM lex),
    scored AS MATERIALIZED (
      SELECT t.id, t.server_id, t.server_owner, t.tool_name, t.description, t.http_method, t.endpoint_template, t.project_id,
             vec.d IS NOT NULL AS from_vector,
             coalesce(vec.d, ${rescoredDistance}) AS cosine_distance,
             lex.id IS NOT NULL AS from_lexical,
             coalesce(lex.s, (SELECT ${bm25} FROM corpus c)) AS lexical_score
      FROM cand JOIN mcp_tools t ON t.id = cand.id LEFT JOIN vec ON vec.id = t.id LEFT JOIN lex ON lex.id = t.id
    ),
    ps AS MATERIALIZED (
      SELECT p.id, p.owner, p.name, p.category, p.country, p.countries, p.auth_type, p.self_serve_auth,
             p.sandbox_available, p.status
      FROM (SELECT DISTINCT server_id, server_owner FROM scored) s JOIN providers p ON p.id = s.server_id AND p.owner = s.server_owner
    )
    SELECT t.id, t.server_id, t.tool_name, t.description, t.http_method, t.endpoint_template, t.project_id,
           ps.name AS provider_name, ps.category, ps.country, ps.countries, ps.auth_type, ps.self_serve_auth,
           ps.sandbox_available, ps.status AS provider_status,
           t.cosine_distance, t.from_vector, t.lexical_score, t.from_lexical,
           c.status AS connection_status
    FROM scored t
    JOIN ps ON ps.id = t.server_id AND ps.owner = t.server_owner
    LEFT JOIN connections c
      ON c.project_id = $4 AND c.environment = $5::environment AND c.server_id = t.server_id
    WHERE ${typed} AND ($1::text IS NULL OR true)`;
  return `
    WITH vec AS MATERIALIZED (${vectorPass}),
    qterms AS MATERIALIZED (
      SELECT term, max(w) AS w FROM (
        SELECT lexeme AS term, 1::float8 AS w FROM unnest(to_tsvector('rota_search', coalesce($7::text, '')))
        UNION ALL
        SELECT lexeme, ($11::float8[])[7] FROM unnest(to_tsvector('rota_search', coalesce($8::text, '')))
      ) u GROUP BY term
    ),
    corpus AS MATERIALIZED (${corpus}),
    qidf AS MATERIALIZED (
      SELECT q.term, d.df, q.w * ln(1 + (c.n - d.df + 0.5) / (d.df + 0.5)) AS w
      FROM qterms q CROSS JOIN corpus c
      CROSS JOIN LATERAL (${documentFrequency}) d
      WHERE d.df > 0
    ),
    -- The terms that find candidates, rarest first, until their rows reach
    -- the scan cap: on a large catalog a common word would otherwise have
    -- every row holding it scored, for a term that can barely move BM25.
    -- The rarest term always counts, and the others still score the rows found.
    ${
      followUp
        ? ''
        : `seek AS MATERIALIZED (
      SELECT term, df FROM (SELECT term, df, sum(df) OVER (ORDER BY df, term ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM qidf) x
      WHERE coalesce(before, 0) < $12
    ),`
    }
    ${shape.idsOnly ? search.trimEnd().replace(/,$/, '') : search}
    ${tail}`;
}

/** The eight statement shapes (query vector or not, category filter or not, country filter or not), indexed by those three bits. */
const statements = (variant: LexicalVariant) =>
  Array.from({ length: 8 }, (_, i) =>
    namedStatement(candidateSql({ vector: (i & 4) !== 0, category: (i & 2) !== 0, country: (i & 1) !== 0 }, variant)),
  );
const STATEMENTS: Record<LexicalVariant, ReturnType<typeof statements>> = {
  current: statements('current'),
  previous: statements('previous'),
};
/** The lexical channel on its own, its rows by id only (for a follow-up), by category and country bits. */
const LEXICAL_IDS = Array.from({ length: 4 }, (_, i) =>
  namedStatement(candidateSql({ vector: false, category: (i & 2) !== 0, country: (i & 1) !== 0, idsOnly: true })),
);
/**
 * The rows the lexical channel found on its own, scored, with the vector
 * channel when a vector came (indexed by the same three bits as the full
 * statements).
 */
const FOLLOW_UPS = Array.from({ length: 8 }, (_, i) =>
  namedStatement(
    candidateSql({ vector: (i & 4) !== 0, category: (i & 2) !== 0, country: (i & 1) !== 0, lexicalIds: true }),
  ),
);

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
  /** A `variant` other than `current` is for tests and benchmarks. */
  constructor(
    private readonly pool: SqlPool,
    private readonly variant: LexicalVariant = 'current',
  ) {}

  /** A pool whose connections carry discover's settings, taken from its configuration. */
  static connect(
    databaseUrl: string,
    config: Pick<DiscoverConfig, 'ROTA_DISCOVER_TRIGRAM_THRESHOLD' | 'ROTA_DISCOVER_EF_SEARCH'>,
    poolMax?: number,
    variant: LexicalVariant = 'current',
  ): DiscoverRepository {
    return new DiscoverRepository(
      createSqlPool(databaseUrl, {
        poolMax,
        settings: {
          'pg_trgm.similarity_threshold': config.ROTA_DISCOVER_TRIGRAM_THRESHOLD,
          'hnsw.ef_search': config.ROTA_DISCOVER_EF_SEARCH,
          'hnsw.iterative_scan': 'relaxed_order',
          enable_seqscan: 'off',
          // Disabled sequential scans price the corpus count in the billions,
          // which would have every call pay seconds of JIT compilation.
          jit: 'off',
          // Plan each statement shape once per connection: the plan does not
          // depend on the values (the settings above already rule out
          // sequential scans), and planning this statement costs about 1 ms.
          plan_cache_mode: 'force_generic_plan',
        },
      }),
      variant,
    );
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  async candidates(q: CandidateQuery): Promise<Candidate[]> {
    return (await this.rows(q)).map(toCandidate);
  }

  /**
   * Two statements instead of one, so the query's embedding and the lexical
   * channel run at the same time: the lexical channel alone starts at once;
   * once the vector is there, a second statement runs the vector channel and
   * scores the union of both channels' rows exactly as `candidates` does (the
   * lexical rows are passed back by id). The answer is the same. When no
   * vector comes (the embedder failed or ran out of time), the second
   * statement scores the lexical rows alone, without searching again.
   */
  async candidatesWhileEmbedding(
    q: Omit<CandidateQuery, 'vector' | 'model'>,
    pending: PendingVector,
  ): Promise<Candidate[]> {
    if (!q.lexical) {
      const v = await pending;
      return this.candidates({ ...q, vector: v?.vector ?? null, model: v?.model ?? null });
    }
    const [ids, v] = await Promise.all([this.lexicalIds(q), pending]);
    return (await this.rows({ ...q, vector: v?.vector ?? null, model: v?.model ?? null }, ids)).map(toCandidate);
  }

  async similarities(text: string, ids: readonly string[]): Promise<Map<string, TrigramSimilarities>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.pool.query<{
      id: string;
      name_sim: number;
      desc_sim: number;
      pname_sim: number;
      pdesc_sim: number;
    }>({
      ...SIMILARITIES,
      values: [text, ids],
    });
    return new Map(
      rows.map((r) => [
        r.id,
        {
          nameSimilarity: Number(r.name_sim),
          descriptionSimilarity: Number(r.desc_sim),
          providerNameSimilarity: Number(r.pname_sim),
          providerDescriptionSimilarity: Number(r.pdesc_sim),
        },
      ]),
    );
  }

  /** The lexical channel's rows alone, by id. */
  private async lexicalIds(q: Omit<CandidateQuery, 'vector' | 'model'>): Promise<LexicalHit[]> {
    const { rows } = await this.pool.query<{ id: string; s: number }>({
      ...LEXICAL_IDS[(q.category !== null ? 2 : 0) | (q.country !== null ? 1 : 0)]!,
      values: this.values({ ...q, vector: null, model: null }, null, undefined),
    });
    return rows.map((r) => ({ id: r.id, score: Number(r.s) }));
  }

  /** One statement: both channels, or with `lexicalIds` the rows the lexical one already found (and the vector channel, given a vector). */
  private async rows(q: CandidateQuery, lexicalIds?: LexicalHit[]): Promise<CandidateRow[]> {
    const vector = q.vector && q.model ? toVectorLiteral(q.vector) : null;
    const shape = (q.category !== null ? 2 : 0) | (q.country !== null ? 1 : 0);
    const bits = (vector !== null ? 4 : 0) | shape;
    const stmt = lexicalIds ? FOLLOW_UPS[bits]! : STATEMENTS[this.variant][bits]!;
    const { rows } = await this.pool.query<CandidateRow>({ ...stmt, values: this.values(q, vector, lexicalIds) });
    return rows;
  }

  /** The twelve parameters of every statement shape (see {@link candidateSql}). */
  private values(q: CandidateQuery, vector: string | null, lexicalIds: LexicalHit[] | undefined): unknown[] {
    const lx = q.lexical;
    const followUp = lexicalIds !== undefined;
    const values = [
      q.text,
      vector,
      vector ? q.model : null,
      q.projectId,
      q.environment,
      q.candidates,
      lx?.text ?? null,
      lx?.expansion ?? null,
      q.category,
      q.country,
      lx
        ? [lx.k1, lx.b, ...lx.fieldWeights, lx.expansionWeight, lx.scoreCap ?? 0, ...rankWeights(lx.fieldWeights)]
        : [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      followUp ? lexicalIds.map((h) => h.id) : (lx?.scanCap ?? 0),
    ];
    // A number's decimal form from JavaScript reads back as the same float8.
    if (followUp) values.push(lexicalIds.map((h) => h.score));
    return values;
  }
}

/** A row the lexical channel found, with its BM25 score. */
interface LexicalHit {
  id: string;
  score: number;
}

/** The BM25F field weights as ts_rank's label weights: D, C, B, A order, scaled into 0..1 as it requires. */
function rankWeights(w: readonly [number, number, number, number]): [number, number, number, number] {
  const top = Math.max(...w, 1e-9);
  return [w[3] / top, w[2] / top, w[1] / top, w[0] / top];
}

function toCandidate(r: CandidateRow): Candidate {
  return {
    id: r.id,
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
    lexicalScore: r.lexical_score === null ? null : Number(r.lexical_score),
    fromLexicalPass: r.from_lexical,
    // Measured later, for the rows an answer shows (see `similarities`).
    nameSimilarity: 0,
    descriptionSimilarity: 0,
    providerNameSimilarity: 0,
    providerDescriptionSimilarity: 0,
    connectionRowStatus: r.connection_status,
  };
}
