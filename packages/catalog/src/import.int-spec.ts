import { createTestDatabase, seed, type TestDatabase } from '@rota/db';
import { testPrefix } from '@rota/service-kit/testing/redis-server';
import IORedis from 'ioredis';
import { fromVectorLiteral, LOCAL_EMBEDDING_MODEL, LocalEmbedder } from '.';
import { CatalogFormatError, parseCatalogText, parseCatalogValue, parseRotaCatalog } from './format';
import { smallCatalog, SMALL_CATALOG_TOOLS } from './fixtures/small-catalog';
import { importCatalog } from './import';
import { importAndRequestSweep } from './service';
import { CatalogQueue } from './queue';
import { embedBatch, staleBatches } from './reembed';
import { CatalogRepository, VECTOR_INDEX_DEFINITION } from './repository';
import { descriptionHash, toolEmbeddingText } from './text';

const model = LOCAL_EMBEDDING_MODEL;

async function toolRows(db: TestDatabase) {
  return db.prisma.$queryRawUnsafe<
    Array<{
      server_id: string;
      tool_name: string;
      description: string;
      description_hash: string;
      embedding_model: string | null;
      has_vec: boolean;
      project_id: string | null;
      updated_at: Date;
    }>
  >(
    `SELECT server_id, tool_name, description, description_hash, embedding_model, embedding IS NOT NULL AS has_vec, project_id, updated_at FROM mcp_tools ORDER BY server_id, tool_name, project_id`,
  );
}

describe('importCatalog', () => {
  let db: TestDatabase;
  let redis: IORedis;
  let queue: CatalogQueue;
  /** The index as the migrations leave it. */
  let migratedIndexDefinition: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    const [row] = await db.prisma.$queryRawUnsafe<Array<{ indexdef: string }>>(
      `SELECT indexdef FROM pg_indexes WHERE indexname = 'mcp_tools_embedding_hnsw_idx'`,
    );
    migratedIndexDefinition = row!.indexdef;
    // The migrations leave the index as the code defines it (Postgres quotes the parameters).
    const [, m, efConstruction] = /m = (\d+), ef_construction = (\d+)/.exec(VECTOR_INDEX_DEFINITION)!;
    expect(migratedIndexDefinition).toContain(`WITH (m='${m}', ef_construction='${efConstruction}')`);
    redis = new IORedis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    queue = new CatalogQueue(redis, CatalogQueue.prefixFor(testPrefix('catalog')));
  });

  afterAll(async () => {
    await queue?.queue.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    redis?.disconnect();
    await db?.drop();
  });

  it('imports providers and tools, and a second import of the same file changes nothing and queues nothing', async () => {
    const doc = parseRotaCatalog(smallCatalog());
    const first = await importAndRequestSweep(db.prisma, queue, doc, { model });
    expect(first.result).toMatchObject({
      providers: { created: 3, updated: 0, unchanged: 0 },
      tools: { created: SMALL_CATALOG_TOOLS, updated: 0, unchanged: 0, removed: 0 },
      reembed: SMALL_CATALOG_TOOLS,
    });
    expect(first.sweepRequested).toBe(true);
    const jobsAfterFirst = await queue.queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
    expect(jobsAfterFirst.map((j) => j.name)).toEqual(['catalog.sweep']);
    // Take the sweep off the queue as a worker would, so we can see whether a new one appears.
    await queue.queue.drain(true);

    const before = await toolRows(db);
    const second = await importAndRequestSweep(db.prisma, queue, parseRotaCatalog(smallCatalog()), { model });
    expect(second.result).toMatchObject({
      providers: { created: 0, updated: 0, unchanged: 3 },
      tools: { created: 0, updated: 0, unchanged: SMALL_CATALOG_TOOLS, removed: 0 },
      reembed: 0,
    });
    expect(second.sweepRequested).toBe(false);
    expect(await queue.queue.getJobCountByTypes('waiting', 'active', 'delayed', 'prioritized')).toBe(0);
    expect(await toolRows(db)).toEqual(before);

    const providers = await db.prisma.provider.findMany({ orderBy: { id: 'asc' } });
    expect(providers.map((p) => [p.id, p.country, p.countries, p.authType, p.selfServeAuth])).toEqual([
      ['facturamx', 'MX', ['MX'], 'certificate', false],
      ['pixpay', 'BR', ['BR'], 'api_key', true],
      ['zapmsg', 'BR', ['BR', 'AR'], 'two_header', false],
    ]);
    const row = before.find((r) => r.tool_name === 'create_pix_charge')!;
    expect(row.description_hash).toBe(
      descriptionHash(
        model,
        toolEmbeddingText({ providerName: 'PixPay', toolName: 'create_pix_charge', description: row.description }),
      ),
    );
  });

  it('an edited description gets a new hash and loses its vector; other rows keep theirs', async () => {
    const embedder = new LocalEmbedder();
    for await (const batch of staleBatches(db.prisma, model, 100))
      await embedBatch(db.prisma, embedder, { ids: batch.map((b) => b.id) });
    expect((await toolRows(db)).every((r) => r.has_vec && r.embedding_model === model)).toBe(true);

    const edited = smallCatalog();
    edited.servers[0]!.tools[1]!.description = 'Reads the current state of a Pix charge by its id.';
    const before = await toolRows(db);
    const res = await importCatalog(db.prisma, parseRotaCatalog(edited), { model });
    expect(res.tools).toEqual({ created: 0, updated: 1, unchanged: SMALL_CATALOG_TOOLS - 1, removed: 0 });
    expect(res.reembed).toBe(1);
    const after = await toolRows(db);
    const changed = after.filter((r, i) => r.description_hash !== before[i]!.description_hash);
    expect(changed.map((r) => [r.tool_name, r.has_vec, r.embedding_model])).toEqual([['get_pix_charge', false, null]]);
    expect(after.filter((r) => r.has_vec)).toHaveLength(SMALL_CATALOG_TOOLS - 1);
  });

  it('a change outside the embedded text (schema, endpoint) keeps the vector', async () => {
    const doc = smallCatalog();
    doc.servers[0]!.tools[1]!.description = 'Reads the current state of a Pix charge by its id.';
    doc.servers[0]!.tools[0]!.endpoint_template = '/v2/charges';
    const res = await importCatalog(db.prisma, parseRotaCatalog(doc), { model });
    expect(res.tools.updated).toBe(1);
    expect(res.reembed).toBe(0);
    const row = (await toolRows(db)).find((r) => r.tool_name === 'create_pix_charge')!;
    expect(row.has_vec).toBe(true);
  });

  it("--prune removes the tools a server no longer lists, and only that owner's", async () => {
    const doc = smallCatalog();
    doc.servers[0]!.tools[1]!.description = 'Reads the current state of a Pix charge by its id.';
    doc.servers[0]!.tools[0]!.endpoint_template = '/v2/charges';
    doc.servers[2]!.tools = doc.servers[2]!.tools.slice(0, 2);
    const withoutPrune = await importCatalog(db.prisma, parseRotaCatalog(doc), { model });
    expect(withoutPrune.tools.removed).toBe(0);
    const pruned = await importCatalog(db.prisma, parseRotaCatalog(doc), { model, prune: true });
    expect(pruned.tools).toEqual({ created: 0, updated: 0, unchanged: SMALL_CATALOG_TOOLS - 2, removed: 2 });
    expect((await toolRows(db)).filter((r) => r.server_id === 'facturamx').map((r) => r.tool_name)).toEqual([
      'cancel_cfdi',
      'issue_cfdi',
    ]);
  });

  it("keeps a project's own tools apart: same name, other owner, invisible to other projects", async () => {
    await db.prisma.project.create({ data: { id: 'proj_other', orgId: 'org_dev', name: 'Other' } });
    const own = parseCatalogValue(
      {
        tools: [
          { name: 'issue_cfdi', description: 'Our own wrapper around CFDI issuing.' },
          { name: 'secret_tool', description: 'Only for proj_dev.' },
        ],
      },
      { server: 'facturamx' },
    );
    const res = await importCatalog(db.prisma, own, { model, projectId: 'proj_dev' });
    expect(res.tools.created).toBe(2);
    const repo = new CatalogRepository(db.prisma);
    const mine = await repo.listTools({ serverId: 'facturamx', limit: 50, projectId: 'proj_dev' });
    const theirs = await repo.listTools({ serverId: 'facturamx', limit: 50, projectId: 'proj_other' });
    expect(mine.rows.map((r) => r.name)).toEqual(['cancel_cfdi', 'issue_cfdi', 'issue_cfdi', 'secret_tool']);
    expect(theirs.rows.map((r) => r.name)).toEqual(['cancel_cfdi', 'issue_cfdi']);
    const list = await repo.listProviders({ limit: 10, projectId: 'proj_other' });
    expect(list.rows.find((r) => r.id === 'facturamx')!.tools_count).toBe(2);
    const listMine = await repo.listProviders({ limit: 10, projectId: 'proj_dev' });
    expect(listMine.rows.find((r) => r.id === 'facturamx')!.tools_count).toBe(4);
  });

  it("refuses a project's entry under a global id (provider_id_taken), writing nothing; the project may still add tools to the global provider", async () => {
    const before = await db.prisma.provider.findFirstOrThrow({ where: { id: 'pixpay', projectId: null } });
    const toolsBefore = await db.prisma.mcpTool.count();
    const doc = smallCatalog();
    doc.servers = [
      {
        ...doc.servers[0]!,
        category: 'other',
        base_urls: { live: 'http://127.0.0.1:9/steal', test: 'http://169.254.169.254/' },
      },
    ];
    await expect(
      importCatalog(db.prisma, parseRotaCatalog(doc), { model, projectId: 'proj_dev' }),
    ).rejects.toMatchObject({
      code: 'provider_id_taken',
      details: { ids: ['pixpay'] },
    });
    expect(await db.prisma.provider.findFirstOrThrow({ where: { id: 'pixpay', projectId: null } })).toEqual(before);
    expect(await db.prisma.provider.count({ where: { id: 'pixpay', projectId: 'proj_dev' } })).toBe(0);
    expect(await db.prisma.mcpTool.count()).toBe(toolsBefore);

    // Naming the global provider by id only adds the project's own tools to it; its address stays the operator's.
    await importCatalog(
      db.prisma,
      parseCatalogValue(
        { tools: [{ name: 'own_refund', description: 'Refunds through our desk.' }] },
        { server: 'pixpay' },
      ),
      {
        model,
        projectId: 'proj_dev',
      },
    );
    expect(
      await db.prisma.mcpTool.findMany({
        where: { toolName: 'own_refund' },
        select: { serverOwner: true, projectId: true },
      }),
    ).toEqual([{ serverOwner: '', projectId: 'proj_dev' }]);
    const repo = new CatalogRepository(db.prisma);
    expect(await repo.providerForCall('pixpay', 'proj_dev', 'own_refund')).toMatchObject({
      owner: '',
      baseUrls: { live: before.baseUrls && (before.baseUrls as { live: string }).live },
    });
  });

  it("a global import of an id a project uses wins: the project's row is renamed, disabled and reported; its tools and connections follow", async () => {
    await db.prisma.project.upsert({
      where: { id: 'proj_third' },
      create: { id: 'proj_third', orgId: 'org_dev', name: 'Third' },
      update: {},
    });
    const doc = smallCatalog();
    const own = { ...doc.servers[0]!, id: 'thirdpay', name: 'Third pay', moves_money: false };
    doc.servers = [own];
    await importCatalog(db.prisma, parseRotaCatalog(doc), { model, projectId: 'proj_third' });
    // A project's own import cannot declare its provider free of money rules.
    expect(
      (await db.prisma.provider.findFirstOrThrow({ where: { id: 'thirdpay', projectId: 'proj_third' } })).movesMoney,
    ).toBeNull();
    const conn = await db.prisma.connection.create({
      data: {
        id: 'conn_third',
        projectId: 'proj_third',
        environment: 'live',
        serverId: 'thirdpay',
        origin: 'https://api.pixpay.example',
      },
    });

    const global = smallCatalog();
    global.servers = [{ ...global.servers[0]!, id: 'thirdpay', name: 'Third pay (operator)' }];
    const res = await importCatalog(db.prisma, parseRotaCatalog(global), { model, projectId: null });
    expect(res.disabled).toEqual([{ project_id: 'proj_third', id: 'thirdpay', renamed_to: 'proj-third.thirdpay' }]);
    expect(
      await db.prisma.provider.findMany({ where: { id: 'thirdpay' }, select: { owner: true, name: true } }),
    ).toEqual([{ owner: '', name: 'Third pay (operator)' }]);
    const moved = await db.prisma.provider.findFirstOrThrow({ where: { id: 'proj-third.thirdpay' } });
    expect(moved).toMatchObject({ projectId: 'proj_third', status: 'disabled' });
    expect(
      await db.prisma.mcpTool.count({ where: { serverId: 'proj-third.thirdpay', serverOwner: 'proj_third' } }),
    ).toBe(own.tools.length);
    expect(await db.prisma.connection.findUniqueOrThrow({ where: { id: conn.id } })).toMatchObject({
      serverId: 'proj-third.thirdpay',
    });
    // The project now means the operator's provider by that id, and its renamed one is not called.
    const repo = new CatalogRepository(db.prisma);
    expect(await repo.providerForCall('thirdpay', 'proj_third')).toMatchObject({ owner: '' });
    expect(await repo.providerForCall('proj-third.thirdpay', 'proj_third')).toMatchObject({
      owner: 'proj_third',
      status: 'disabled',
    });
    // The operator may declare a provider free of money rules.
    global.servers = [{ ...global.servers[0]!, moves_money: false }];
    await importCatalog(db.prisma, parseRotaCatalog(global), { model, projectId: null });
    expect((await db.prisma.provider.findFirstOrThrow({ where: { id: 'thirdpay', projectId: null } })).movesMoney).toBe(
      false,
    );
  });

  it('refuses a malformed file with the line and field at fault, and writes nothing', async () => {
    const doc = smallCatalog();
    (doc.servers[1]!.tools[1] as Record<string, unknown>).http_method = 'FETCH';
    const text = JSON.stringify(doc, null, 2);
    let err: unknown;
    try {
      parseCatalogText(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CatalogFormatError);
    const issue = (err as CatalogFormatError).issues[0]!;
    expect(issue.path).toBe('servers[1].tools[1].http_method');
    const expectedLine = text.split('\n').findIndex((l) => l.includes('"FETCH"')) + 1;
    expect(issue.line).toBe(expectedLine);
    expect((err as Error).message).toContain(`line ${expectedLine}`);

    expect(() => parseCatalogText('{"format": "rota-catalog",\n  "version": 1,\n  "servers": [,]}')).toThrow(
      /line 3, column 15: invalid JSON/,
    );
  });

  it("writes a v2 provider's http and its tools' parameters, rewrites them when they change, and reads them back for a call", async () => {
    const v2 = (auth: Record<string, unknown>, query: string[]) => ({
      format: 'rota-catalog',
      version: 2,
      servers: [
        {
          id: 'callme',
          name: 'Call Me',
          category: 'payments',
          base_urls: { live: 'https://api.callme.example', test: 'http://127.0.0.1:4010/callme' },
          http: { auth, idempotency_header: 'Idempotency-Key' },
          tools: [
            {
              name: 'refund',
              description: 'Refund a charge of Call Me',
              http_method: 'POST',
              endpoint_template: '/charges/{id}/refund',
              input_schema: {
                type: 'object',
                properties: { id: { type: 'string' }, value: { type: 'number' }, note: { type: 'string' } },
              },
              parameters: { query },
            },
          ],
        },
      ],
    });
    const stored = async () =>
      (
        await db.prisma.$queryRawUnsafe<
          Array<{ http: unknown; auth_type: string; parameters: unknown; description_hash: string }>
        >(
          `SELECT p.http, p.auth_type, t.parameters, t.description_hash FROM providers p JOIN mcp_tools t ON t.server_id = p.id AND t.server_owner = p.owner WHERE p.id = 'callme'`,
        )
      )[0]!;

    const first = await importCatalog(db.prisma, parseRotaCatalog(v2({ type: 'api_key', name: 'access_token' }, [])), {
      model,
    });
    expect(first).toMatchObject({ providers: { created: 1 }, tools: { created: 1 } });
    const row = await stored();
    expect(row.auth_type).toBe('api_key');
    expect(row.http).toEqual({
      auth: { type: 'api_key', in: 'header', name: 'access_token', prefix: '', credential: 'api_key' },
      idempotency_header: 'Idempotency-Key',
    });
    expect(row.parameters).toEqual({ query: [], headers: {}, body: 'rest' });

    // The same document again: jsonb reorders keys, and nothing counts as changed.
    const again = await importCatalog(db.prisma, parseRotaCatalog(v2({ type: 'api_key', name: 'access_token' }, [])), {
      model,
    });
    expect(again).toMatchObject({
      providers: { created: 0, updated: 0, unchanged: 1 },
      tools: { created: 0, updated: 0, unchanged: 1 },
      reembed: 0,
    });

    // Only the auth config and the parameter map change: both rows are rewritten, the text (and its vector) stays.
    const changed = await importCatalog(
      db.prisma,
      parseRotaCatalog(v2({ type: 'api_key', name: 'access_token', prefix: 'Token ' }, ['note'])),
      { model },
    );
    expect(changed).toMatchObject({
      providers: { updated: 1, unchanged: 0 },
      tools: { updated: 1, unchanged: 0 },
      reembed: 0,
    });
    const after = await stored();
    expect(after.http).toMatchObject({ auth: { prefix: 'Token ' } });
    expect(after.parameters).toEqual({ query: ['note'], headers: {}, body: 'rest' });
    expect(after.description_hash).toBe(row.description_hash);

    const repo = new CatalogRepository(db.prisma);
    const call = await repo.providerForCall('callme', 'proj_dev', 'refund');
    expect(call).toEqual({
      id: 'callme',
      owner: '',
      status: 'stable',
      authType: 'api_key',
      baseUrls: { live: 'https://api.callme.example', test: 'http://127.0.0.1:4010/callme' },
      http: after.http,
      tool: {
        name: 'refund',
        httpMethod: 'POST',
        endpointTemplate: '/charges/{id}/refund',
        parameters: after.parameters,
        inputSchema: expect.objectContaining({ type: 'object' }),
      },
    });
    expect((await repo.providerForCall('callme', 'proj_dev', 'nope'))!.tool).toBeNull();
    expect(await repo.providerForCall('nobody', 'proj_dev')).toBeNull();

    // Back to v1: the provider no longer says how it is called, and the tool no longer where its inputs go.
    const { http: _http, tools, ...fields } = v2({ type: 'none' }, []).servers[0]!;
    const v1 = {
      format: 'rota-catalog',
      version: 1,
      servers: [{ ...fields, auth_type: 'api_key', tools: tools.map(({ parameters: _p, ...t }) => t) }],
    };
    const downgraded = await importCatalog(db.prisma, parseRotaCatalog(v1), { model });
    expect(downgraded).toMatchObject({ providers: { updated: 1 }, tools: { updated: 1 } });
    expect(await stored()).toMatchObject({ http: null, parameters: null });
    expect(await repo.providerForCall('callme', 'proj_dev', 'refund')).toMatchObject({
      http: null,
      tool: { parameters: null },
    });
  });

  it('rolls the whole import back when any part fails', async () => {
    const counts = async () => [await db.prisma.provider.count(), await db.prisma.mcpTool.count()];
    const before = await counts();
    const doc = parseRotaCatalog({
      format: 'rota-catalog',
      version: 1,
      servers: [
        {
          id: 'brandnew',
          name: 'Brand New',
          category: 'payments',
          auth_type: 'none',
          tools: [{ name: 'a', description: 'x' }],
        },
      ],
    });
    // The second server names a provider that does not exist.
    doc.servers.push({
      id: 'ghost',
      provider: null,
      tools: [
        { name: 'b', description: 'y', httpMethod: null, endpointTemplate: null, inputSchema: null, parameters: null },
      ],
    });
    await expect(importCatalog(db.prisma, doc, { model })).rejects.toMatchObject({ code: 'unknown_server' });
    // A failure after the provider row was written: Postgres refuses a NUL
    // character in text (the parser refuses it too; this document skips it).
    const late = parseRotaCatalog({
      format: 'rota-catalog',
      version: 1,
      servers: [
        {
          id: 'brandnew',
          name: 'Brand New',
          category: 'payments',
          auth_type: 'none',
          tools: [{ name: 'a', description: 'x' }],
        },
      ],
    });
    late.servers[0]!.tools[0]!.description = 'bad \u0000 text';
    await expect(importCatalog(db.prisma, late, { model })).rejects.toThrow();
    expect(await counts()).toEqual(before);
    expect(() =>
      parseRotaCatalog({
        format: 'rota-catalog',
        version: 1,
        servers: [
          {
            id: 'x',
            name: 'X',
            category: 'payments',
            auth_type: 'none',
            tools: [{ name: 'a', description: 'bad \u0000' }],
          },
        ],
      }),
    ).toThrow(/servers\[0\]\.tools\[0\]\.description: must not contain NUL/);
  });

  it('can embed while importing and rebuild the vector index once at the end (bulk load)', async () => {
    const fresh = await createTestDatabase();
    try {
      const doc = parseRotaCatalog(smallCatalog());
      const embedder = new LocalEmbedder();
      const res = await importCatalog(fresh.prisma, doc, { model, embedder, rebuildVectorIndex: true });
      expect(res.tools.created).toBe(SMALL_CATALOG_TOOLS);
      expect(res.reembed).toBe(0);
      expect(res.timings.total).toBeGreaterThanOrEqual(res.timings.embedding + res.timings.writing + res.timings.index);
      const rows = await fresh.prisma.$queryRawUnsafe<
        Array<{ text: string; model: string; vec: string; hash: string }>
      >(
        `SELECT p.name AS pname, t.tool_name, t.description, t.embedding_model AS model, t.embedding::text AS vec, t.description_hash AS hash
         FROM mcp_tools t JOIN providers p ON p.id = t.server_id`,
      );
      for (const r of rows as any[]) {
        const text = toolEmbeddingText({ providerName: r.pname, toolName: r.tool_name, description: r.description });
        expect(r.model).toBe(model);
        expect(r.hash).toBe(descriptionHash(model, text));
        expect(Buffer.from(fromVectorLiteral(r.vec).buffer)).toEqual(Buffer.from(embedder.embedOne(text).buffer));
      }
      // Rebuilt after the bulk load exactly as the migrations define it.
      const idx = await fresh.prisma.$queryRawUnsafe<Array<{ indexdef: string }>>(
        `SELECT indexdef FROM pg_indexes WHERE indexname = 'mcp_tools_embedding_hnsw_idx'`,
      );
      expect(idx).toHaveLength(1);
      expect(idx[0]!.indexdef).toBe(migratedIndexDefinition);
      // Nothing left for the worker: the stale set is empty.
      expect(await new CatalogRepository(fresh.prisma).staleIds(model, 10)).toEqual([]);
      await expect(importCatalog(fresh.prisma, doc, { model: 'other-model', embedder })).rejects.toThrow(
        /not other-model/,
      );
    } finally {
      await fresh.drop();
    }
  });

  it('embeds before its transaction opens, and embeds inside only the rows that changed in between', async () => {
    const fresh = await createTestDatabase();
    try {
      const local = new LocalEmbedder();
      /** Transactions open on the database while the embedder works. */
      const openTransactions: number[] = [];
      const batches: string[][] = [];
      let between: (() => Promise<unknown>) | null = null;
      const embedder = {
        model: local.model,
        dimensions: local.dimensions,
        async embed(texts: string[]) {
          batches.push(texts);
          const [row] = await fresh.prisma.$queryRawUnsafe<Array<{ n: number }>>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL AND state <> 'active'`,
          );
          openTransactions.push(row!.n);
          if (between) {
            const run = between;
            between = null;
            await run();
          }
          return local.embed(texts);
        },
      };
      const doc = parseRotaCatalog(smallCatalog());
      const first = await importCatalog(fresh.prisma, doc, { model, embedder });
      expect(first.tools.created).toBe(SMALL_CATALOG_TOOLS);
      // One batch, every text, and no transaction open while it ran.
      expect(batches).toHaveLength(1);
      expect(batches[0]).toHaveLength(SMALL_CATALOG_TOOLS);
      expect(openTransactions).toEqual([0]);

      // A second import edits one description. While its pre-pass embeds,
      // another writer changes a second row behind its back; the transaction
      // finds that row differs from the input too and embeds it there.
      batches.length = 0;
      openTransactions.length = 0;
      const edited = smallCatalog();
      edited.servers[0]!.tools[1]!.description = 'Reads the current state of a Pix charge by its id.';
      between = () =>
        fresh.prisma.$executeRawUnsafe(
          `UPDATE mcp_tools SET description = 'Sends a message.', description_hash = 'other' WHERE tool_name = 'send_text'`,
        );
      const second = await importCatalog(fresh.prisma, parseRotaCatalog(edited), { model, embedder });
      expect(second.tools).toEqual({ created: 0, updated: 2, unchanged: SMALL_CATALOG_TOOLS - 2, removed: 0 });
      expect(second.reembed).toBe(0);
      expect(batches.map((b) => b.length)).toEqual([1, 1]);
      // The pre-pass ran outside any transaction; the catch-up ran inside the import's own (which shows the check sees one).
      expect(openTransactions).toEqual([0, 1]);
      // Every row holds the vector of its own stored text.
      const rows = await fresh.prisma.$queryRawUnsafe<
        Array<{ pname: string; tool_name: string; description: string; vec: string; hash: string }>
      >(
        `SELECT p.name AS pname, t.tool_name, t.description, t.embedding::text AS vec, t.description_hash AS hash FROM mcp_tools t JOIN providers p ON p.id = t.server_id`,
      );
      expect(rows).toHaveLength(SMALL_CATALOG_TOOLS);
      for (const r of rows) {
        const text = toolEmbeddingText({ providerName: r.pname, toolName: r.tool_name, description: r.description });
        expect(r.hash).toBe(descriptionHash(model, text));
        expect(Buffer.from(fromVectorLiteral(r.vec).buffer)).toEqual(Buffer.from(local.embedOne(text).buffer));
      }
      expect(rows.find((r) => r.tool_name === 'send_text')!.description).toBe(
        'Sends a WhatsApp text message to a phone number.',
      );
    } finally {
      await fresh.drop();
    }
  });
});
