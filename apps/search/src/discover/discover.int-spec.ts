import 'reflect-metadata';
import { AppError, DiscoverResult, type Tenant } from '@rota/contracts';
import { LocalEmbedder } from '@rota/catalog/local-embedder';
import { toVectorLiteral } from '@rota/catalog/embedder';
import { toolEmbeddingText } from '@rota/catalog/text';
import { createTestDatabase, type TestDatabase } from '@rota/db';
import {
  BaseConfig,
  loadConfig,
  requestContext,
  RpcClient,
  startService,
  type StartedService,
} from '@rota/service-kit';
import { testPrefix } from '@rota/service-kit/testing/redis-server';
import { SearchConfig } from '../config';
import { SearchModule } from '../search.module';
import { DiscoverConfig } from './config';
import { DiscoverRepository } from './discover.repository';
import { DiscoverService } from './discover.service';
import { trigramScore, type Candidate } from './ranking';

/**
 * A small catalog written for these tests. Two providers carry the same Pix
 * tool so a connection alone can decide between them; a bank behind a client
 * certificate has the best transfer tool; one tool belongs to project B only.
 */
const PROVIDERS = [
  {
    id: 'alfapay',
    name: 'Alfa Pay',
    category: 'payments',
    country: 'BR',
    auth: 'api_key',
    description: 'Collects payments for small shops in Brazil.',
  },
  {
    id: 'betapay',
    name: 'Beta Pay',
    category: 'payments',
    country: 'BR',
    auth: 'api_key',
    description: 'Collects payments for small shops in Brazil.',
  },
  {
    id: 'bancocerto',
    name: 'Banco Certo',
    category: 'banking',
    country: 'BR',
    auth: 'certificate',
    description: 'Corporate bank with an API for transfers and statements.',
  },
  {
    id: 'easybank',
    name: 'Easy Bank',
    category: 'payments',
    country: 'BR',
    auth: 'api_key',
    description: 'Digital account for freelancers.',
  },
  {
    id: 'mensageiro',
    name: 'Mensageiro',
    category: 'communication',
    country: 'BR',
    auth: 'two_header',
    description: 'WhatsApp messaging gateway.',
  },
  {
    id: 'cepfacil',
    name: 'Cep Facil',
    category: 'logistics',
    country: 'BR',
    auth: 'none',
    description: 'Free lookup of Brazilian addresses.',
  },
  {
    id: 'mxpagos',
    name: 'MX Pagos',
    category: 'payments',
    country: 'MX',
    auth: 'api_key',
    description: 'Cash and card payments in Mexico.',
  },
] as const;

const TOOLS: Array<{ server: string; name: string; description: string; project?: string; model?: string }> = [
  {
    server: 'alfapay',
    name: 'create_pix_charge',
    description: 'Create a Pix charge for a customer and return its QR code and copy-and-paste code.',
  },
  {
    server: 'betapay',
    name: 'create_pix_charge',
    description: 'Create a Pix charge for a customer and return its QR code and copy-and-paste code.',
  },
  { server: 'bancocerto', name: 'send_pix', description: 'Send a Pix transfer from the company account to a Pix key.' },
  {
    server: 'bancocerto',
    name: 'export_statement_ofx',
    description: 'Export the account statement of a period as an OFX file.',
  },
  {
    server: 'easybank',
    name: 'transfer_funds',
    description: 'Move money out of the account to another bank account or key.',
  },
  { server: 'mensageiro', name: 'send_text', description: 'Send a WhatsApp text message to a phone number.' },
  {
    server: 'cepfacil',
    name: 'lookup_postal_code',
    description: 'Return the street, district and city of an eight-digit CEP.',
  },
  {
    server: 'mxpagos',
    name: 'create_cash_voucher',
    description: 'Generate a cash payment reference payable at convenience stores.',
  },
  {
    server: 'alfapay',
    name: 'nightly_warehouse_report',
    description: 'Build the nightly reconciliation report for the warehouse team.',
    project: 'proj_b',
  },
  {
    server: 'alfapay',
    name: 'legacy_refund',
    description: 'Refund a legacy charge created before the migration.',
    model: 'some-older-model',
  },
];

const SELF_SERVE = new Set(['api_key', 'basic', 'oauth2', 'none']);

async function seedCatalog(db: TestDatabase, embedder: LocalEmbedder) {
  await db.prisma.$executeRaw`INSERT INTO orgs (id, name) VALUES ('org_1', 'Org')`;
  await db.prisma
    .$executeRaw`INSERT INTO projects (id, org_id, name) VALUES ('proj_a', 'org_1', 'A'), ('proj_b', 'org_1', 'B')`;
  for (const p of PROVIDERS) {
    await db.prisma.$executeRaw`
      INSERT INTO providers (id, name, description, category, country, countries, auth_type, self_serve_auth, base_urls, status, sandbox_available)
      VALUES (${p.id}, ${p.name}, ${p.description}, ${p.category}, ${p.country}, ARRAY[${p.country}]::text[], ${p.auth}, ${SELF_SERVE.has(p.auth)}, '{}'::jsonb, 'stable', true)`;
  }
  for (const t of TOOLS) {
    const provider = PROVIDERS.find((p) => p.id === t.server)!;
    const vector = toVectorLiteral(
      embedder.embedOne(
        toolEmbeddingText({ providerName: provider.name, toolName: t.name, description: t.description }),
      ),
    );
    await db.prisma.$executeRaw`
      INSERT INTO mcp_tools (server_id, tool_name, description, http_method, endpoint_template, project_id, description_hash, embedding, embedding_model, embedded_at)
      VALUES (${t.server}, ${t.name}, ${t.description}, 'POST', ${`/${t.name}`}, ${t.project ?? null}, 'h', ${vector}::vector, ${t.model ?? embedder.model}, now())`;
  }
}

async function connect(db: TestDatabase, project: string, environment: 'live' | 'test', server: string) {
  await db.prisma.$executeRaw`
    INSERT INTO connections (id, project_id, environment, server_id, status)
    VALUES (${`con_${project}_${environment}_${server}`}, ${project}, ${environment}::environment, ${server}, 'connected')`;
}

async function disconnectAll(db: TestDatabase) {
  await db.prisma.$executeRaw`DELETE FROM connections`;
}

const ranked = (r: DiscoverResult) => [r.recommended, ...r.related].filter((m) => m !== null).map((m) => m.tool);

describe('codespar_discover against Postgres', () => {
  let db: TestDatabase;
  const embedder = new LocalEmbedder();
  const config = DiscoverConfig.parse({});
  let withVectors: DiscoverService;
  let trigramOnly: DiscoverService;
  let repo: DiscoverRepository;

  /** The tenant rides in the request context, as the transport delivers it. */
  const asTenant = <T>(o: Partial<Omit<Tenant, 'org_id'>>, fn: () => Promise<T>) =>
    requestContext.run(
      {
        requestId: 'test',
        tenant: { org_id: 'org_1', project_id: o.project_id ?? 'proj_a', environment: o.environment ?? 'live' },
      },
      fn,
    );
  const ask = (svc: DiscoverService, input: Record<string, unknown>, o: Partial<Omit<Tenant, 'org_id'>> = {}) =>
    asTenant(o, () => svc.discover({ input }));

  beforeAll(async () => {
    db = await createTestDatabase();
    await seedCatalog(db, embedder);
    repo = DiscoverRepository.connect(db.url, config, 2);
    withVectors = new DiscoverService(repo, embedder, config);
    trigramOnly = new DiscoverService(repo, null, config);
  });
  afterAll(async () => {
    await repo.close();
    await db.drop();
  });
  afterEach(() => disconnectAll(db));

  it('answers in the published shape, each match with its own scores', async () => {
    const res = await ask(withVectors, { use_case: 'create a pix charge for a customer' });
    expect(DiscoverResult.parse(res)).toEqual(res);
    expect(res.search_strategy).toBe('embedding');
    const top = res.recommended ?? res.related[0]!;
    expect(top.tool).toBe(`${top.server_id}/${top.tool_name}`);
    expect(top.cosine_distance).toEqual(expect.any(Number));
    expect(top.trigram_similarity).toEqual(expect.any(Number));
    expect(ranked(res).slice(0, 2).sort()).toEqual(['alfapay/create_pix_charge', 'betapay/create_pix_charge']);
  });

  it('lets a connection decide between two equal rails (connection bonus)', async () => {
    const before = ranked(await ask(withVectors, { use_case: 'create a pix charge for a customer' }));
    const [first, second] = before;
    expect([first, second].sort()).toEqual(['alfapay/create_pix_charge', 'betapay/create_pix_charge']);
    const secondServer = second!.split('/')[0]!;
    await connect(db, 'proj_a', 'live', secondServer);
    const after = await ask(withVectors, { use_case: 'create a pix charge for a customer' });
    expect(ranked(after).slice(0, 2)).toEqual([second, first]);
    const connected = [after.recommended, ...after.related].find((m) => m?.server_id === secondServer)!;
    expect(connected.connection_status).toBe('connected');
    // The connection belongs to live only: the test environment still sees the first order.
    expect(
      ranked(await ask(withVectors, { use_case: 'create a pix charge for a customer' }, { environment: 'test' })).slice(
        0,
        2,
      ),
    ).toEqual([first, second]);
  });

  it('buries a disconnected certificate rail in test, not in live, and not once it is connected', async () => {
    const useCase = 'send a pix transfer from the company account to a pix key';
    const live = ranked(await ask(withVectors, { use_case: useCase }));
    expect(live[0]).toBe('bancocerto/send_pix');
    // Every match is listed, so the buried rails show at the end.
    const test = await ask(withVectors, { use_case: useCase, limit: 20 }, { environment: 'test' });
    const order = ranked(test);
    expect(order.indexOf('bancocerto/send_pix')).toBeGreaterThan(order.indexOf('easybank/transfer_funds'));
    expect(order[order.length - 1]!.startsWith('bancocerto/')).toBe(true);
    await connect(db, 'proj_a', 'test', 'bancocerto');
    expect(ranked(await ask(withVectors, { use_case: useCase }, { environment: 'test' }))[0]).toBe(
      'bancocerto/send_pix',
    );
  });

  it('never shows a tool generated for another project', async () => {
    const useCase = 'nightly reconciliation report for the warehouse team';
    const other = await ask(withVectors, { use_case: useCase, limit: 20 });
    expect(ranked(other)).not.toContain('alfapay/nightly_warehouse_report');
    const other2 = await ask(trigramOnly, { use_case: useCase, limit: 20 });
    expect(ranked(other2)).not.toContain('alfapay/nightly_warehouse_report');
    const owner = await ask(withVectors, { use_case: useCase }, { project_id: 'proj_b' });
    expect(owner.recommended?.tool).toBe('alfapay/nightly_warehouse_report');
  });

  it('gives the same candidates when the lexical channel starts before the query vector is ready', async () => {
    const base = {
      projectId: 'proj_a',
      environment: 'live' as const,
      candidates: 30,
      lexical: {
        text: '',
        expansion: '',
        expansionWeight: 0.5,
        k1: 1.2,
        b: 0.75,
        fieldWeights: [2, 1, 1, 0] as [number, number, number, number],
        scanCap: 2000,
        scoreCap: 400,
      },
    };
    const key = (r: { serverId: string; toolName: string; projectId: string | null }) =>
      `${r.serverId}/${r.toolName}/${r.projectId}`;
    const cases: Array<{ text: string; category: string | null; country: string | null }> = [
      { text: 'create a pix charge for a customer', category: null, country: null },
      { text: 'send a whatsapp message', category: null, country: null },
      { text: 'transfer money to another bank account', category: 'payments', country: 'BR' },
      { text: 'cash voucher', category: null, country: 'MX' },
      { text: 'zzqx nothing matches this', category: null, country: null },
    ];
    for (const c of cases) {
      const q = {
        ...base,
        text: c.text,
        category: c.category,
        country: c.country,
        lexical: { ...base.lexical, text: c.text },
      };
      const vector = embedder.embedOne(c.text);
      const together = await repo.candidates({ ...q, vector, model: embedder.model });
      let resolve!: (v: { vector: Float32Array; model: string } | null) => void;
      const pending = new Promise<{ vector: Float32Array; model: string } | null>((r) => (resolve = r));
      const split = repo.candidatesWhileEmbedding(q, pending);
      // The vector arrives later than the lexical statement's answer.
      await new Promise((r) => setTimeout(r, 30));
      resolve({ vector, model: embedder.model });
      const apart = await split;
      const byKey = new Map(together.map((r) => [key(r), r]));
      expect(apart.map(key).sort()).toEqual(together.map(key).sort());
      for (const r of apart) {
        const t = byKey.get(key(r))!;
        expect({ ...r, cosineDistance: null, lexicalScore: null }).toEqual({
          ...t,
          cosineDistance: null,
          lexicalScore: null,
        });
        if (t.cosineDistance === null) expect(r.cosineDistance).toBeNull();
        else expect(r.cosineDistance).toBeCloseTo(t.cosineDistance, 9);
        if (t.lexicalScore === null) expect(r.lexicalScore).toBeNull();
        else expect(r.lexicalScore).toBeCloseTo(t.lexicalScore, 9);
      }
      // No vector after all: the lexical channel's rows alone, as with no embedder.
      const lexicalAlone = await repo.candidates({ ...q, vector: null, model: null });
      const none = await repo.candidatesWhileEmbedding(q, Promise.resolve(null));
      expect(none.map(key).sort()).toEqual(lexicalAlone.map(key).sort());
      // Scored by the second statement from the first one's rows, not searched again: the same fields and scores.
      const alone = new Map(lexicalAlone.map((r) => [key(r), r]));
      for (const r of none) {
        const t = alone.get(key(r))!;
        expect({ ...r, lexicalScore: null }).toEqual({ ...t, lexicalScore: null });
        if (t.lexicalScore === null) expect(r.lexicalScore).toBeNull();
        else expect(r.lexicalScore).toBeCloseTo(t.lexicalScore, 9);
      }
    }
  });

  describe('the lexical channel (BM25 in Postgres)', () => {
    const lexicalOnly = () =>
      new DiscoverService(repo, embedder, DiscoverConfig.parse({ ROTA_DISCOVER_CHANNELS: 'lexical' }));
    /** The lexical channel's rows, best BM25 first (the repository returns candidates unordered; ranking is the service's). */
    const bm25Query = async (text: string, extra: Partial<Parameters<DiscoverRepository['candidates']>[0]> = {}) =>
      (
        await repo.candidates({
          projectId: 'proj_a',
          environment: 'live',
          text,
          vector: null,
          model: null,
          category: null,
          country: null,
          candidates: 30,
          lexical: {
            text,
            expansion: '',
            expansionWeight: 0.5,
            k1: 1.2,
            b: 0.75,
            fieldWeights: [1, 1, 1, 1],
            scanCap: 2000,
          },
          ...extra,
        })
      )
        .filter((r) => (r.lexicalScore ?? 0) > 0)
        .sort((a, b) => b.lexicalScore! - a.lexicalScore!);

    it('scores a term with Okapi BM25 over the document its trigger keeps', async () => {
      // "ofx" is in one tool's name and description: idf and tf come straight from the table.
      const [{ n, avgdl, len, tf }] = await db.prisma.$queryRaw<
        [{ n: number; avgdl: number; len: number; tf: number }]
      >`
        SELECT (SELECT count(*)::float8 FROM mcp_tools) AS n, (SELECT avg(search_length)::float8 FROM mcp_tools) AS avgdl,
               t.search_length::float8 AS len,
               (SELECT array_length(u.positions, 1)::float8 FROM unnest(t.search_document) u WHERE u.lexeme = 'ofx') AS tf
        FROM mcp_tools t WHERE t.tool_name = 'export_statement_ofx'`;
      expect(tf).toBe(2);
      const idf = Math.log(1 + (n - 1 + 0.5) / (1 + 0.5));
      const expected = (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * len) / avgdl));
      const rows = await bm25Query('OFX');
      expect(rows.map((r) => `${r.serverId}/${r.toolName}`)).toEqual(['bancocerto/export_statement_ofx']);
      expect(rows[0]!.fromLexicalPass).toBe(true);
      expect(rows[0]!.lexicalScore).toBeCloseTo(expected, 6);
    });

    it('stems and folds accents, and weighs fields', async () => {
      // "Exporting statements" meets "Export the account statement" through the English stemmer.
      const rows = await bm25Query('Exporting státements');
      expect(`${rows[0]!.serverId}/${rows[0]!.toolName}`).toBe('bancocerto/export_statement_ofx');
      // A provider's own name finds its tools; weighing the provider name at 0 loses them.
      const byName = await bm25Query('Mensageiro');
      expect(byName.map((r) => r.toolName)).toEqual(['send_text']);
      const unweighted = await bm25Query('Mensageiro', {
        lexical: {
          text: 'Mensageiro',
          expansion: '',
          expansionWeight: 0,
          k1: 1.2,
          b: 0.75,
          fieldWeights: [1, 1, 0, 1],
          scanCap: 2000,
        },
      });
      expect(unweighted).toEqual([]);
    });

    it('brings its own candidates, whether or not the rows have vectors', async () => {
      await db.prisma.$executeRaw`
        INSERT INTO mcp_tools (server_id, tool_name, description, description_hash)
        VALUES ('cepfacil', 'validate_cnpj', 'Check the digits of a Brazilian company registration number (CNPJ).', 'h')`;
      try {
        const res = await ask(withVectors, { use_case: 'validate a CNPJ registration number' });
        expect(res.channels).toEqual(['lexical', 'vector']);
        expect(ranked(res)[0]).toBe('cepfacil/validate_cnpj');
        const hit = [res.recommended, ...res.related].find((m) => m?.tool === 'cepfacil/validate_cnpj');
        expect(hit?.cosine_distance).toBeNull();
      } finally {
        await db.prisma.$executeRaw`DELETE FROM mcp_tools WHERE tool_name = 'validate_cnpj'`;
      }
    });

    it('keeps the index current when a provider is renamed', async () => {
      await db.prisma.$executeRaw`UPDATE providers SET name = 'Zapzap Gateway' WHERE id = 'mensageiro'`;
      try {
        expect((await bm25Query('zapzap')).map((r) => r.toolName)).toEqual(['send_text']);
        expect(await bm25Query('Mensageiro')).toEqual([]);
      } finally {
        await db.prisma.$executeRaw`UPDATE providers SET name = 'Mensageiro' WHERE id = 'mensageiro'`;
      }
    });

    it('answers alone, and in Portuguese and Spanish through the English rendering of the request', async () => {
      const svc = lexicalOnly();
      const pt = await ask(svc, { use_case: 'exportar o extrato da conta em arquivo OFX' });
      expect(pt.channels).toEqual(['lexical']);
      expect(pt.search_strategy).toBe('trigram');
      expect(ranked(pt)[0]).toBe('bancocerto/export_statement_ofx');
      const es = await ask(svc, {
        use_case: 'generar una referencia de pago en efectivo para tiendas de conveniencia',
      });
      expect(ranked(es)[0]).toBe('mxpagos/create_cash_voucher');
      // Another project's tool stays out of this channel too.
      expect(ranked(await ask(svc, { use_case: 'nightly warehouse reconciliation report', limit: 20 }))).not.toContain(
        'alfapay/nightly_warehouse_report',
      );
    });
  });

  it('reports embedding, trigram and empty strategies', async () => {
    expect((await ask(withVectors, { use_case: 'look up a street from a CEP' })).search_strategy).toBe('embedding');
    const lexical = await ask(trigramOnly, { use_case: 'look up a street from a CEP' });
    expect(lexical.search_strategy).toBe('trigram');
    for (const m of [lexical.recommended, ...lexical.related]) if (m) expect(m.cosine_distance).toBeNull();
    const empty = await ask(withVectors, { use_case: 'qwxz vbnmk' });
    expect(empty).toMatchObject({
      search_strategy: 'empty',
      recommended: null,
      recommended_reason: 'no_match',
      related: [],
    });
  });

  it('finds a lexical match that pg_trgm at its default 0.3 threshold would drop', async () => {
    const useCase = 'which district is this CEP in';
    const [{ sim }] = await db.prisma.$queryRaw<[{ sim: number }]>`
      SELECT greatest(similarity(tool_name, ${useCase}), similarity(description, ${useCase})) AS sim FROM mcp_tools WHERE tool_name = 'lookup_postal_code'`;
    expect(sim).toBeGreaterThanOrEqual(0.1);
    expect(sim).toBeLessThan(0.3);
    const res = await ask(trigramOnly, { use_case: useCase });
    const hit = [res.recommended, ...res.related].find((m) => m?.tool === 'cepfacil/lookup_postal_code');
    expect(hit?.trigram_similarity).toBeGreaterThanOrEqual(sim);
    // The lowered threshold lived only inside the discover transaction.
    const [{ t }] = await db.prisma.$queryRaw<
      [{ t: string }]
    >`SELECT current_setting('pg_trgm.similarity_threshold') AS t`;
    expect(Number(t)).toBeCloseTo(0.3, 5);
  });

  it('shows each shown match its pg_trgm similarities, measured for the shown rows only', async () => {
    const useCase = 'create a pix charge for a customer';
    const spy = jest.spyOn(repo, 'similarities');
    try {
      const res = await ask(withVectors, { use_case: useCase, limit: 3 });
      const shown = [res.recommended, ...res.related].filter((m): m is NonNullable<typeof m> => m !== null);
      expect(shown.length).toBeGreaterThan(1);
      // One statement, for exactly the rows shown (not the whole candidate union).
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.calls[0]![1]).toHaveLength(shown.length);
      const s = {
        trigramThreshold: config.ROTA_DISCOVER_TRIGRAM_THRESHOLD,
        providerWeight: config.ROTA_DISCOVER_PROVIDER_WEIGHT,
      };
      for (const m of shown) {
        const [row] = await db.prisma.$queryRaw<Array<{ n: number; d: number; pn: number; pd: number }>>`
          SELECT similarity(t.tool_name, ${useCase}) AS n, similarity(t.description, ${useCase}) AS d,
                 similarity(p.name, ${useCase}) AS pn, similarity(p.description, ${useCase}) AS pd
          FROM mcp_tools t JOIN providers p ON p.id = t.server_id AND p.owner = t.server_owner
          WHERE t.server_id = ${m.server_id} AND t.tool_name = ${m.tool_name}`;
        const expected = trigramScore(
          {
            nameSimilarity: row!.n,
            descriptionSimilarity: row!.d,
            providerNameSimilarity: row!.pn,
            providerDescriptionSimilarity: row!.pd,
          } as Candidate,
          s,
        );
        if (expected === null) expect(m.trigram_similarity).toBeNull();
        else expect(m.trigram_similarity).toBeCloseTo(expected, 3);
      }
    } finally {
      spy.mockRestore();
    }
  });

  it('leaves rows embedded by another model out of the vector pass', async () => {
    const res = await ask(withVectors, { use_case: 'refund a legacy charge created before the migration', limit: 20 });
    const legacy = [res.recommended, ...res.related].find((m) => m?.tool === 'alfapay/legacy_refund');
    expect(legacy).toBeDefined();
    expect(legacy!.cosine_distance).toBeNull();
    expect(legacy!.trigram_similarity).toBeGreaterThan(0.3);
  });

  it('gives recommended_reason for every null recommendation', async () => {
    const native = await ask(withVectors, { use_case: 'enviar uma mensagem de WhatsApp para o cliente' });
    expect(native).toMatchObject({ recommended: null, recommended_reason: 'native_meta_tool' });
    expect(native.meta_tools[0]).toBe('codespar_notify');
    expect(native.next_steps[0]).toContain('codespar_notify');
    expect(ranked(native)).toContain('mensageiro/send_text');

    const blocked = await ask(
      withVectors,
      { use_case: 'export the account statement as an OFX file', category: 'banking' },
      { environment: 'test' },
    );
    expect(blocked).toMatchObject({ recommended: null, recommended_reason: 'blocked_in_test', meta_tools: [] });
    expect(blocked.related[0]!.tool).toBe('bancocerto/export_statement_ofx');
    expect(blocked.related[0]!.known_pitfalls.join(' ')).toContain('client certificate');

    const none = await ask(withVectors, { use_case: 'qwxz vbnmk' });
    expect(none.recommended_reason).toBe('no_match');
  });

  it('filters by category and by country, global providers included', async () => {
    const mx = ranked(
      await ask(withVectors, { use_case: 'cash payment reference at a convenience store', country: 'MX', limit: 20 }),
    );
    expect(mx[0]).toBe('mxpagos/create_cash_voucher');
    expect(mx.every((t) => t.startsWith('mxpagos/'))).toBe(true);
    const logistics = ranked(
      await ask(withVectors, { use_case: 'create a pix charge', category: 'logistics', limit: 20 }),
    );
    expect(logistics.every((t) => t.startsWith('cepfacil/'))).toBe(true);
  });

  describe('over the transport', () => {
    let service: StartedService;
    let rpc: RpcClient;

    beforeAll(async () => {
      const env = {
        ...(process.env as Record<string, string>),
        DATABASE_URL: db.url,
        ROTA_REDIS_PREFIX: testPrefix('discover'),
        LOG_LEVEL: 'silent',
        ROTA_EMBEDDER: 'local',
        // The catalog above holds vectors of the hashing model.
        ROTA_LOCAL_EMBEDDER: 'hash',
        OPENAI_API_KEY: '',
      };
      const base = loadConfig(BaseConfig, env);
      service = await startService('search', SearchModule.forConfig(loadConfig(SearchConfig, env)), base);
      rpc = new RpcClient({ url: base.REDIS_URL, prefix: base.ROTA_REDIS_PREFIX, timeoutMs: 10_000 });
      await rpc.connect();
    });
    afterAll(async () => {
      await rpc.close();
      await service.app.close();
    });

    it('answers search.discover', async () => {
      const res = await asTenant({}, () =>
        rpc.send('search.discover', { input: { query: 'look up a street from a CEP' } }),
      );
      expect(DiscoverResult.safeParse(res).success).toBe(true);
      expect(ranked(res)[0]).toBe('cepfacil/lookup_postal_code');
      expect(res.recommended?.connection_status).toBe('not_required');
    });

    it('refuses an input without use_case or query with invalid_args', async () => {
      const err = await asTenant({}, () => rpc.send('search.discover', { input: { use_case: ' ', limit: 5 } })).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('invalid_args');
      expect((err as AppError).status).toBe(400);
    });

    it('refuses a malformed envelope with invalid_body', async () => {
      const err = await asTenant({}, () => rpc.send('search.discover', { use_case: 'x' } as never)).catch(
        (e: unknown) => e,
      );
      expect((err as AppError).code).toBe('invalid_body');
    });
  });
});
