import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { META_TOOL_NAMES } from '@rota/contracts';
import { loadConfig, renderMetrics } from '@rota/service-kit';
import { createGateway } from '../apps/gateway/src/app.factory';
import { GatewayConfig } from '../apps/gateway/src/config';
import { insertOtherProject, insertProviders } from './helpers/session-fixtures';
import { parsePrometheusText } from '@rota/service-kit/testing/prometheus-text';
import { http, startStack, type Stack } from './helpers/stack';

// Booting a stack (and, below, child processes) can take longer than Jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

const ALL = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;

interface ToolText {
  content: Array<{ type: string; text: string }>;
  isError?: boolean;
  structuredContent?: Record<string, any>;
}

/** The JSON a tool result carries in its text content (and, identically, in structuredContent). */
function payload(result: unknown): Record<string, any> {
  const r = result as ToolText;
  expect(r.content).toHaveLength(1);
  expect(r.content[0]!.type).toBe('text');
  const parsed = JSON.parse(r.content[0]!.text);
  expect(r.structuredContent).toEqual(parsed);
  return parsed;
}

describe('MCP over Streamable HTTP with the official SDK client', () => {
  let stack: Stack;
  let key: string;
  let otherKey: string;
  const clients: Client[] = [];

  async function connect(url: string, k = key, fetchImpl?: typeof fetch): Promise<Client> {
    const client = new Client({ name: 'rota-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${k}` } },
      fetch: fetchImpl,
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const rowsWhere = (where: Record<string, unknown>) =>
    stack.db.prisma.sessionToolCall.findMany({ where, orderBy: { calledAt: 'asc' } });

  beforeAll(async () => {
    stack = await startStack({ env: { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' } });
    const other = await insertOtherProject(stack.db.prisma);
    await insertProviders(stack.db.prisma, other);
    key = (await stack.key([...ALL])).key;
    otherKey = (await stack.key([...ALL], { projectId: other })).key;
    const saved = await http(`${stack.url}/v1/connections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      json: { server_id: 'zzpay', credentials: { api_key: 'sk_mcp_test' } },
    });
    expect(saved.status).toBe(201);
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await stack.close();
  });

  describe('POST /mcp (project transport)', () => {
    it('tools/list answers exactly the 15 published meta-tools, the same definitions as /meta-tools.json', async () => {
      const client = await connect(`${stack.url}/mcp`);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([...META_TOOL_NAMES]);
      const published = (await http(`${stack.url}/meta-tools.json`)).json.tools;
      expect(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))).toEqual(
        published,
      );
      expect(client.getServerCapabilities()?.tools).toBeDefined();
    });

    it('runs codespar_list_tools in the project context: no session row, a call row for the project', async () => {
      const sessionsBefore = await stack.db.prisma.session.count();
      const client = await connect(`${stack.url}/mcp`);
      const result = await client.callTool({ name: 'codespar_list_tools', arguments: {} });
      expect(result.isError).toBe(false);
      const body = payload(result);
      expect(body).toMatchObject({ success: true, tool: 'codespar_list_tools', server: null });
      // The project's connected providers are the context's providers.
      expect(body.data.servers).toEqual([{ server_id: 'zzpay', connection_status: 'connected' }]);
      expect(body.data.tools.map((t: { name: string }) => t.name)).toEqual(
        expect.arrayContaining([...META_TOOL_NAMES, 'codespar_list_tools', 'zzpay/create_payment']),
      );
      expect(await stack.db.prisma.session.count()).toBe(sessionsBefore);
      const [row] = await rowsWhere({ id: body.tool_call_id });
      expect(row).toMatchObject({
        sessionId: null,
        projectId: 'proj_dev',
        environment: 'live',
        tool: 'codespar_list_tools',
        success: true,
      });
    });

    it('runs codespar_get_started and codespar_discover', async () => {
      const client = await connect(`${stack.url}/mcp`);
      const started = payload(await client.callTool({ name: 'codespar_get_started', arguments: {} }));
      expect(started.success).toBe(true);
      const steps = Object.fromEntries(started.data.steps.map((s: { id: string; done: boolean }) => [s.id, s.done]));
      expect(steps).toMatchObject({ connect_provider: true, open_session: false });

      const found = await client.callTool({
        name: 'codespar_discover',
        arguments: { use_case: 'criar uma cobrança pix', limit: 3 },
      });
      expect(found.isError).toBe(false);
      const data = payload(found).data;
      expect(['embedding', 'trigram', 'empty']).toContain(data.search_strategy);
      expect(Array.isArray(data.meta_tools)).toBe(true);
    });

    it('answers a refused call as a tool error, not an HTTP or protocol error', async () => {
      const client = await connect(`${stack.url}/mcp`);
      const empty = await client.callTool({ name: 'codespar_discover', arguments: { use_case: '' } });
      expect(empty.isError).toBe(true);
      expect(payload(empty)).toMatchObject({ success: false, tool_call_id: null, data: { code: 'invalid_args' } });
      // Pay rails exist, but this project has none of their providers connected.
      const unconnected = await client.callTool({ name: 'codespar_pay', arguments: { action: 'pay' } });
      expect(unconnected.isError).toBe(true);
      expect(payload(unconnected).data).toMatchObject({
        code: 'connection_required',
        connect: expect.arrayContaining(['asaas']),
      });
    });

    it.each(['zzpay/create_payment', 'asaas/create_payment'])(
      'calling %s gives isError with tool_not_published and writes nothing',
      async (name) => {
        const before = await stack.db.prisma.sessionToolCall.count();
        const client = await connect(`${stack.url}/mcp`);
        const result = await client.callTool({ name, arguments: { amount: 100 } });
        expect(result.isError).toBe(true);
        expect(payload(result)).toMatchObject({ code: 'tool_not_published', tool: name });
        expect(await stack.db.prisma.sessionToolCall.count()).toBe(before);
      },
    );

    it('is stateless: one client session served alternately by two gateway replicas', async () => {
      const second: NestFastifyApplication = await createGateway(
        loadConfig(GatewayConfig, { ...stack.env, PORT: '0' }),
      );
      await second.listen(0, '127.0.0.1');
      try {
        const other = `http://127.0.0.1:${(second.getHttpServer().address() as { port: number }).port}`;
        const hosts: string[] = [];
        let turn = 0;
        const alternating: typeof fetch = (input, init) => {
          const url = new URL(input instanceof Request ? input.url : String(input));
          const base = turn++ % 2 === 0 ? stack.url : other;
          hosts.push(base);
          return fetch(`${base}${url.pathname}${url.search}`, init);
        };
        const client = await connect(`${stack.url}/mcp`, key, alternating);
        expect((await client.listTools()).tools).toHaveLength(15);
        const r = await client.callTool({ name: 'codespar_list_tools', arguments: {} });
        expect(r.isError).toBe(false);
        expect(new Set(hosts)).toEqual(new Set([stack.url, other]));
      } finally {
        await second.close();
      }
    });

    it('accepts a tools/list with no handshake, as any replica must', async () => {
      const r = await http(`${stack.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream' },
        json: { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} },
      });
      expect(r.status).toBe(200);
      expect(r.json.id).toBe(7);
      expect(r.json.result.tools).toHaveLength(15);
      expect(r.headers.get('mcp-session-id')).toBeNull();
    });

    it('401 raw without a key, 403 without tools:execute, 405 on GET and DELETE', async () => {
      const rpc = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
      const headers = { accept: 'application/json, text/event-stream' };
      const none = await http(`${stack.url}/mcp`, { method: 'POST', headers, json: rpc });
      expect(none.status).toBe(401);
      expect(none.text).toBe('{"error":"unauthorized"}');
      const readOnly = (await stack.key(['servers:read'])).key;
      const narrow = await http(`${stack.url}/mcp`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${readOnly}` },
        json: rpc,
      });
      expect(narrow.status).toBe(403);
      expect(narrow.json.message).toBe("API key does not have the 'tools:execute' scope.");
      for (const method of ['GET', 'DELETE']) {
        const r = await http(`${stack.url}/mcp`, { method, headers: { authorization: `Bearer ${key}` } });
        expect(r.status).toBe(405);
        expect(r.json.error).toBe('method_not_allowed');
        expect(r.headers.get('allow')).toBe('POST');
      }
    });
  });

  describe('POST /v1/sessions/{id}/mcp (session transport)', () => {
    it('serves the session at the URL its creation returned; calls are rows of that session', async () => {
      const created = await http(`${stack.url}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        json: { servers: ['zzpay', 'zzopen'] },
      });
      const { id, mcp } = created.json;
      expect(mcp.transport).toBe('streamable-http');
      const client = await connect(mcp.url);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...META_TOOL_NAMES]);

      const listed = await client.callTool({ name: 'codespar_list_tools', arguments: {} });
      const body = payload(listed);
      expect(body.data.servers).toEqual([
        { server_id: 'zzopen', connection_status: 'not_required' },
        { server_id: 'zzpay', connection_status: 'connected' },
      ]);
      const raw = await client.callTool({ name: 'zzpay/create_payment', arguments: { amount: 1 } });
      expect(raw.isError).toBe(true);
      expect(payload(raw).code).toBe('tool_not_published');
      expect((await rowsWhere({ sessionId: id })).map((r) => r.tool)).toEqual(['codespar_list_tools']);

      // A closed session still answers the protocol; its calls report the status.
      await http(`${stack.url}/v1/sessions/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
      const closed = await client.callTool({ name: 'codespar_list_tools', arguments: {} });
      expect(closed.isError).toBe(true);
      expect(payload(closed)).toMatchObject({ code: 'session_not_active', status: 'closed' });
    });

    it('is a 404 for another project’s session, like one that never existed', async () => {
      const created = await http(`${stack.url}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        json: { servers: ['zzpay'] },
      });
      const rpc = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
      const headers = {
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${otherKey}`,
        'x-request-id': 'mcp-404',
      };
      const foreign = await http(`${stack.url}/v1/sessions/${created.json.id}/mcp`, {
        method: 'POST',
        headers,
        json: rpc,
      });
      const never = await http(`${stack.url}/v1/sessions/ses_${'B'.repeat(24)}/mcp`, {
        method: 'POST',
        headers,
        json: rpc,
      });
      expect(foreign.status).toBe(404);
      expect(foreign.json).toEqual({
        error: 'session_not_found',
        message: 'No session with this id.',
        request_id: 'mcp-404',
      });
      expect(never.json).toEqual(foreign.json);
    });
  });

  it('counts every MCP message by method, and tools/call by published tool, in rota_mcp_requests_total', async () => {
    const series = async () => {
      const text = (await renderMetrics()).body;
      return parsePrometheusText(text).find((f) => f.name === 'rota_mcp_requests_total')?.samples ?? [];
    };
    const value = async (labels: Record<string, string>) =>
      (await series()).find((s) => JSON.stringify(s.labels) === JSON.stringify(labels))?.value ?? 0;
    const listBefore = await value({ method: 'tools/list', tool: '' });
    const callBefore = await value({ method: 'tools/call', tool: 'codespar_list_tools' });
    const client = await connect(`${stack.url}/mcp`);
    await client.listTools();
    await client.callTool({ name: 'codespar_list_tools', arguments: {} });
    expect(await value({ method: 'tools/list', tool: '' })).toBe(listBefore + 1);
    expect(await value({ method: 'tools/call', tool: 'codespar_list_tools' })).toBe(callBefore + 1);
    expect((await series()).some((s) => s.labels.method === 'initialize')).toBe(true);
  });

  it('both MCP routes appear in /openapi.json', async () => {
    const doc = (await http(`${stack.url}/openapi.json`)).json;
    expect(doc.paths['/mcp'].post['x-required-scope']).toBe('tools:execute');
    expect(doc.paths['/v1/sessions/{id}/mcp'].post['x-required-scope']).toBe('tools:execute');
  });
});
