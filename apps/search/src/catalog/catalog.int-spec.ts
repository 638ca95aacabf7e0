import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchCatalogText, importAndRequestSweep, listMcpTools, LOCAL_EMBEDDING_MODEL } from '@rota/catalog';
import { CatalogRepository } from '@rota/catalog/repository';
import { startFakeMcpServer, type FakeMcpServer } from '@rota/catalog/fixtures/fake-mcp-server';
import { smallCatalog } from '@rota/catalog/fixtures/small-catalog';
import { AppError } from '@rota/contracts';
import { createTestDatabase, seed, type TestDatabase } from '@rota/db';
import { requestContext } from '@rota/service-kit';
import { CatalogService } from './catalog.service';

describe('CatalogService imports from URLs', () => {
  let db: TestDatabase;
  let files: Server;
  let base: string;
  let mcp: FakeMcpServer;
  let service: CatalogService;
  const sweeps: number[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    files = createServer((req, res) => {
      if (req.url === '/catalog.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(smallCatalog()));
      } else if (req.url === '/moved') {
        res.writeHead(302, { location: '/catalog.json' }).end();
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    mcp = await startFakeMcpServer([{ name: 'extra_from_mcp', description: 'Listed by a live server.' }]);
    // The fakes listen on loopback, which the service never reaches; the policy's seam lets exactly them through.
    const policy = { addressAllowed: (a: string) => a === '127.0.0.1' };
    service = new CatalogService({
      repo: new CatalogRepository(db.prisma),
      model: LOCAL_EMBEDDING_MODEL,
      importer: (doc, opts) =>
        importAndRequestSweep(db.prisma, { requestSweep: async () => void sweeps.push(1) }, doc, opts),
      queueCounts: async () => ({ waiting: 0, active: 0, delayed: 0, failed: 0 }),
      fetchText: (url) => fetchCatalogText(url, policy),
      listMcpTools: (url) => listMcpTools(url, policy),
    });
  });
  afterAll(async () => {
    await mcp?.close();
    await new Promise<void>((r) => files.close(() => r()));
    await db?.drop();
  });

  it('fetches a catalog file (following a redirect) and imports it', async () => {
    const res = await service.import({ source: { kind: 'url', url: `${base}/moved` }, prune: false, owner: 'catalog' });
    expect(res).toMatchObject({ providers: { created: 3 }, tools: { created: 9 }, reembed: 9, sweep_requested: true });
  });

  it('lists a live MCP server into a known provider', async () => {
    const res = await service.import({
      source: { kind: 'mcp', url: mcp.url },
      server: 'pixpay',
      prune: false,
      owner: 'catalog',
    });
    expect(res.tools.created).toBe(1);
    const tenant = { org_id: 'org_dev', project_id: 'proj_dev', environment: 'live' as const };
    const tools = await requestContext.run({ requestId: 'test', tenant }, () =>
      service.tools({ server_id: 'pixpay', limit: 50 }),
    );
    expect(tools.tools.map((t) => t.name)).toContain('extra_from_mcp');
  });

  it('turns a missing file into a 400 naming the URL', async () => {
    const err = await service
      .import({ source: { kind: 'url', url: `${base}/nope.json` }, prune: false, owner: 'catalog' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'invalid_body', message: expect.stringMatching(/answered HTTP 404/) });
  });

  it('reports partial coverage while rows wait for vectors', async () => {
    const status = await service.status();
    expect(status).toMatchObject({
      model: LOCAL_EMBEDDING_MODEL,
      tools: 10,
      embedded: 0,
      stale: 10,
      coverage: 0,
      vector_search: 'partial',
      vector_index: 'ready',
    });
    expect(status.note).toMatch(/10 of 10 tools/);
  });
});
