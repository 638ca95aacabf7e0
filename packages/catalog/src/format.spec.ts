import {
  CatalogFormatError,
  detectFormat,
  fromSharedCatalog,
  parseCatalogText,
  parseCatalogValue,
  parseMcpToolsList,
  parseRotaCatalog,
  type RotaCatalogInputV2,
} from './format';
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
    expect(pix!.provider).toMatchObject({
      country: 'BR',
      countries: ['BR'],
      authType: 'api_key',
      selfServeAuth: true,
      sandboxAvailable: true,
      movesMoney: null,
      status: 'stable',
    });
    expect(pix!.provider!.baseUrls).toEqual({
      live: 'https://api.pixpay.example/v1',
      test: 'https://sandbox.pixpay.example/v1',
    });
    expect(zap!.provider).toMatchObject({
      country: 'BR',
      countries: ['BR', 'AR'],
      selfServeAuth: false,
      baseUrls: { live: null, test: null },
    });
    expect(fac!.provider).toMatchObject({ status: 'beta', selfServeAuth: false });
    expect(zap!.tools[0]!.inputSchema).toMatchObject({ type: 'object' });
    expect(pix!.tools[0]).toMatchObject({ httpMethod: 'POST', endpointTemplate: '/charges' });
    const global = parseRotaCatalog({
      format: 'rota-catalog',
      version: 1,
      servers: [{ id: 'g', name: 'G', category: 'crypto', auth_type: 'hmac', tools: [] }],
    });
    expect(global.servers[0]!.provider).toMatchObject({ country: '*', countries: [], selfServeAuth: false });
  });

  it.each([
    ['jwt', false],
    ['two_header', false],
    ['certificate', false],
    ['hmac', false],
    ['api_key', true],
    ['bearer', true],
    ['basic', true],
    ['oauth2', true],
    ['none', true],
  ])('auth %s is self-serve: %s', (auth, selfServe) => {
    const doc = parseRotaCatalog({
      format: 'rota-catalog',
      version: 1,
      servers: [{ id: 'x', name: 'X', category: 'payments', auth_type: auth as never, tools: [] }],
    });
    expect(doc.servers[0]!.provider!.selfServeAuth).toBe(selfServe);
  });

  it('refuses bad fields, unknown fields and duplicates with their paths', () => {
    const doc: any = smallCatalog();
    doc.version = 3;
    expect(issuesOf(() => parseRotaCatalog(doc)).map((i) => i.path)).toEqual(['version']);
    // A v1 document relabelled as v2 lacks what v2 requires of every provider.
    doc.version = 2;
    expect(issuesOf(() => parseRotaCatalog(doc)).map((i) => i.path)).toEqual([
      'servers[0].http',
      'servers[1].http',
      'servers[2].http',
    ]);
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
    const text =
      '{\n  "format": "rota-catalog",\n  "version": 1,\n  "servers": [\n    {"id": "a", "name": "A", "category": "payments",\n     "tools": []}\n  ]\n}';
    const [issue] = issuesOf(() => parseCatalogText(text));
    expect(issue).toMatchObject({ path: 'servers[0].auth_type', line: 5, column: 5 });
  });

  it('reads an MCP tools/list result, bare or wrapped in JSON-RPC', () => {
    const bare = parseMcpToolsList(
      {
        tools: [
          { name: 'a', description: 'x', inputSchema: { type: 'object' } },
          { name: 'b', title: 'Bee' },
        ],
      },
      'acme',
    );
    expect(bare.servers[0]).toMatchObject({ id: 'acme', provider: null });
    expect(bare.servers[0]!.tools.map((t) => t.description)).toEqual(['x', 'Bee']);
    const wrapped = parseCatalogValue(
      { jsonrpc: '2.0', id: 7, result: { tools: [{ name: 'a' }] } },
      { server: 'acme' },
    );
    expect(wrapped.servers[0]!.tools).toHaveLength(1);
    expect(
      issuesOf(() =>
        parseCatalogValue({ jsonrpc: '2.0', id: 7, result: { tools: [{ name: 'bad name' }] } }, { server: 'acme' }),
      )[0]!.path,
    ).toBe('result.tools[0].name');
    const fresh = parseMcpToolsList({ tools: [] }, { id: 'newp', name: 'New', category: 'erp', auth_type: 'basic' });
    expect(fresh.servers[0]!.provider).toMatchObject({ id: 'newp', selfServeAuth: true });
    expect(
      issuesOf(() =>
        parseMcpToolsList({ tools: [] }, { id: 'newp', name: 'New', category: 'erp', auth_type: 'magic' as never }),
      )[0]!.message,
    ).toMatch(/^server\.auth_type/);
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
    const doc = fromSharedCatalog([
      {
        server_id: 'a',
        server_name: 'A',
        country: 'MX',
        category: 'fiscal',
        auth_type: 'weird',
        status: 'alpha',
        description: 'd',
        tools: [{ name: 't', description: 'x' }],
      },
    ]);
    expect(parseRotaCatalog(doc).servers[0]!.provider).toMatchObject({
      id: 'a',
      country: 'MX',
      authType: 'api_key',
      status: 'alpha',
    });
  });
});

describe('embedded text and hash', () => {
  it('spells tool names as words', () => {
    expect(humanizeToolName('create_pix_charge')).toBe('create pix charge');
    expect(humanizeToolName('createPixCharge')).toBe('create pix charge');
    expect(humanizeToolName('payments.refund-v2')).toBe('payments refund v2');
  });

  it('puts the provider, the tool and the description in the text', () => {
    expect(
      toolEmbeddingText({ providerName: 'PixPay', toolName: 'get_charge', description: '  Reads\n a charge. ' }),
    ).toBe('PixPay: get charge. Reads a charge.');
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

/** A small v2 document: one provider called with an API key header, one tool with a path parameter. */
function v2(over: { server?: Record<string, unknown>; tool?: Record<string, unknown> } = {}): RotaCatalogInputV2 {
  return {
    format: 'rota-catalog',
    version: 2,
    servers: [
      {
        id: 'pixpay',
        name: 'PixPay',
        category: 'payments',
        country: 'BR',
        base_urls: { live: 'https://api.pixpay.example/v1', test: 'https://sandbox.pixpay.example/v1' },
        http: { auth: { type: 'api_key', name: 'access_token' }, idempotency_header: 'Idempotency-Key' },
        tools: [
          {
            name: 'refund_charge',
            description: 'Refund a Pix charge',
            http_method: 'POST',
            endpoint_template: '/charges/{id}/refund',
            input_schema: {
              type: 'object',
              properties: { id: { type: 'string' }, value: { type: 'number' }, reason: { type: 'string' } },
            },
            parameters: { query: ['reason'], body: ['value'] },
            ...over.tool,
          },
        ],
        ...over.server,
      },
    ],
  } as RotaCatalogInputV2;
}

describe('Rota catalog format v2', () => {
  it('reads how the provider is called and where each input goes, defaults filled in', () => {
    const [s] = parseRotaCatalog(v2()).servers;
    expect(s!.provider).toMatchObject({ authType: 'api_key', selfServeAuth: true });
    expect(s!.provider!.http).toEqual({
      auth: { type: 'api_key', in: 'header', name: 'access_token', prefix: '', credential: 'api_key' },
      idempotency_header: 'Idempotency-Key',
    });
    expect(s!.tools[0]!.parameters).toEqual({ query: ['reason'], headers: {}, body: ['value'] });
  });

  it('gives a tool without a parameter map the default one, and a v1 document none at all', () => {
    const [s] = parseRotaCatalog(v2({ tool: { parameters: undefined } })).servers;
    expect(s!.tools[0]!.parameters).toEqual({ query: [], headers: {}, body: 'rest' });
    const [old] = parseRotaCatalog(smallCatalog()).servers;
    expect(old!.provider!.http).toBeNull();
    expect(old!.tools.every((t) => t.parameters === null)).toBe(true);
  });

  it('derives auth_type from http.auth.type, accepts it when they agree, refuses it when they do not', () => {
    expect(parseRotaCatalog(v2({ server: { http: { auth: { type: 'bearer' } } } })).servers[0]!.provider).toMatchObject(
      {
        authType: 'bearer',
        selfServeAuth: true,
      },
    );
    expect(parseRotaCatalog(v2({ server: { auth_type: 'api_key' } })).servers[0]!.provider!.authType).toBe('api_key');
    expect(issuesOf(() => parseRotaCatalog(v2({ server: { auth_type: 'oauth2' } })))).toEqual([
      {
        path: 'servers[0].auth_type',
        message: 'auth_type is "oauth2" but http.auth.type is "api_key"; leave auth_type out or make them agree',
      },
    ]);
  });

  it('takes http: null as "not callable yet", which then needs auth_type', () => {
    const [s] = parseRotaCatalog(v2({ server: { http: null, auth_type: 'hmac' } })).servers;
    expect(s!.provider).toMatchObject({ authType: 'hmac', http: null });
    expect(issuesOf(() => parseRotaCatalog(v2({ server: { http: null } })))).toEqual([
      { path: 'servers[0].http', message: 'auth_type is required when http is null' },
    ]);
  });

  it('refuses a v2 provider without http, and an http block of the wrong shape, at the field', () => {
    expect(issuesOf(() => parseRotaCatalog(v2({ server: { http: undefined } }))).map((i) => i.path)).toEqual([
      'servers[0].http',
    ]);
    const bad = issuesOf(() =>
      parseRotaCatalog(
        v2({ server: { http: { auth: { type: 'oauth2', grant: 'implicit', token_url: '/oauth/token' } } } }),
      ),
    );
    expect(bad.map((i) => i.path)).toEqual(['servers[0].http.auth.grant']);
    const header = issuesOf(() =>
      parseRotaCatalog(v2({ server: { http: { auth: { type: 'none' }, idempotency_header: 'Bad Header' } } })),
    );
    expect(header).toEqual([{ path: 'servers[0].http.idempotency_header', message: 'must be an HTTP header name' }]);
  });

  it('accepts an OAuth2 token URL relative to the base URL of each environment', () => {
    const auth = { type: 'oauth2', grant: 'client_credentials', token_url: '/oauth/token' };
    expect(parseRotaCatalog(v2({ server: { http: { auth } } })).servers[0]!.provider!.http!.auth).toMatchObject({
      token_url: '/oauth/token',
      scopes: [],
    });
    expect(
      issuesOf(() =>
        parseRotaCatalog(v2({ server: { http: { auth: { ...auth, token_url: '//evil.example/token' } } } })),
      ).map((i) => i.path),
    ).toEqual(['servers[0].http.auth.token_url']);
  });

  it('requires every path parameter to be an input the schema lists', () => {
    const issues = issuesOf(() => parseRotaCatalog(v2({ tool: { endpoint_template: '/charges/{charge_id}/refund' } })));
    expect(issues).toEqual([
      {
        path: 'servers[0].tools[0].endpoint_template',
        message: 'path parameter {charge_id} is not an input: add "charge_id" to input_schema.properties',
      },
    ]);
    // A schema that lists no properties (or no schema) is trusted.
    expect(() =>
      parseRotaCatalog(
        v2({ tool: { endpoint_template: '/charges/{charge_id}', input_schema: { type: 'object' }, parameters: {} } }),
      ),
    ).not.toThrow();
    expect(() =>
      parseRotaCatalog(v2({ tool: { endpoint_template: '/charges/{charge_id}', input_schema: null, parameters: {} } })),
    ).not.toThrow();
  });

  it('refuses malformed placeholders and placeholders in the query string', () => {
    expect(
      issuesOf(() => parseRotaCatalog(v2({ tool: { endpoint_template: '/charges/{id/refund' } })))[0],
    ).toMatchObject({
      path: 'servers[0].tools[0].endpoint_template',
      message: expect.stringContaining('malformed placeholder'),
    });
    expect(
      issuesOf(() => parseRotaCatalog(v2({ tool: { endpoint_template: '/charges/{id}?reason={reason}' } })))[0]!
        .message,
    ).toContain('parameters.query');
  });

  it('requires mapped inputs to exist and to go to one place only', () => {
    const issues = issuesOf(() =>
      parseRotaCatalog(
        v2({
          tool: { parameters: { query: ['reason', 'nope'], headers: { id: 'X-Charge' }, body: ['value', 'reason'] } },
        }),
      ),
    );
    expect(issues).toEqual([
      {
        path: 'servers[0].tools[0].parameters.query[1]',
        message: '"nope" is not an input: input_schema.properties does not list it',
      },
      {
        path: 'servers[0].tools[0].parameters.headers.id',
        message: '"id" already goes in the path; an input goes to one place',
      },
      {
        path: 'servers[0].tools[0].parameters.body[1]',
        message: '"reason" already goes in the query; an input goes to one place',
      },
    ]);
  });

  it('locates v2 errors by line in a file', () => {
    const text = JSON.stringify(v2({ tool: { endpoint_template: '/charges/{charge_id}/refund' } }), null, 2);
    const [issue] = issuesOf(() => parseCatalogText(text));
    expect(issue!.line).toBe(text.split('\n').findIndex((l) => l.includes('"endpoint_template"')) + 1);
  });

  it('refuses an unknown version by name, and a v1 document that uses v2 fields', () => {
    expect(issuesOf(() => parseRotaCatalog({ ...v2(), version: 3 }))).toEqual([
      { path: 'version', message: 'must be 1 or 2 (the catalog format versions this import reads)' },
    ]);
    expect(issuesOf(() => parseRotaCatalog({ ...v2(), version: 1 })).map((i) => i.path)).toEqual(
      expect.arrayContaining(['servers[0].auth_type', 'servers[0]']),
    );
  });

  it('reads a v2 provider given with an MCP tools/list, and refuses one that disagrees with itself', () => {
    const server = { id: 'mcpx', name: 'MCP X', category: 'erp', http: { auth: { type: 'bearer' as const } } };
    const doc = parseMcpToolsList({ tools: [{ name: 'a', description: 'A' }] }, server);
    expect(doc.servers[0]!.provider).toMatchObject({
      authType: 'bearer',
      http: { auth: { type: 'bearer', credential: 'token' } },
    });
    expect(doc.servers[0]!.tools[0]!.parameters).toBeNull();
    expect(() => parseMcpToolsList({ tools: [] }, { ...server, auth_type: 'basic' })).toThrow(
      /auth_type is "basic" but http.auth.type is "bearer"/,
    );
  });
});
