import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogQueue } from '@rota/catalog';
import { startFakeMcpServer, type FakeMcpServer } from '@rota/catalog/fixtures/fake-mcp-server';
import { smallCatalog } from '@rota/catalog/fixtures/small-catalog';
import { seed } from '@rota/db';
import { createTestDatabase, type TestDatabase } from '@rota/db/testing';
import { testPrefix } from '@rota/service-kit/testing/redis-server';
import { progressLine } from './catalog';
import { run } from './main';

jest.setTimeout(60_000);

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

describe('rota catalog', () => {
  let db: TestDatabase;
  let dir: string;
  let prefix: string;
  let queue: CatalogQueue;
  let mcp: FakeMcpServer;

  async function rotaWith(env: Record<string, string>, ...argv: string[]) {
    return rotaIo({ env }, ...argv);
  }
  async function rotaIo(
    extra: { env?: Record<string, string>; addressAllowed?: (a: string) => boolean },
    ...argv: string[]
  ) {
    let stdout = '';
    let stderr = '';
    const code = await run(argv, {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      // The hashing model, not the default sentence encoder: fast, and its model name is what the figures print.
      env: { DATABASE_URL: db.url, REDIS_URL, ROTA_REDIS_PREFIX: prefix, ROTA_LOCAL_EMBEDDER: 'hash', ...extra.env },
      addressAllowed: extra.addressAllowed,
    });
    return { code, stdout, stderr };
  }
  const rota = (...argv: string[]) => rotaWith({}, ...argv);
  /** The fakes listen on loopback, which an import never reaches; only these tests let exactly that address through. */
  const LOOPBACK_FAKES = { addressAllowed: (a: string) => a === '127.0.0.1' };
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return path;
  };
  const queued = async () => {
    const c = await queue.counts();
    return c.waiting + c.active + c.delayed;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    dir = mkdtempSync(join(tmpdir(), 'rota-catalog-'));
    prefix = testPrefix('cli');
    queue = CatalogQueue.connect(REDIS_URL, prefix);
    mcp = await startFakeMcpServer([
      { name: 'quote_freight', description: 'Quotes a parcel across carriers.' },
      { name: 'buy_label', description: 'Buys a shipping label.' },
      { name: 'track', description: 'Tracks a parcel by code.' },
    ]);
  });
  afterAll(async () => {
    await mcp?.close();
    await queue?.queue.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await db?.drop();
  });

  it('imports a Rota catalog file and queues one sweep; the same file again changes nothing and queues nothing', async () => {
    const path = file('catalog.json', smallCatalog());
    const first = await rota('catalog', 'import', path);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe(
      'providers: 3 created, 0 updated, 0 unchanged\ntools:     9 created, 0 updated, 0 unchanged, 0 removed\nto embed:  9 (sweep queued for rota-feature-hash-v1)\n',
    );
    expect(await queued()).toBe(1);
    await queue.queue.drain(true);

    const second = await rota('catalog', 'import', path);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(
      'providers: 0 created, 0 updated, 3 unchanged\ntools:     0 created, 0 updated, 9 unchanged, 0 removed\nto embed:  0\n',
    );
    expect(await queued()).toBe(0);
  });

  it('refuses a malformed file naming the line and field, and writes nothing', async () => {
    const doc: any = smallCatalog();
    doc.servers[2].tools[1].name = 'has spaces';
    const path = file('bad.json', doc);
    const line =
      JSON.stringify(doc, null, 2)
        .split('\n')
        .findIndex((l) => l.includes('"has spaces"')) + 1;
    const before = await db.prisma.mcpTool.count();
    const res = await rota('catalog', 'import', path);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('nothing was imported');
    expect(res.stderr).toContain(`${path}: line ${line}, column`);
    expect(res.stderr).toContain('at servers[2].tools[1].name');
    expect(await db.prisma.mcpTool.count()).toBe(before);

    // Several issues: one line on stderr; every issue under --json (stdout) or ROTA_DEBUG (stderr).
    doc.servers[0].tools[0].name = 'also bad';
    const two = file('two.json', doc);
    const short = await rota('catalog', 'import', two);
    expect(short).toMatchObject({ code: 1, stdout: '' });
    expect(short.stderr).toMatch(
      /^error: .* is not a valid catalog; nothing was imported: .*\(and 1 more issue: --json or ROTA_DEBUG=1 lists them\)\n$/,
    );
    const json = await rota('catalog', 'import', two, '--json');
    expect(json.code).toBe(1);
    expect(json.stderr.split('\n')).toHaveLength(2);
    const body = JSON.parse(json.stdout);
    expect(body).toMatchObject({ error: 'invalid_catalog', message: expect.stringContaining('nothing was imported') });
    expect(body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'servers[0].tools[0].name',
      'servers[2].tools[1].name',
    ]);
    expect(body.details[0]).toEqual({
      text: expect.stringContaining(two),
      line: expect.any(Number),
      column: expect.any(Number),
      path: expect.any(String),
      message: expect.any(String),
    });
    const debug = await rotaWith({ ROTA_DEBUG: '1' }, 'catalog', 'import', two);
    expect(debug.stderr.trimEnd().split('\n')).toHaveLength(3);
    expect(debug.stderr).toContain(`  ${two}: line`);
    expect(await db.prisma.mcpTool.count()).toBe(before);

    const broken = await rota(
      'catalog',
      'import',
      file('broken.json', '{"format": "rota-catalog",\n  "version": 1\n  "servers": []}'),
    );
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/line 3, column 3: invalid JSON \(CommaExpected\)/);
    expect((await rota('catalog', 'import', join(dir, 'missing.json'))).stderr).toMatch(
      /cannot read .*missing\.json: ENOENT/,
    );
  });

  it('imports an MCP tools/list result for a known provider, or for a new one given its details', async () => {
    const list = file('tools.json', {
      jsonrpc: '2.0',
      id: 1,
      result: {
        tools: [{ name: 'send_media', description: 'Sends an image or a document.', inputSchema: { type: 'object' } }],
      },
    });
    const known = await rota('catalog', 'import', list, '--server', 'zapmsg');
    expect(known.code).toBe(0);
    expect(known.stdout).toContain('tools:     1 created');
    expect(await db.prisma.mcpTool.count({ where: { serverId: 'zapmsg' } })).toBe(3);

    const unknown = await rota('catalog', 'import', list, '--server', 'nobody');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown server: nobody/);

    const created = await rota(
      'catalog',
      'import',
      list,
      '--server',
      'newmsg',
      '--name',
      'New Msg',
      '--category',
      'communication',
      '--auth-type',
      'api_key',
      '--countries',
      'MX,CO',
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('providers: 1 created');
    expect(await db.prisma.provider.findUnique({ where: { id_owner: { id: 'newmsg', owner: '' } } })).toMatchObject({
      name: 'New Msg',
      country: 'MX',
      countries: ['MX', 'CO'],
      selfServeAuth: true,
    });

    const noServer = await rota('catalog', 'import', list);
    expect(noServer.code).toBe(1);
    expect(noServer.stderr).toMatch(/--server/);
  });

  it('refuses a catalog URL or MCP server on a loopback address, as the HTTP route does', async () => {
    const listing = await rota(
      'catalog',
      'import',
      mcp.url,
      '--mcp',
      '--server',
      'shipfast',
      '--name',
      'ShipFast',
      '--category',
      'logistics',
      '--auth-type',
      'oauth2',
    );
    expect(listing.code).toBe(1);
    expect(listing.stderr).toMatch(/127\.0\.0\.1 is not a public address/);
    const file = await rota('catalog', 'import', `http://localhost:${new URL(mcp.url).port}/catalog.json`);
    expect(file.code).toBe(1);
    expect(file.stderr).toMatch(/non-public address/);
    expect(mcp.authorizations).toEqual([]);
    expect(await db.prisma.provider.count({ where: { id: 'shipfast' } })).toBe(0);
  });

  it('lists the tools of a live MCP server and imports them; --prune drops what it no longer lists', async () => {
    const res = await rotaIo(
      LOOPBACK_FAKES,
      'catalog',
      'import',
      mcp.url,
      '--mcp',
      '--server',
      'shipfast',
      '--name',
      'ShipFast',
      '--category',
      'logistics',
      '--auth-type',
      'oauth2',
      '--country',
      'BR',
      '--header',
      'Authorization: Bearer t0k',
    );
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.stdout).toContain('tools:     3 created');
    expect(mcp.authorizations).toContain('Bearer t0k');

    const trimmed = file('trimmed.json', {
      tools: [{ name: 'track', description: 'Tracks a parcel by code.', inputSchema: { type: 'object' } }],
    });
    const pruned = await rota('catalog', 'import', trimmed, '--server', 'shipfast', '--prune');
    expect(pruned.stdout).toContain('0 created, 0 updated, 1 unchanged, 2 removed');
  });

  it('sync --inline embeds everything in process and prints the figures; status shows full coverage', async () => {
    const before = await rota('catalog', 'status');
    expect(before.stdout).toMatch(/coverage: {2}0\.0000/);
    const res = await rota('catalog', 'sync', '--inline');
    expect(res.code).toBe(0);
    const total = await db.prisma.mcpTool.count();
    expect(res.stdout).toContain(`${progressLine(total, total)}\n`);
    expect(res.stdout).toContain(`embedded:  ${total} (coverage 1.0000)`);
    const after = await rota('catalog', 'status');
    expect(after.stdout).toContain(`tools:     ${total}\nembedded:  ${total}\ncoverage:  1.0000\n`);
  });

  it('sync without a worker gives up at its timeout and says why', async () => {
    await rota(
      'catalog',
      'import',
      file('one.json', { tools: [{ name: 'extra_tool', description: 'One more.' }] }),
      '--server',
      'pixpay',
    );
    const res = await rota('catalog', 'sync', '--timeout', '1');
    // The worker that should embed is missing: the server side's failure, exit 2.
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/coverage is \d+\/\d+ after 1 s/);
  });

  it('sync exits 2 in one line when Redis is unreachable', async () => {
    const res = await rotaWith({ REDIS_URL: 'redis://127.0.0.1:1' }, 'catalog', 'sync', '--timeout', '5');
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(
      /^error: cannot queue the sweep: Redis is unreachable .*--inline to embed without a worker\n$/,
    );
  });

  it('a catalog URL that times out, refuses the connection or answers a 5xx exits 2; a 4xx exits 1', async () => {
    const replies: Record<string, number> = { '/busy.json': 503, '/gone.json': 404 };
    const server: Server = createServer((req, res) => {
      res.writeHead(replies[req.url ?? ''] ?? 500, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const busy = await rotaIo(LOOPBACK_FAKES, 'catalog', 'import', `${base}/busy.json`);
      expect(busy).toMatchObject({ code: 2, stdout: '' });
      expect(busy.stderr).toBe(`error: fetching ${base}/busy.json answered HTTP 503\n`);
      const gone = await rotaIo(LOOPBACK_FAKES, 'catalog', 'import', `${base}/gone.json`);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toMatch(/answered HTTP 404/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    // A port that was just given up: nothing listens there any more.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await rotaIo(LOOPBACK_FAKES, 'catalog', 'import', `http://127.0.0.1:${port}/catalog.json`);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: could not fetch .*ECONNREFUSED.*\n$/);
  });

  it('import --bulk embeds in process and leaves nothing for the worker', async () => {
    const doc: any = {
      format: 'rota-catalog',
      version: 1,
      servers: [{ id: 'bulkco', name: 'Bulk Co', category: 'erp', auth_type: 'basic', tools: [] }],
    };
    for (let i = 0; i < 50; i++)
      doc.servers[0].tools.push({ name: `op_${i}`, description: `Operation ${i} of the ERP.` });
    await queue.queue.drain(true);
    const res = await rota('catalog', 'import', file('bulk.json', doc), '--bulk');
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.stdout).toMatch(
      /to embed: {2}0 \(embedded here with rota-feature-hash-v1; [\d.]+ s: embedding [\d.]+, writing [\d.]+, index [\d.]+\)/,
    );
    expect(await queued()).toBe(0);
    const rows = await db.prisma.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM mcp_tools WHERE server_id = 'bulkco' AND embedding IS NOT NULL`,
    );
    expect(rows[0]!.n).toBe(50);
  });

  it('keeps a good import when Redis is unreachable, with a warning', async () => {
    const res = await rotaWith(
      { REDIS_URL: 'redis://127.0.0.1:1' },
      'catalog',
      'import',
      file('late.json', { tools: [{ name: 'late_tool', description: 'Imported while Redis was down.' }] }),
      '--server',
      'pixpay',
    );
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('tools:     1 created');
    expect(res.stderr).toMatch(
      /^warning: could not queue the re-embed sweep .*scheduled sweep will pick the rows up\n$/,
    );
    expect(await db.prisma.mcpTool.count({ where: { toolName: 'late_tool' } })).toBe(1);
  });

  it('--json prints the result of import, status and sync, and keeps stdout to that one document', async () => {
    const imported = await rota(
      'catalog',
      'import',
      file('json.json', { tools: [{ name: 'json_tool', description: 'Imported with --json.' }] }),
      '--server',
      'pixpay',
      '--json',
    );
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(imported.stdout)).toMatchObject({
      model: 'rota-feature-hash-v1',
      project_id: null,
      providers: { created: 0, updated: 0 },
      tools: { created: 1 },
      reembed: 1,
      embedded_inline: false,
      sweep: { requested: true, error: null },
    });

    const status = await rota('catalog', 'status', '--json');
    expect(status.code).toBe(0);
    const s = JSON.parse(status.stdout);
    expect(s).toEqual({
      model: 'rota-feature-hash-v1',
      providers: expect.any(Number),
      tools: await db.prisma.mcpTool.count(),
      embedded: expect.any(Number),
      coverage: expect.any(Number),
      jobs: {
        waiting: expect.any(Number),
        active: expect.any(Number),
        delayed: expect.any(Number),
        failed: expect.any(Number),
      },
    });
    expect(s.embedded).toBeLessThan(s.tools);

    const synced = await rota('catalog', 'sync', '--inline', '--json');
    expect(synced).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(synced.stdout)).toEqual({
      model: 'rota-feature-hash-v1',
      tools: s.tools,
      embedded: s.tools,
      coverage: 1,
      this_run: { vectors: s.tools - s.embedded, seconds: expect.any(Number), batches: expect.any(Number) },
    });
    const unreachable = await rotaWith({ REDIS_URL: 'redis://127.0.0.1:1' }, 'catalog', 'status', '--json');
    expect(JSON.parse(unreachable.stdout).jobs).toBeNull();
  });

  it('seed --json prints the demo catalog import', async () => {
    const res = await rota('catalog', 'seed', '--json');
    expect(res).toMatchObject({ code: 0, stderr: '' });
    const body = JSON.parse(res.stdout);
    expect(body).toMatchObject({
      model: 'rota-feature-hash-v1',
      providers: { created: expect.any(Number) },
      sweep: { requested: body.reembed > 0, error: null },
    });
    expect(body.providers.created + body.providers.updated + body.providers.unchanged).toBeGreaterThan(0);
  });

  it('draws the progress bar', () => {
    expect(progressLine(0, 10, 10)).toBe('[..........]   0.0%  0/10');
    expect(progressLine(5, 10, 10)).toBe('[#####.....]  50.0%  5/10');
    expect(progressLine(0, 0, 4)).toBe('[####] 100.0%  0/0');
  });
});
