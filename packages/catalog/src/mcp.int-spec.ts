import { startFakeMcpServer, type FakeMcpServer } from './fixtures/fake-mcp-server';
import { parseCatalogValue } from './format';
import { listMcpTools } from './mcp';
import { CatalogUrlError, fetchCatalogText, isPublicAddress } from './url';

// The fake servers listen on loopback, which no import may reach; these tests
// admit exactly that one address through the policy's own seam.
const LOOPBACK_FAKES = { addressAllowed: (a: string) => a === '127.0.0.1' };

describe('live MCP import', () => {
  let mcp: FakeMcpServer;
  const tools = [
    {
      name: 'create_charge',
      description: 'Creates a charge.',
      inputSchema: { type: 'object', properties: { amount: { type: 'integer' } }, required: ['amount'] },
    },
    { name: 'get_charge', description: 'Reads a charge.' },
    { name: 'list_charges', description: 'Lists charges.' },
    { name: 'refund', description: 'Refunds a charge.' },
    { name: 'ping' },
  ];
  beforeAll(async () => {
    mcp = await startFakeMcpServer(tools);
  });
  afterAll(() => mcp.close());

  it('lists every page of tools with the official client and parses them as one server', async () => {
    const listed = await listMcpTools(mcp.url, {
      ...LOOPBACK_FAKES,
      headers: { authorization: 'Bearer provider-token' },
    });
    expect(listed.tools).toHaveLength(5);
    expect(mcp.authorizations.every((a) => a === 'Bearer provider-token')).toBe(true);
    const doc = parseCatalogValue(listed, { server: 'acme', format: 'mcp' });
    expect(doc.servers[0]!.provider).toBeNull();
    expect(doc.servers[0]!.tools.map((t) => [t.name, t.httpMethod, t.endpointTemplate])).toEqual(
      tools.map((t) => [t.name, null, null]),
    );
    expect(doc.servers[0]!.tools[0]!.inputSchema).toEqual(tools[0]!.inputSchema);
    expect(doc.servers[0]!.tools[4]!.description).toBe('');
  });

  it('refuses a loopback server by address and by name', async () => {
    await expect(listMcpTools(mcp.url)).rejects.toBeInstanceOf(CatalogUrlError);
    await expect(listMcpTools(mcp.url.replace('127.0.0.1', 'localhost'))).rejects.toThrow(/non-public address/);
  });

  it('refuses an answer over the byte limit with the error of a file import', async () => {
    const big = await startFakeMcpServer([{ name: 'huge', description: 'x'.repeat(2 * 1024 * 1024) }]);
    try {
      const err = await listMcpTools(big.url, { ...LOOPBACK_FAKES, maxBytes: 1024 * 1024 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CatalogUrlError);
      expect((err as Error).message).toBe(`${big.url} is larger than ${1024 * 1024} bytes`);
      // The same server within the limit lists normally.
      expect((await listMcpTools(big.url, { ...LOOPBACK_FAKES, maxBytes: 4 * 1024 * 1024 })).tools).toHaveLength(1);
    } finally {
      await big.close();
    }
  });

  it('holds every page of a listing to one byte budget', async () => {
    const pages = await startFakeMcpServer(
      Array.from({ length: 6 }, (_, i) => ({ name: `t${i}`, description: 'y'.repeat(300 * 1024) })),
      1,
    );
    try {
      // Each page is far below the limit; the six together are not.
      await expect(listMcpTools(pages.url, { ...LOOPBACK_FAKES, maxBytes: 1024 * 1024 })).rejects.toThrow(
        /is larger than 1048576 bytes/,
      );
    } finally {
      await pages.close();
    }
  });

  it('reports an unreachable server as a URL problem', async () => {
    await expect(listMcpTools('http://127.0.0.1:9/mcp', { ...LOOPBACK_FAKES, timeoutMs: 2000 })).rejects.toBeInstanceOf(
      CatalogUrlError,
    );
    await expect(fetchCatalogText('http://127.0.0.1:9/x.json', LOOPBACK_FAKES)).rejects.toThrow(/could not fetch/);
  });

  it.each([
    ['8.8.8.8', true],
    ['2001:4860:4860::8888', true],
    ['127.0.0.1', false],
    ['10.0.0.5', false],
    ['172.16.3.4', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fc00::1', false],
    ['fe80::1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['not-an-ip', false],
  ])('isPublicAddress(%s) is %s', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
});
