import { createTestDatabase, type TestDatabase } from '@rota/db';
import type { PoolClient } from 'pg';
import { DiscoverConfig } from './config';
import { DiscoverRepository, type CandidateQuery } from './discover.repository';

/**
 * BM25's corpus figures kept at write time (migration
 * `20261205000000_mcp_tools_search_stats`): after every kind of write the two
 * tables must equal a full recount of mcp_tools, and discover's lexical
 * scores must equal those of the statement that recounts on every call.
 */

interface Figures {
  documents: number;
  totalLength: number;
  terms: Record<string, number>;
}

const KEPT = `
  SELECT (SELECT coalesce(sum(documents), 0)::int FROM mcp_tools_search_stats) AS documents,
         (SELECT coalesce(sum(total_length), 0)::int FROM mcp_tools_search_stats) AS total_length,
         (SELECT coalesce(jsonb_object_agg(lexeme, df), '{}') FROM mcp_tools_search_terms) AS terms`;
const RECOUNTED = `
  SELECT (SELECT count(*)::int FROM mcp_tools) AS documents,
         (SELECT coalesce(sum(search_length), 0)::int FROM mcp_tools) AS total_length,
         (SELECT coalesce(jsonb_object_agg(lexeme, df), '{}')
            FROM (SELECT w AS lexeme, count(*) AS df FROM mcp_tools t, unnest(tsvector_to_array(t.search_document)) w GROUP BY w) x) AS terms`;

const PROVIDERS = [
  { id: 'alfapay', name: 'Alfa Pay', description: 'Collects payments for small shops in Brazil.' },
  { id: 'mensageiro', name: 'Mensageiro', description: 'WhatsApp messaging gateway.' },
  { id: 'cepfacil', name: 'Cep Facil', description: 'Free lookup of Brazilian addresses.' },
];

const WORDS = [
  'charge',
  'refund',
  'invoice',
  'customer',
  'message',
  'postal',
  'street',
  'transfer',
  'balance',
  'voucher',
  'report',
  'ledger',
];

describe('BM25 corpus figures kept at write time', () => {
  let db: TestDatabase;

  const figures = async (sql: string): Promise<Figures> => {
    const { rows } = await db.sql.query<{ documents: number; total_length: number; terms: Record<string, number> }>(
      sql,
    );
    return { documents: rows[0]!.documents, totalLength: rows[0]!.total_length, terms: rows[0]!.terms };
  };
  /** The kept tables against a recount; returns the figures for further checks. */
  const expectExact = async (): Promise<Figures> => {
    const kept = await figures(KEPT);
    expect(kept).toEqual(await figures(RECOUNTED));
    return kept;
  };
  /** Runs `fn` on a client of its own inside a transaction, committed or rolled back. */
  const inTransaction = async <T>(
    fn: (c: PoolClient) => Promise<T>,
    end: 'COMMIT' | 'ROLLBACK' = 'COMMIT',
  ): Promise<T> => {
    const c = await db.sql.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query(end);
      return out;
    } catch (err) {
      await c.query('ROLLBACK');
      throw err;
    } finally {
      c.release();
    }
  };
  const insertTool = (c: Pick<PoolClient, 'query'>, server: string, name: string, description: string) =>
    c.query(`INSERT INTO mcp_tools (server_id, tool_name, description, description_hash) VALUES ($1, $2, $3, 'h')`, [
      server,
      name,
      description,
    ]);

  beforeAll(async () => {
    db = await createTestDatabase();
    for (const p of PROVIDERS) {
      await db.sql.query(
        `INSERT INTO providers (id, name, description, category, country, countries, auth_type, self_serve_auth, base_urls, status, sandbox_available)
         VALUES ($1, $2, $3, 'payments', 'BR', ARRAY['BR'], 'api_key', true, '{}'::jsonb, 'stable', true)`,
        [p.id, p.name, p.description],
      );
    }
  });
  afterAll(async () => {
    await db.drop();
  });

  it('starts empty and counts single inserts', async () => {
    expect(await expectExact()).toEqual({ documents: 0, totalLength: 0, terms: {} });
    await insertTool(
      db.sql,
      'alfapay',
      'create_pix_charge',
      'Create a Pix charge for a customer and return its QR code.',
    );
    await insertTool(db.sql, 'mensageiro', 'send_text', 'Send a WhatsApp text message to a customer.');
    const kept = await expectExact();
    expect(kept.documents).toBe(2);
    // "customer" is in both documents, "pix" in one.
    expect(kept.terms).toMatchObject({ custom: 2, pix: 1 });
  });

  it('counts a bulk insert in one statement', async () => {
    await db.sql.query(
      `INSERT INTO mcp_tools (server_id, tool_name, description, description_hash)
       SELECT (ARRAY['alfapay', 'mensageiro', 'cepfacil'])[1 + i % 3], 'bulk_' || i,
              'Bulk tool ' || i || ': ' || ($1::text[])[1 + i % 12] || ' and ' || ($1::text[])[1 + (i * 7) % 12] || ' for ' || ($1::text[])[1 + (i * 5) % 12], 'h'
       FROM generate_series(1, 500) i`,
      [WORDS],
    );
    expect((await expectExact()).documents).toBe(502);
  });

  it('counts upserts that insert and update in one statement', async () => {
    await db.sql.query(
      `INSERT INTO mcp_tools (server_id, tool_name, description, description_hash)
       SELECT 'alfapay', name, 'Upserted ' || name || ' to settle a ledger balance', 'h'
       FROM unnest(ARRAY['bulk_3', 'bulk_6', 'upsert_new_1', 'upsert_new_2']) name
       ON CONFLICT (server_id, tool_name, project_id) DO UPDATE SET description = excluded.description`,
    );
    expect((await expectExact()).documents).toBe(504);
  });

  it('follows description updates, and leaves the tables alone when no document changes', async () => {
    await db.sql.query(
      `UPDATE mcp_tools SET description = 'Refund an OFX statement of a settled voucher' WHERE tool_name LIKE 'bulk_1%'`,
    );
    await expectExact();
    // An update that changes no document (a new vector, say) does not touch,
    // or lock, the stats row.
    const before = await db.sql.query<{ xmin: string }>('SELECT xmin::text FROM mcp_tools_search_stats');
    await db.sql.query(`UPDATE mcp_tools SET embedding_model = 'another-model', description_hash = 'h2'`);
    const after = await db.sql.query<{ xmin: string }>('SELECT xmin::text FROM mcp_tools_search_stats');
    expect(after.rows).toEqual(before.rows);
    await expectExact();
  });

  it("follows a provider's rename through its tools", async () => {
    await db.sql.query(
      `UPDATE providers SET name = 'Zapzap Gateway', description = 'Chat messaging for shops.' WHERE id = 'mensageiro'`,
    );
    const kept = await expectExact();
    expect(kept.terms.zapzap).toBeGreaterThan(100);
    expect(kept.terms.mensageiro).toBeUndefined();
  });

  it('follows deletes, and drops lexemes no document holds any more', async () => {
    await db.sql.query(`DELETE FROM mcp_tools WHERE tool_name LIKE 'bulk_2%'`);
    await expectExact();
    await db.sql.query(`DELETE FROM mcp_tools WHERE tool_name = 'create_pix_charge'`);
    const kept = await expectExact();
    expect(kept.terms.pix).toBeUndefined();
    expect((await db.sql.query('SELECT 1 FROM mcp_tools_search_terms WHERE df <= 0')).rowCount).toBe(0);
    // A provider's deletion cascades to its tools.
    await db.sql.query(`DELETE FROM providers WHERE id = 'cepfacil'`);
    await expectExact();
  });

  it('takes a rolled-back transaction back', async () => {
    const before = await expectExact();
    await inTransaction(async (c) => {
      await insertTool(c, 'alfapay', 'rolled_back', 'A transient quokka tool');
      await c.query(`UPDATE mcp_tools SET description = 'Quokka ' || description WHERE tool_name LIKE 'bulk_4%'`);
      await c.query(`DELETE FROM mcp_tools WHERE tool_name LIKE 'bulk_5%'`);
      const inside = await c.query<{ df: number }>(`SELECT df FROM mcp_tools_search_terms WHERE lexeme = 'quokka'`);
      expect(inside.rows[0]!.df).toBeGreaterThan(1);
    }, 'ROLLBACK');
    expect(await expectExact()).toEqual(before);
  });

  it('stays exact under two writers at once, each running several statements, one rolling back', async () => {
    // The second writer's first statement waits for the first writer's commit
    // (the stats row), so neither can hold a lexeme the other waits for.
    const a = await db.sql.connect();
    const b = await db.sql.connect();
    try {
      await a.query('BEGIN');
      await b.query('BEGIN');
      await insertTool(a, 'alfapay', 'writer_a_1', 'Charge a customer voucher');
      let bDone = false;
      const bRun = (async () => {
        await insertTool(b, 'mensageiro', 'writer_b_1', 'Voucher for a customer charge');
        bDone = true;
        await insertTool(b, 'alfapay', 'writer_b_2', 'Charge a customer again');
        await b.query('COMMIT');
      })();
      await new Promise((r) => setTimeout(r, 200));
      expect(bDone).toBe(false);
      await insertTool(a, 'mensageiro', 'writer_a_2', 'Customer voucher charge');
      await a.query('COMMIT');
      await bRun;
    } finally {
      a.release();
      b.release();
    }
    await expectExact();

    // Two importers running concurrent transactions of several statements
    // (lexemes in opposite orders, shared tools upserted, some rolled back).
    const importer = async (seed: number) => {
      for (let round = 0; round < 6; round++) {
        const words = seed % 2 === 0 ? WORDS : [...WORDS].reverse();
        await inTransaction(
          async (c) => {
            for (const [i, w] of words.slice(round, round + 4).entries()) {
              await insertTool(
                c,
                i % 2 ? 'alfapay' : 'mensageiro',
                `imp_${seed}_${round}_${i}`,
                `Import ${w} ${seed} ${round}`,
              );
            }
            await c.query(
              `INSERT INTO mcp_tools (server_id, tool_name, description, description_hash) VALUES ('alfapay', 'shared_tool', $1, 'h')
               ON CONFLICT (server_id, tool_name, project_id) DO UPDATE SET description = excluded.description`,
              [`Shared ${words[round]} edited by ${seed}`],
            );
            await c.query(`DELETE FROM mcp_tools WHERE tool_name = $1`, [`imp_${seed}_${round - 1}_0`]);
          },
          round % 3 === 2 ? 'ROLLBACK' : 'COMMIT',
        );
      }
    };
    await Promise.all([importer(1), importer(2)]);
    await expectExact();
  });

  it('is emptied by TRUNCATE, cascaded or not, and rebuilt by a recount', async () => {
    await db.sql.query('TRUNCATE mcp_tools');
    expect(await expectExact()).toEqual({ documents: 0, totalLength: 0, terms: {} });
    await insertTool(db.sql, 'alfapay', 'after_truncate', 'Refund a charge');
    await db.sql.query('TRUNCATE providers CASCADE');
    expect(await expectExact()).toEqual({ documents: 0, totalLength: 0, terms: {} });

    // Rows written while the triggers were off are found by the recount the migration ran.
    await db.sql.query(
      `INSERT INTO providers (id, name, description, category, country, countries, auth_type, self_serve_auth, base_urls, status, sandbox_available)
       VALUES ('alfapay', 'Alfa Pay', 'Payments.', 'payments', 'BR', ARRAY['BR'], 'api_key', true, '{}'::jsonb, 'stable', true)`,
    );
    await db.sql.query('ALTER TABLE mcp_tools DISABLE TRIGGER mcp_tools_search_stats_insert');
    try {
      await insertTool(db.sql, 'alfapay', 'unseen', 'Refund a charge');
    } finally {
      await db.sql.query('ALTER TABLE mcp_tools ENABLE TRIGGER mcp_tools_search_stats_insert');
    }
    expect((await figures(KEPT)).documents).toBe(0);
    await db.sql.query('SELECT mcp_tools_search_stats_rebuild()');
    expect((await expectExact()).documents).toBe(1);
  });
});

describe("discover's lexical channel against the previous statement", () => {
  let db: TestDatabase;
  let current: DiscoverRepository;
  let previous: DiscoverRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.sql.query(`INSERT INTO orgs (id, name) VALUES ('org_1', 'Org')`);
    await db.sql.query(
      `INSERT INTO projects (id, org_id, name) VALUES ('proj_a', 'org_1', 'A'), ('proj_b', 'org_1', 'B')`,
    );
    for (const p of PROVIDERS) {
      await db.sql.query(
        `INSERT INTO providers (id, name, description, category, country, countries, auth_type, self_serve_auth, base_urls, status, sandbox_available)
         VALUES ($1, $2, $3, 'payments', 'BR', ARRAY['BR'], 'api_key', true, '{}'::jsonb, 'stable', true)`,
        [p.id, p.name, p.description],
      );
    }
    // Another project's tools count in the corpus figures as they always have, without being shown.
    await db.sql.query(
      `INSERT INTO mcp_tools (server_id, tool_name, description, description_hash, project_id)
       SELECT (ARRAY['alfapay', 'mensageiro', 'cepfacil'])[1 + i % 3], 'tool_' || i,
              initcap(($1::text[])[1 + i % 12]) || ' the ' || ($1::text[])[1 + (i * 7) % 12] || ' of a ' || ($1::text[])[1 + (i * 5) % 12]
              || repeat(' and its ' || ($1::text[])[1 + (i * 3) % 12], i % 4), 'h', CASE WHEN i % 10 = 0 THEN 'proj_b' END
       FROM generate_series(1, 300) i`,
      [WORDS],
    );
    await db.sql.query(`UPDATE providers SET name = 'Zapzap Gateway' WHERE id = 'mensageiro'`);
    await db.sql.query(`DELETE FROM mcp_tools WHERE tool_name LIKE 'tool_2_%'`);
    const config = DiscoverConfig.parse({});
    current = DiscoverRepository.connect(db.url, config, 1, 'current');
    previous = DiscoverRepository.connect(db.url, config, 1, 'previous');
  });
  afterAll(async () => {
    await current?.close();
    await previous?.close();
    await db?.drop();
  });

  const query = (text: string, expansion: string, scanCap: number, scoreCap = 0): CandidateQuery => ({
    projectId: 'proj_a',
    environment: 'live',
    text,
    vector: null,
    model: null,
    category: null,
    country: null,
    candidates: 30,
    lexical: { text, expansion, expansionWeight: 0.5, k1: 1.2, b: 0.75, fieldWeights: [2, 1, 1, 0], scanCap, scoreCap },
  });

  // The catalog above repeats its texts, so many rows tie: the two statements
  // may keep different rows among those tied at the cut, never other scores.
  // Scores agree to rounding: the order in which a row's terms are added
  // follows the plan, which moves the last digit or two.
  const scores = (rows: Array<{ lexicalScore: number | null }>) =>
    rows.map((r) => r.lexicalScore!).sort((x, y) => x - y);
  const expectSameScores = (a: number[], b: number[]) => {
    expect(a.length).toBe(b.length);
    a.forEach((x, i) => expect(Math.abs(x - b[i]!)).toBeLessThanOrEqual(1e-12 * Math.abs(x)));
  };
  it.each([
    ['refund the customer charge', '', 2000],
    ['zapzap message', 'chat', 2000],
    ['estornar cobrança', 'refund charge', 2000],
    ['ledger balance report voucher street', '', 50],
    ['the ledger of a customer', 'report', 40],
    ['postal', 'street', 10],
    ['qwxz', '', 2000],
  ])('scores %j as the previous statement did (expansion %j, scan cap %d)', async (text, expansion, cap) => {
    const a = await current.candidates(query(text, expansion, cap));
    const b = await previous.candidates(query(text, expansion, cap));
    expectSameScores(scores(a), scores(b));
    const before = new Map(b.map((r) => [`${r.serverId}/${r.toolName}`, r]));
    for (const r of a) {
      const same = before.get(`${r.serverId}/${r.toolName}`);
      if (same) expect({ ...r, lexicalScore: expect.closeTo(same.lexicalScore!, 10) }).toEqual(same);
    }
    expect(a.every((r) => r.fromLexicalPass)).toBe(true);
    if (text !== 'qwxz') expect(a.length).toBeGreaterThan(0);
  });

  it('scores at most the score cap of rows, those holding the most query words, each with its exact BM25', async () => {
    // 'ledger' and 'customer' each stand in many rows; some rows hold both.
    const both = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM mcp_tools WHERE search_document @@ 'ledger & custom'::tsquery AND coalesce(project_id, 'proj_a') = 'proj_a'`,
    );
    const one = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM mcp_tools WHERE search_document @@ 'ledger'::tsquery AND coalesce(project_id, 'proj_a') = 'proj_a'`,
    );
    expect(both.rows[0]!.n).toBeGreaterThanOrEqual(4);
    expect(one.rows[0]!.n).toBeGreaterThan(both.rows[0]!.n);
    // A scan cap below 'customer''s rows leaves 'ledger' the only seek term: one step, so the cap bounds the rows.
    const capped = await current.candidates(query('ledger customer', '', 1, 4));
    expect(capped).toHaveLength(4);
    const uncapped = await previous.candidates(query('ledger customer', '', 1));
    const exact = new Map(uncapped.map((r) => [`${r.serverId}/${r.toolName}`, r.lexicalScore!]));
    const holdsBoth = await db.sql.query<{ k: string }>(
      `SELECT server_id || '/' || tool_name AS k FROM mcp_tools WHERE search_document @@ 'ledger & custom'::tsquery`,
    );
    const bothKeys = new Set(holdsBoth.rows.map((r) => r.k));
    for (const r of capped) {
      const key = `${r.serverId}/${r.toolName}`;
      expect(bothKeys.has(key)).toBe(true);
      if (exact.has(key)) expect(r.lexicalScore).toBeCloseTo(exact.get(key)!, 10);
    }
    // With no cap (0), every row found is scored, as before.
    expectSameScores(scores(await current.candidates(query('ledger customer', '', 1, 0))), scores(uncapped));
  });

  it('agrees whether the rows of the most common seek term are searched or skipped', async () => {
    // With the scan cap just above the rarer term's rows, both terms seek and
    // the commoner one is the second step's; the second step then runs or not
    // depending on the first step's scores, and the answer must not show it.
    const { rows } = await db.sql.query<{ lexeme: string; df: number }>(
      `SELECT lexeme, df FROM mcp_tools_search_terms WHERE lexeme IN ('ledger', 'custom') ORDER BY df`,
    );
    expect(rows.length).toBe(2);
    for (const [text, cap] of [
      ['ledger customer', rows[0]!.df + 1],
      ['ledger customer customer report', rows[0]!.df + 1],
      ['ledger customer', 100_000],
    ] as const) {
      const a = await current.candidates(query(text, '', cap));
      const b = await previous.candidates(query(text, '', cap));
      expectSameScores(scores(a), scores(b));
      expect(a.length).toBeGreaterThan(0);
    }
  });
});
