import { CatalogFormatError, detectFormat, fromSharedCatalog, parseCatalogText, parseCatalogValue, parseMcpToolsList, parseRotaCatalog } from './format';
import { smallCatalog } from './fixtures/small-catalog';
import { descriptionHash, humanizeToolName, toolEmbeddingText } from './text';

function issuesOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof CatalogFormatError) return err.issues;
    throw err;
  }
  throw new Error('expected a CatalogFormatError');
}

describe('Rota catalog format', () => {
  it('normalises providers: main country, countries, self-serve auth, base URLs', () => {
    const doc = parseRotaCatalog(smallCatalog());
    const [pix, zap, fac] = doc.servers;
    expect(pix!.provider).toMatchObject({ country: 'BR', countries: ['BR'], authType: 'api_key', selfServeAuth: true, sandboxAvailable: true, status: 'stable' });
    expect(pix!.provider!.baseUrls).toEqual({ live: 'https://api.pixpay.example/v1', test: 'https://sandbox.pixpay.example/v1' });
    expect(zap!.provider).toMatchObject({ country: 'BR', countries: ['BR', 'AR'], selfServeAuth: false, baseUrls: { live: null, test: null } });
    expect(fac!.provider).toMatchObject({ status: 'beta', selfServeAuth: false });
    expect(zap!.tools[0]!.inputSchema).toMatchObject({ type: 'object' });
    expect(pix!.tools[0]).toMatchObject({ httpMethod: 'POST', endpointTemplate: '/charges' });
    const global = parseRotaCatalog({ format: 'rota-catalog', version: 1, servers: [{ id: 'g', name: 'G', category: 'crypto', auth_type: 'hmac', tools: [] }] });
    expect(global.servers[0]!.provider).toMatchObject({ country: '*', countries: [], selfServeAuth: false });
  });

  it.each([
    ['jwt', false],
    ['two_header', false],
    ['certificate', false],
    ['hmac', false],
    ['api_key', true],
    ['basic', true],
    ['oauth2', true],
    ['none', true],
  ])('auth %s is self-serve: %s', (auth, selfServe) => {
    const doc = parseRotaCatalog({ format: 'rota-catalog', version: 1, servers: [{ id: 'x', name: 'X', category: 'payments', auth_type: auth as never, tools: [] }] });
    expect(doc.servers[0]!.provider!.selfServeAuth).toBe(selfServe);
  });

  it('refuses bad fields, unknown fields and duplicates with their paths', () => {
    const doc: any = smallCatalog();
    doc.version = 2;
    expect(issuesOf(() => parseRotaCatalog(doc)).map((i) => i.path)).toEqual(['version']);
    const extra: any = smallCatalog();
    extra.servers[0].tools[0].descripton = 'typo';
    expect(issuesOf(() => parseRotaCatalog(extra))[0]).toMatchObject({ path: 'servers[0].tools[0]' });
    const dup: any = smallCatalog();
    dup.servers[1].tools.push({ name: 'send_text', description: 'again' });
    expect(issuesOf(() => parseRotaCatalog(dup))[0]!.path).toBe('servers[1].tools[2].name');
    const dupServer: any = smallCatalog();
    dupServer.servers.push({ ...dupServer.servers[0] });
    expect(issuesOf(() => parseRotaCatalog(dupServer))[0]!.message).toMatch(/appears twice/);
    const country: any = smallCatalog();
    country.servers[0].country = 'br';
    expect(issuesOf(() => parseRotaCatalog(country))[0]!.path).toBe('servers[0].country');
  });

  it('points a missing field at its object, with line and column', () => {
    const text = '{\n  "format": "rota-catalog",\n  "version": 1,\n  "servers": [\n    {"id": "a", "name": "A", "category": "payments",\n     "tools": []}\n  ]\n}';
    const [issue] = issuesOf(() => parseCatalogText(text));
    expect(issue).toMatchObject({ path: 'servers[0].auth_type', line: 5, column: 5 });
  });

  it('reads an MCP tools/list result, bare or wrapped in JSON-RPC', () => {
    const bare = parseMcpToolsList({ tools: [{ name: 'a', description: 'x', inputSchema: { type: 'object' } }, { name: 'b', title: 'Bee' }] }, 'acme');
    expect(bare.servers[0]).toMatchObject({ id: 'acme', provider: null });
    expect(bare.servers[0]!.tools.map((t) => t.description)).toEqual(['x', 'Bee']);
    const wrapped = parseCatalogValue({ jsonrpc: '2.0', id: 7, result: { tools: [{ name: 'a' }] } }, { server: 'acme' });
    expect(wrapped.servers[0]!.tools).toHaveLength(1);
    expect(issuesOf(() => parseCatalogValue({ jsonrpc: '2.0', id: 7, result: { tools: [{ name: 'bad name' }] } }, { server: 'acme' }))[0]!.path).toBe('result.tools[0].name');
    const fresh = parseMcpToolsList({ tools: [] }, { id: 'newp', name: 'New', category: 'erp', auth_type: 'basic' });
    expect(fresh.servers[0]!.provider).toMatchObject({ id: 'newp', selfServeAuth: true });
    expect(issuesOf(() => parseMcpToolsList({ tools: [] }, { id: 'newp', name: 'New', category: 'erp', auth_type: 'magic' as never }))[0]!.message).toMatch(/^server\.auth_type/);
  });

  it('detects formats and refuses what is none of them', () => {
    expect(detectFormat(smallCatalog())).toBe('rota');
    expect(detectFormat({ tools: [] })).toBe('mcp');
    expect(detectFormat([{ server_id: 'a', tools: [] }])).toBe('server-array');
    expect(detectFormat([1, 2])).toBeUndefined();
    expect(issuesOf(() => parseCatalogValue({ hello: 'world' }))[0]!.message).toMatch(/not a catalog/);
    expect(issuesOf(() => parseCatalogValue({ tools: [] }))[0]!.message).toMatch(/--server/);
  });

  it('converts a bare array of servers to the Rota format', () => {
    const doc = fromSharedCatalog([{ server_id: 'a', server_name: 'A', country: 'MX', category: 'fiscal', auth_type: 'weird', status: 'alpha', description: 'd', tools: [{ name: 't', description: 'x' }] }]);
    expect(parseRotaCatalog(doc).servers[0]!.provider).toMatchObject({ id: 'a', country: 'MX', authType: 'api_key', status: 'alpha' });
  });
});

describe('embedded text and hash', () => {
  it('spells tool names as words', () => {
    expect(humanizeToolName('create_pix_charge')).toBe('create pix charge');
    expect(humanizeToolName('createPixCharge')).toBe('create pix charge');
    expect(humanizeToolName('payments.refund-v2')).toBe('payments refund v2');
  });

  it('puts the provider, the tool and the description in the text', () => {
    expect(toolEmbeddingText({ providerName: 'PixPay', toolName: 'get_charge', description: '  Reads\n a charge. ' })).toBe('PixPay: get charge. Reads a charge.');
    expect(toolEmbeddingText({ providerName: 'PixPay', toolName: 'ping', description: '' })).toBe('PixPay: ping.');
  });

  it('hashes the model together with the text', () => {
    const a = descriptionHash('m1', 'text');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(descriptionHash('m1', 'text')).toBe(a);
    expect(descriptionHash('m2', 'text')).not.toBe(a);
    expect(descriptionHash('m1', 'text!')).not.toBe(a);
  });
});
