import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { META_TOOL_NAMES } from '@rota/contracts';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(60_000);

/**
 * The MCP endpoints held to the protocol with the official TypeScript client
 * and raw JSON-RPC where the client cannot produce the mistake.
 */
describe('MCP conformance', () => {
  let stack: Stack;
  let key: string;
  const clients: Client[] = [];

  async function connect(path = '/mcp'): Promise<Client> {
    const client = new Client({ name: 'rota-conformance', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.url}${path}`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    clients.push(client);
    return client;
  }
  const post = (body: string | object, headers: Record<string, string> = {}) =>
    http(`${stack.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    stack = await startStack({
      env: {
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        ROTA_MCP_ALLOWED_ORIGINS: 'https://app.example.com',
        ROTA_DISCOVER_TIMEOUT_MS: '20000',
        ROTA_RPC_TIMEOUT_MS: '25000',
      },
    });
    key = (await stack.key(['servers:read', 'sessions:create', 'tools:execute'])).key;
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await stack.close();
  });

  it('initialize hands the model instructions', async () => {
    const client = await connect();
    expect(client.getInstructions()).toMatch(/codespar_discover/);
    expect(client.getInstructions()).toMatch(/outcome_unknown/);
  });

  it('lists 15 tools, each with read-only, destructive and idempotent hints, and discover with an outputSchema', async () => {
    const { tools } = await (await connect()).listTools();
    expect(tools.map((t) => t.name)).toEqual([...META_TOOL_NAMES]);
    for (const t of tools) {
      expect(typeof t.annotations?.readOnlyHint).toBe('boolean');
      expect(typeof t.annotations?.destructiveHint).toBe('boolean');
      expect(typeof t.annotations?.idempotentHint).toBe('boolean');
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.codespar_discover!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.codespar_pay!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.codespar_discover!.outputSchema).toMatchObject({ type: 'object' });
  });

  it('calls discover; the client validates its structured content against the outputSchema, failures included', async () => {
    const client = await connect();
    await client.listTools(); // the client validates calls against the schemas it listed
    const found = await client.callTool({
      name: 'codespar_discover',
      arguments: { use_case: 'send a whatsapp message', limit: 3 },
    });
    expect(found.isError).toBe(false);
    expect((found.structuredContent as { data: { meta_tools: unknown } }).data.meta_tools).toEqual(expect.any(Array));
    const empty = await client.callTool({ name: 'codespar_discover', arguments: { use_case: '' } });
    expect(empty.isError).toBe(true);
  });

  it('an unknown tool is -32602 with a readable message; a catalog tool is an isError result', async () => {
    const client = await connect();
    const err = await client.callTool({ name: 'codespar_cart', arguments: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((err as McpError).message).toMatch(/Unknown tool: codespar_cart/);
    const raw = await client.callTool({ name: 'zzpay/create_payment', arguments: {} });
    expect(raw.isError).toBe(true);
    expect(raw.structuredContent).toMatchObject({ code: 'tool_not_published' });
  });

  it('malformed JSON answers JSON-RPC -32700, not the REST envelope', async () => {
    const r = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: expect.stringMatching(/^Parse error/) },
      id: null,
    });
    expect(r.json).not.toHaveProperty('request_id');
    // Other routes keep the envelope.
    const rest = await http(`${stack.url}/v1/tools/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"intent":',
    });
    expect(rest.json.error).toBe('invalid_body');
  });

  it('a body that is not JSON answers 415 with a JSON-RPC error, not the REST envelope', async () => {
    const r = await post('x', { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(r.json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/^Unsupported Media Type/) },
      id: null,
    });
  });

  it('a body the gateway refuses (a NUL in a string) answers JSON-RPC -32600, not the REST envelope', async () => {
    const r = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'a\u0000b' } }),
    );
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .*NUL/) },
      id: null,
    });
  });

  it.each([
    ['no params', { jsonrpc: '2.0', id: 3, method: 'tools/call' }, /params with the name/],
    [
      'no name',
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { arguments: {} } },
      /params\.name, the name of the tool/,
    ],
    ['a number as name', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 7 } }, /non-empty string/],
    [
      'arguments not an object',
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'codespar_discover', arguments: 'x' } },
      /arguments must be an object/,
    ],
  ])('tools/call with %s is -32602 with a readable message', async (_label, body, message) => {
    const r = await post(body);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      jsonrpc: '2.0',
      id: body.id,
      error: { code: -32602, message: expect.stringMatching(message) },
    });
    expect(r.text).not.toMatch(/"code":\s*"invalid_type"|ZodError/);
  });

  it('refuses a browser Origin the deployment did not allow with 403, and serves an allowed one', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const evil = await post(list, { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.json).toMatchObject({
      error: 'forbidden',
      message: expect.stringContaining('ROTA_MCP_ALLOWED_ORIGINS'),
    });
    const created = await http(`${stack.url}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      json: { servers: ['zzpay'] },
    });
    if (created.status === 201) {
      const session = await http(`${stack.url}/v1/sessions/${created.json.id}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          accept: 'application/json, text/event-stream',
          origin: 'https://evil.example',
        },
        json: list,
      });
      expect(session.status).toBe(403);
    }
    const ok = await post(list, { origin: 'https://app.example.com' });
    expect(ok.status).toBe(200);
    expect(ok.json.result.tools).toHaveLength(15);
  });
});
