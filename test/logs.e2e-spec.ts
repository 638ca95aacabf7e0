import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LOG_STREAM_FIELDS, logStreamKey, LogEntry } from '@rota/contracts';
import { ApiKeyRepository } from '@rota/db';
import { run } from '@rota/cli';
import { loadConfig } from '@rota/service-kit';
import { SseParser, type SseEvent } from '@rota/testing';
import Redis from 'ioredis';
import { startSandbox, type Sandbox } from '../apps/sandbox/src';
import { createGateway } from '../apps/gateway/src/app.factory';
import { GatewayConfig } from '../apps/gateway/src/config';
import { insertOtherProject } from './helpers/session-fixtures';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(120_000);

const ASAAS_KEY = 'sandbox-asaas-key';
const CPF = '52998224725';
const CPF_FORMATTED = '529.982.247-25';
const CARD = '4111 1111 1111 1111';
const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write', 'logs:read'] as const;

/**
 * A Server-Sent Events reader written for the test (not the CLI's), so the
 * wire format itself is what is checked: `field: value` lines, a blank line
 * ends an event, comment lines start with `:`.
 */
async function openStream(base: string, key: string, opts: { sessionId?: string; lastEventId?: string } = {}) {
  const url = new URL('/v1/logs/stream', base);
  if (opts.sessionId) url.searchParams.set('session_id', opts.sessionId);
  const abort = new AbortController();
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${key}`, ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}) },
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const comments: string[] = [];
  const queue: SseEvent[] = [];
  let ended = false;
  /** Reads until `pred` holds over what arrived, or the stream ends. */
  const until = async (pred: () => boolean) => {
    while (!pred() && !ended) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) {
        ended = true;
        break;
      }
      const got = parser.push(decoder.decode(value, { stream: true }));
      queue.push(...got.events);
      comments.push(...got.comments);
    }
  };
  return {
    status: res.status,
    headers: res.headers,
    comments,
    /** The next `n` events (fewer only if the stream ended). */
    async take(n: number): Promise<SseEvent[]> {
      await until(() => queue.length >= n);
      return queue.splice(0, n);
    },
    /** Resolves when the server ends the stream. */
    async ended(): Promise<boolean> {
      await until(() => false);
      return ended;
    },
    async heartbeat(): Promise<void> {
      await until(() => comments.includes('heartbeat'));
    },
    close() {
      abort.abort();
    },
  };
}

describe('call logs: GET /v1/logs, the SSE stream across gateway replicas, rota logs tail', () => {
  let sandbox: Sandbox;
  let stack: Stack;
  let replica2: NestFastifyApplication;
  let url2: string;
  let key: string;
  let connectionId: string;
  const bodies: string[] = [];

  const api = async (
    base: string,
    method: string,
    path: string,
    json?: unknown,
    headers: Record<string, string> = {},
    k = key,
  ) => {
    const r = await http(`${base}${path}`, { method, headers: { authorization: `Bearer ${k}`, ...headers }, json });
    bodies.push(r.text);
    return r;
  };
  const session = async (userId: string) => {
    const s = await api(stack.url, 'POST', '/v1/sessions', { servers: ['asaas'], user_id: userId });
    expect(s.status).toBe(201);
    return s.json.id as string;
  };
  const execute = async (
    base: string,
    ses: string,
    tool: string,
    input: Record<string, unknown>,
    requestId?: string,
    k = key,
  ) => {
    const r = await api(
      base,
      'POST',
      `/v1/sessions/${ses}/execute`,
      { tool, input },
      requestId ? { 'x-request-id': requestId } : {},
      k,
    );
    expect(r.status).toBe(200);
    return r.json as { success: boolean; tool_call_id: string; data: any };
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
    stack = await startStack({
      demoCatalog: true,
      env: {
        ROTA_SANDBOX_URL: sandbox.url,
        ROTA_PROVIDER_TIMEOUT_MS: '3000',
        ROTA_RPC_TIMEOUT_MS: '15000',
        ROTA_LOCAL_EMBEDDER: 'hash',
        ROTA_SSE_HEARTBEAT_MS: '200',
      },
    });
    // A second gateway replica on the same database, Redis prefix and services.
    replica2 = await createGateway(loadConfig(GatewayConfig, { ...stack.env, PORT: '0' }));
    stack.contract.install(replica2.getHttpAdapter().getInstance());
    await replica2.listen(0, '127.0.0.1');
    url2 = `http://127.0.0.1:${(replica2.getHttpServer().address() as { port: number }).port}`;
    key = (await stack.key([...SCOPES], { environment: 'test' })).key;
    const c = await api(stack.url, 'POST', '/v1/connections', {
      server_id: 'asaas',
      credentials: { api_key: ASAAS_KEY },
    });
    expect(c.status).toBe(201);
    connectionId = c.json.id;
  });
  afterAll(async () => {
    await replica2?.close();
    await stack?.close();
    await sandbox?.close();
  });

  /** Three calls: two to the provider (one carrying personal numbers in its text), one that reaches none. */
  async function threeExecutes(base: string, ses: string, tag: string) {
    const customer = await execute(
      base,
      ses,
      'asaas/create_customer',
      { name: 'Maria', cpfCnpj: CPF, email: 'maria@example.com' },
      `${tag}-1`,
    );
    expect(customer.success).toBe(true);
    const payment = await execute(
      base,
      ses,
      'asaas/create_payment',
      {
        customer: customer.data.body.id,
        billingType: 'PIX',
        value: 49.9,
        dueDate: '2026-12-31',
        description: `cliente ${CPF_FORMATTED}, cartão ${CARD}`,
      },
      `${tag}-2`,
    );
    expect(payment.success).toBe(true);
    const list = await execute(base, ses, 'codespar_list_tools', {}, `${tag}-3`);
    expect(list.success).toBe(true);
    return [customer.tool_call_id, payment.tool_call_id, list.tool_call_id];
  }

  const noSecrets = (text: string) => {
    for (const secret of [ASAAS_KEY, key, CPF, CPF_FORMATTED, CARD, CARD.replace(/ /g, '')])
      expect(text).not.toContain(secret);
  };

  it('lists three executes newest first with every field, masked, and pages, filters and scopes them', async () => {
    const ses = await session('user_42');
    const ids = await threeExecutes(stack.url, ses, 'list');

    const r = await api(stack.url, 'GET', `/v1/logs?session_id=${ses}`);
    expect(r.status).toBe(200);
    const logs = r.json.logs as LogEntry[];
    expect(logs.map((l) => l.id)).toEqual([...ids].reverse());
    expect(r.json.next_cursor).toBeNull();
    for (const l of logs) expect(Object.keys(l).sort()).toEqual(Object.keys(LogEntry.shape).sort());
    const [list, payment, customer] = logs as [LogEntry, LogEntry, LogEntry];
    expect(customer).toMatchObject({
      request_id: 'list-1',
      org_id: 'org_dev',
      project_id: 'proj_dev',
      environment: 'test',
      session_id: ses,
      user_id: 'user_42',
      connection_id: connectionId,
      tool: 'asaas/create_customer',
      server: 'asaas',
      endpoint: null,
      outcome: 'success',
      error_code: null,
      error: null,
      upstream_status: 200,
      attempts: 1,
      retries: 0,
      parameters: { name: 'Maria', cpfCnpj: '*********25', email: 'maria@example.com' },
    });
    expect(customer.bytes_in).toBeGreaterThan(0);
    expect(customer.bytes_out).toBeGreaterThan(0);
    expect((payment.parameters as { description: string }).description).toBe(
      'cliente ***.***.***-25, cartão **** **** **** 1111',
    );
    expect(list).toMatchObject({
      tool: 'codespar_list_tools',
      server: null,
      connection_id: null,
      upstream_status: null,
      attempts: 0,
      outcome: 'success',
      user_id: 'user_42',
      request_id: 'list-3',
    });
    noSecrets(r.text);
    // The rows themselves hold the masked parameters, not just the answer.
    const rows = await stack.db.prisma.sessionToolCall.findMany({ where: { sessionId: ses } });
    noSecrets(JSON.stringify(rows.map((row) => row.input)));

    // Paging: two, then the last one, then nothing more.
    const p1 = await api(stack.url, 'GET', `/v1/logs?session_id=${ses}&limit=2`);
    expect(p1.json.logs.map((l: LogEntry) => l.id)).toEqual([ids[2], ids[1]]);
    const p2 = await api(stack.url, 'GET', `/v1/logs?session_id=${ses}&limit=2&cursor=${p1.json.next_cursor}`);
    expect(p2.json.logs.map((l: LogEntry) => l.id)).toEqual([ids[0]]);
    expect(p2.json.next_cursor).toBeNull();

    // Filters.
    const byTool = await api(stack.url, 'GET', `/v1/logs?session_id=${ses}&tool=asaas/create_payment`);
    expect(byTool.json.logs.map((l: LogEntry) => l.id)).toEqual([ids[1]]);
    const byServer = await api(stack.url, 'GET', `/v1/logs?session_id=${ses}&server=asaas`);
    expect(byServer.json.logs.map((l: LogEntry) => l.id)).toEqual([ids[1], ids[0]]);
    expect((await api(stack.url, 'GET', `/v1/logs?session_id=${ses}&outcome=error`)).json.logs).toEqual([]);
    expect((await api(stack.url, 'GET', `/v1/logs?session_id=${ses}&outcome=success`)).json.logs).toHaveLength(3);
    const first = customer.called_at;
    expect(
      (await api(stack.url, 'GET', `/v1/logs?session_id=${ses}&to=${encodeURIComponent(first)}`)).json.logs,
    ).toEqual([]);
    expect(
      (await api(stack.url, 'GET', `/v1/logs?session_id=${ses}&from=${encodeURIComponent(first)}`)).json.logs,
    ).toHaveLength(3);

    // Refusals in the envelope.
    expect((await api(stack.url, 'GET', '/v1/logs?outcome=maybe')).json.error).toBe('invalid_query');
    expect((await api(stack.url, 'GET', '/v1/logs?cursor=bm9wZQ')).json.error).toBe('invalid_query');
    expect((await api(stack.url, 'GET', '/v1/logs?from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z')).json.error).toBe(
      'invalid_query',
    );
    const noScope = (await stack.key(['servers:read'], { environment: 'test' })).key;
    expect((await api(stack.url, 'GET', '/v1/logs', undefined, {}, noScope)).status).toBe(403);

    // Another environment of the project, and another project, see none of it.
    const live = (await stack.key(['logs:read'], { environment: 'live' })).key;
    expect((await api(stack.url, 'GET', `/v1/logs?session_id=${ses}`, undefined, {}, live)).json.logs).toEqual([]);
    await insertOtherProject(stack.db.prisma);
    const other = (await stack.key(['logs:read'], { environment: 'test', projectId: 'proj_other' })).key;
    expect((await api(stack.url, 'GET', '/v1/logs', undefined, {}, other)).json.logs).toEqual([]);
  });

  it('records proxy calls with their endpoint', async () => {
    const ses = await session('user_proxy');
    const r = await api(stack.url, 'POST', `/v1/sessions/${ses}/proxy`, {
      server: 'asaas',
      endpoint: '/v3/customers',
      method: 'POST',
      body: { name: 'João', cpfCnpj: '11.222.333/0001-81' },
      headers: { 'x-trace': 't' },
    });
    expect(r.status).toBe(200);
    const logs = (await api(stack.url, 'GET', `/v1/logs?session_id=${ses}`)).json.logs as LogEntry[];
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      id: r.json.proxy_call_id,
      tool: 'proxy',
      server: 'asaas',
      endpoint: 'POST /v3/customers',
      connection_id: connectionId,
      upstream_status: r.json.status,
      parameters: { body: { name: 'João', cpfCnpj: '**.***.***/****-81' } },
    });
  });

  it('records MCP tools/call on a session URL and in the project context', async () => {
    const ses = await session('user_mcp');
    const mcp = (path: string, id: number, name: string, args: Record<string, unknown>, requestId: string) =>
      api(
        stack.url,
        'POST',
        path,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
        { accept: 'application/json, text/event-stream', 'x-request-id': requestId },
      );
    // MCP publishes the meta-tools: a discover whose text carries a CPF and a card number.
    const useCase = `cobrar a cliente ${CPF_FORMATTED} no cartão ${CARD}`;
    const onSession = await mcp(
      `/v1/sessions/${ses}/mcp`,
      1,
      'codespar_discover',
      { use_case: useCase, limit: 3 },
      'mcp-session',
    );
    expect(onSession.status).toBe(200);
    expect(onSession.json.result.isError).toBe(false);
    const inProject = await mcp('/mcp', 2, 'codespar_list_tools', {}, 'mcp-project');
    expect(inProject.status).toBe(200);

    const [viaSession] = (await api(stack.url, 'GET', `/v1/logs?session_id=${ses}`)).json.logs as LogEntry[];
    expect(viaSession).toMatchObject({
      tool: 'codespar_discover',
      server: null,
      session_id: ses,
      user_id: 'user_mcp',
      org_id: 'org_dev',
      connection_id: null,
      request_id: 'mcp-session',
      upstream_status: null,
      attempts: 0,
      outcome: 'success',
      parameters: { use_case: 'cobrar a cliente ***.***.***-25 no cartão **** **** **** 1111', limit: 3 },
    });
    const projectCalls = (await api(stack.url, 'GET', '/v1/logs?tool=codespar_list_tools&limit=200')).json
      .logs as LogEntry[];
    expect(projectCalls.find((l) => l.request_id === 'mcp-project')).toMatchObject({
      session_id: null,
      user_id: null,
      org_id: 'org_dev',
      outcome: 'success',
    });
    noSecrets(JSON.stringify([viaSession, projectCalls]));

    // Operator keys act on the deployment, not on one project's records.
    expect((await api(stack.url, 'GET', '/v1/logs', undefined, {}, (await stack.operatorKey()).key)).status).toBe(403);
  });

  it('streams a call made through replica 2 to a subscriber on replica 1, resumes from Last-Event-ID without gap or duplicate, and tail prints the same', async () => {
    const ses = await session('user_sse');
    const stream = await openStream(stack.url, key, { sessionId: ses });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const ids = await threeExecutes(url2, ses, 'sse');
    const events = await stream.take(3);
    expect(events.map((e) => e.event)).toEqual(['call', 'call', 'call']);
    const entries = events.map((e) => LogEntry.parse(JSON.parse(e.data)));
    expect(entries.map((e) => e.id)).toEqual(ids);
    expect(entries.map((e) => e.request_id)).toEqual(['sse-1', 'sse-2', 'sse-3']);
    expect(entries[0]).toMatchObject({
      session_id: ses,
      user_id: 'user_sse',
      connection_id: connectionId,
      upstream_status: 200,
      outcome: 'success',
    });
    noSecrets(events.map((e) => e.data).join('\n'));
    // Event ids are stream positions, strictly increasing.
    const eventIds = events.map((e) => e.id!);
    const position = (id: string) => id.split('-').map(Number) as [number, number];
    for (let i = 1; i < eventIds.length; i++) {
      const [a, b] = [position(eventIds[i - 1]!), position(eventIds[i]!)];
      expect(a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])).toBe(true);
    }
    // The listed records and the streamed ones are the same records.
    const listed = (await api(stack.url, 'GET', `/v1/logs?session_id=${ses}`)).json.logs as LogEntry[];
    expect([...listed].reverse()).toEqual(entries);

    // The subscriber goes away; two more calls happen meanwhile; it comes back
    // saying the first event is the last it saw.
    stream.close();
    const later = [
      (await execute(url2, ses, 'codespar_list_tools', {}, 'sse-4')).tool_call_id,
      (await execute(url2, ses, 'codespar_get_started', {}, 'sse-5')).tool_call_id,
    ];
    const resumed = await openStream(stack.url, key, { sessionId: ses, lastEventId: eventIds[0] });
    const missed = await resumed.take(4);
    expect(missed.map((e) => (JSON.parse(e.data) as LogEntry).id)).toEqual([ids[1], ids[2], ...later]);
    expect(missed.map((e) => e.id)).toEqual([eventIds[1], eventIds[2], expect.any(String), expect.any(String)]);
    // Live again after the catch-up: the next call arrives once.
    const next = (await execute(url2, ses, 'codespar_list_tools', {}, 'sse-6')).tool_call_id;
    const [live] = await resumed.take(1);
    expect((JSON.parse(live!.data) as LogEntry).id).toBe(next);
    // Heartbeats are comment lines.
    await resumed.heartbeat();
    expect(resumed.comments).toContain('heartbeat');
    resumed.close();

    // rota logs tail --json, from the same position, prints the same events.
    let stdout = '';
    const code = await run(['logs', 'tail', '--json', '--session', ses, '--since', eventIds[0]!, '--limit', '5'], {
      stdout: (t) => void (stdout += t),
      stderr: () => undefined,
      env: { ROTA_URL: url2, ROTA_API_KEY: key, ROTA_CONFIG_DIR: '/nonexistent' },
    });
    expect(code).toBe(0);
    const printed = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; event: string; data: LogEntry });
    expect(printed.map((p) => p.id)).toEqual([...missed.map((e) => e.id), live!.id]);
    expect(printed.map((p) => p.data)).toEqual([...missed, live!].map((e) => JSON.parse(e.data)));
    expect(printed.every((p) => p.event === 'call')).toBe(true);

    // The human form: one line per call.
    let human = '';
    expect(
      await run(['logs', 'tail', '--session', ses, '--since', eventIds[0]!, '--limit', '2'], {
        stdout: (t) => void (human += t),
        stderr: () => undefined,
        env: { ROTA_URL: stack.url, ROTA_API_KEY: key, ROTA_CONFIG_DIR: '/nonexistent' },
      }),
    ).toBe(0);
    expect(human.trim().split('\n')).toHaveLength(2);
    expect(human).toContain('asaas/create_payment [200]');
  });

  it('shows a project only its own calls, and refuses before streaming', async () => {
    await insertOtherProject(stack.db.prisma);
    const otherKey = (await stack.key([...SCOPES], { environment: 'test', projectId: 'proj_other' })).key;
    const otherStream = await openStream(url2, otherKey);
    const mine = await openStream(url2, key);
    const ses = await session('user_iso');
    const mineIds = await threeExecutes(stack.url, ses, 'iso');
    // The other project's first event is its own call, made after ours.
    const otherSession = (await api(stack.url, 'POST', '/v1/sessions', { servers: ['asaas'] }, {}, otherKey)).json
      .id as string;
    const theirs = await execute(stack.url, otherSession, 'codespar_list_tools', {}, 'iso-other', otherKey);
    const [first] = await otherStream.take(1);
    expect((JSON.parse(first!.data) as LogEntry).id).toBe(theirs.tool_call_id);
    expect((await mine.take(3)).map((e) => (JSON.parse(e.data) as LogEntry).id)).toEqual(mineIds);
    otherStream.close();
    mine.close();

    expect((await http(`${stack.url}/v1/logs/stream`)).status).toBe(401);
    const noScope = (await stack.key(['servers:read'], { environment: 'test' })).key;
    expect(
      (await http(`${stack.url}/v1/logs/stream`, { headers: { authorization: `Bearer ${noScope}` } })).status,
    ).toBe(403);
    const bad = await http(`${stack.url}/v1/logs/stream`, {
      headers: { authorization: `Bearer ${key}`, 'last-event-id': 'yesterday' },
    });
    expect({ status: bad.status, error: bad.json?.error }).toEqual({ status: 400, error: 'invalid_last_event_id' });
    const operator = (await stack.operatorKey()).key;
    expect(
      (await http(`${stack.url}/v1/logs/stream`, { headers: { authorization: `Bearer ${operator}` } })).status,
    ).toBe(403);
  });

  it('says when a resumed position was trimmed, and ends a stream whose key is revoked', async () => {
    const redis = new Redis(stack.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const streamKey = logStreamKey(stack.env.ROTA_REDIS_PREFIX!);
      const [oldest] = (await redis.xrange(streamKey, '-', '+', 'COUNT', 1)) as [string, string[]][];
      expect(oldest![1]).toContain(LOG_STREAM_FIELDS.project);
      await redis.xtrim(streamKey, 'MAXLEN', 1);
      const resumed = await openStream(stack.url, key, { lastEventId: oldest![0] });
      const [gap] = await resumed.take(1);
      expect(gap).toMatchObject({ event: 'gap', id: null });
      expect(JSON.parse(gap!.data)).toMatchObject({ after: oldest![0], oldest_id: expect.any(String) });
      resumed.close();
    } finally {
      redis.disconnect();
    }

    const { id, key: doomed } = await stack.key(['logs:read'], { environment: 'test' });
    const s = await openStream(stack.url, doomed);
    expect(s.status).toBe(200);
    await new ApiKeyRepository(stack.db.prisma).revoke(id);
    expect(await s.ended()).toBe(true);
  });
});
