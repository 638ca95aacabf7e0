import { randomBytes } from 'node:crypto';
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { flushTraces } from '@rota/service-kit';
import { ASAAS_SANDBOX_CUSTOMER, startSandbox, type Sandbox } from '../apps/sandbox/src';
import { http, startStack } from './helpers/stack';

jest.setTimeout(180_000);

const ASAAS_KEY = 'sandbox-asaas-key';
const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write', 'webhooks:write'] as const;

/** One span as an OTLP/JSON export carries it, flattened with its scope and resource. */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP numbering: 2 server, 3 client, 5 consumer. */
  kind: number;
  scope: string;
  service: string;
  attributes: Record<string, unknown>;
  status: number;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };

const plain = (v: OtlpValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributes = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));

/**
 * A fake OTLP/HTTP collector on 127.0.0.1: keeps every span posted to
 * `/v1/traces` in the JSON encoding, and can be told to hold its answers
 * (a collector that accepts connections and never replies).
 */
async function startCollector() {
  const spans: ExportedSpan[] = [];
  const held: ServerResponse[] = [];
  let posts = 0;
  let hang = false;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts++;
      if (hang) return void held.push(res);
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributes(rs.resource?.attributes)['service.name']);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              scope: ss.scope?.name,
              service,
              attributes: attributes(s.attributes),
              status: s.status?.code ?? 0,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    spans,
    posts: () => posts,
    hold(on: boolean) {
      hang = on;
      if (!on) for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Forwards everything to `target` and records the headers each request arrived with. */
async function startRecordingForwarder(target: string) {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A webhook receiver on 127.0.0.1 that counts what it gets. */
async function startReceiver() {
  const received: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.headers);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const traceparentOf = (traceId: string, parentId: string) => `00-${traceId}-${parentId}-01`;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

const payment = () => ({ customer: ASAAS_SANDBOX_CUSTOMER, billingType: 'PIX', value: 12.5, dueDate: '2026-12-10' });

/** What every suite below shares: the sandbox behind a forwarder that shows what Rota sent it, and a collector. */
let sandbox: Sandbox;
let forwarder: Awaited<ReturnType<typeof startRecordingForwarder>>;
let collector: Awaited<ReturnType<typeof startCollector>>;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  forwarder = await startRecordingForwarder(sandbox.url);
  collector = await startCollector();
});
afterAll(async () => {
  await collector?.close();
  await forwarder?.close();
  await sandbox?.close();
});

/** Boots a stack with a test key, an Asaas connection through the forwarder and a session. */
async function bootStack(env: Record<string, string>) {
  const stack = await startStack({
    demoCatalog: true,
    env: {
      ROTA_SANDBOX_URL: forwarder.url,
      ROTA_RPC_TIMEOUT_MS: '8000',
      ROTA_WEBHOOK_ALLOW_PRIVATE: 'true',
      ROTA_WEBHOOK_BACKOFF_MS: '50',
      ROTA_EVENTS_DISPATCH_EVERY_MS: '600000',
      ...env,
    },
  });
  const key = (await stack.key([...SCOPES], { environment: 'test' })).key;
  const api = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
    http(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...headers }, json });
  expect(
    (await api('POST', '/v1/connections', { server_id: 'asaas', credentials: { api_key: ASAAS_KEY } })).status,
  ).toBe(201);
  const s = await api('POST', '/v1/sessions', { servers: ['asaas'] });
  expect(s.status).toBe(201);
  const execute = (headers: Record<string, string> = {}) =>
    api('POST', `/v1/sessions/${s.json.id}/execute`, { tool: 'asaas/create_payment', input: payment() }, headers);
  return { stack, key, api, execute };
}

/** The traceparent the provider received for the latest payment Rota created. */
function lastProviderTraceparent(): string | undefined {
  const sent = forwarder.seen.filter((r) => r.path.includes('/asaas/')).at(-1);
  const value = sent?.headers.traceparent;
  return typeof value === 'string' ? value : undefined;
}

describe('tracing with an OTLP collector configured', () => {
  let booted: Awaited<ReturnType<typeof bootStack>>;

  /** Flushes this process's exporter until `pick` finds what it wants among the collected spans. */
  const spansUntil = <T>(what: string, pick: (spans: ExportedSpan[]) => T | undefined | false) =>
    until(what, async () => {
      await flushTraces();
      return pick(collector.spans);
    });

  beforeAll(async () => {
    booted = await bootStack({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
  });
  afterAll(async () => {
    collector.hold(false);
    await booted?.stack.close();
  });

  it('continues a caller traceparent through the gateway, the transport, the session service and the provider call', async () => {
    const traceId = hex(16);
    const callerSpan = hex(8);
    const r = await booted.execute({
      traceparent: traceparentOf(traceId, callerSpan),
      'x-request-id': 'trace-test-1',
      'idempotency-key': 'trace-1',
    });
    expect({ status: r.status, success: r.json?.success }).toEqual({ status: 200, success: true });
    // The request id is still the caller's and still answered.
    expect(r.headers.get('x-request-id')).toBe('trace-test-1');

    const sent = TRACEPARENT.exec(lastProviderTraceparent() ?? '');
    expect(sent?.[1]).toBe(traceId);

    const spans = await spansUntil('the four spans of the execute', (all) => {
      const mine = all.filter((s) => s.traceId === traceId);
      return mine.some((s) => s.scope === 'rota.gateway') && mine.some((s) => s.scope === 'rota.providers') && mine;
    });
    const gateway = spans.find((s) => s.scope === 'rota.gateway')!;
    expect(gateway).toMatchObject({
      name: 'POST /v1/sessions/:id/execute',
      kind: 2,
      parentSpanId: callerSpan,
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/v1/sessions/:id/execute',
        'http.response.status_code': 200,
        'rota.request_id': 'trace-test-1',
      },
    });
    const provider = spans.find((s) => s.scope === 'rota.providers')!;
    expect(provider).toMatchObject({
      kind: 3,
      attributes: {
        'http.request.method': 'POST',
        'http.response.status_code': 200,
        'rota.provider': 'asaas',
        'rota.tool': 'asaas/create_payment',
        'server.address': '127.0.0.1',
      },
    });
    // The provider saw exactly the span of its call as the parent.
    expect(sent?.[2]).toBe(provider.spanId);
    // From the provider call up to the caller: the session service's span, the
    // transport call that reached it, the gateway's span.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const chain: ExportedSpan[] = [];
    for (let up = byId.get(provider.parentSpanId); up; up = byId.get(up.parentSpanId)) chain.push(up);
    expect(chain.map((s) => `${s.scope} ${s.kind} ${s.name}`)).toEqual([
      'rota.session 2 session.execute',
      'rota.transport 3 session.execute',
      'rota.gateway 2 POST /v1/sessions/:id/execute',
    ]);
    expect(chain.at(-1)).toBe(gateway);
    for (const s of chain.slice(0, 2))
      expect(s.attributes).toMatchObject({ 'rpc.method': 'session.execute', 'rota.request_id': 'trace-test-1' });
    // Every span of the process is named for it (one process runs every app here).
    expect(new Set(spans.map((s) => s.service)).size).toBe(1);
    expect(spans[0]!.service).toMatch(/^rota-/);
    // Nothing secret in any attribute: not the provider key, not the caller's key.
    const text = JSON.stringify(collector.spans);
    expect(text).not.toContain(ASAAS_KEY);
    expect(text).not.toContain(booted.key);
  });

  it('shows an OAuth2 token request as a span of its own inside the provider call that needed it', async () => {
    const client = { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' };
    expect(
      (await booted.api('POST', '/v1/connections', { server_id: 'mercadopago', credentials: client })).status,
    ).toBe(201);
    const s = await booted.api('POST', '/v1/sessions', { servers: ['mercadopago'] });
    expect(s.status).toBe(201);
    const traceId = hex(16);
    const r = await booted.api(
      'POST',
      `/v1/sessions/${s.json.id}/execute`,
      {
        tool: 'mercadopago/create_payment',
        input: { transaction_amount: 10, payment_method_id: 'pix', payer: { email: 'a@b.co' } },
      },
      { traceparent: traceparentOf(traceId, hex(8)), 'idempotency-key': 'trace-oauth-1' },
    );
    expect({ status: r.status, success: r.json?.success }).toEqual({ status: 200, success: true });
    const token = await spansUntil('the token span', (all) =>
      all.find((x) => x.traceId === traceId && x.name === 'POST oauth2 token'),
    );
    expect(token).toMatchObject({
      scope: 'rota.providers',
      kind: 3,
      attributes: {
        'http.request.method': 'POST',
        'rota.provider': 'mercadopago',
        'rota.oauth2.grant': 'client_credentials',
        'server.address': '127.0.0.1',
      },
    });
    const parent = collector.spans.find((x) => x.spanId === token.parentSpanId);
    expect(parent).toMatchObject({
      scope: 'rota.providers',
      traceId,
      attributes: { 'rota.provider': 'mercadopago', 'rota.tool': 'mercadopago/create_payment' },
    });
    const text = JSON.stringify(collector.spans);
    expect(text).not.toContain(client.client_secret);
    expect(text).not.toContain('sbx_at_');
  });

  it('starts a trace of its own for a request without traceparent, and the provider continues it', async () => {
    const r = await booted.execute({ 'idempotency-key': 'trace-2' });
    expect(r.status).toBe(200);
    const requestId = r.headers.get('x-request-id')!;
    const sent = TRACEPARENT.exec(lastProviderTraceparent() ?? '');
    expect(sent).not.toBeNull();
    const gateway = await spansUntil('the gateway span', (all) =>
      all.find((s) => s.scope === 'rota.gateway' && s.attributes['rota.request_id'] === requestId),
    );
    expect(gateway.parentSpanId).toBe('');
    expect(sent![1]).toBe(gateway.traceId);
  });

  it('continues the request trace in a worker job the request enqueued', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await booted.api('POST', '/v1/webhooks', { url: receiver.url, events: ['call.*'] });
      expect(hook.status).toBe(201);
      // A delivery that went dead earlier, for the replay to send again.
      const prisma = booted.stack.db.prisma;
      const event = await prisma.event.create({
        data: {
          id: `evt_${hex(8)}`,
          type: 'call.failed',
          projectId: 'proj_dev',
          environment: 'test',
          payload: { n: 1 },
          dispatchedAt: new Date(),
        },
      });
      const delivery = await prisma.webhookDelivery.create({
        data: { id: `wdl_${hex(8)}`, subscriptionId: hook.json.id, eventId: event.id, status: 'dead' },
      });
      const traceId = hex(16);
      const replayed = await booted.api(
        'POST',
        `/v1/webhooks/${hook.json.id}/deliveries/${delivery.id}/replay`,
        {},
        { traceparent: traceparentOf(traceId, hex(8)) },
      );
      expect(replayed.status).toBe(202);
      await until('the replayed delivery', () => receiver.received.length > 0);
      const job = await spansUntil('the job span', (all) =>
        all.find((s) => s.scope === 'rota.worker' && s.name === 'webhooks.deliver' && s.traceId === traceId),
      );
      expect(job).toMatchObject({
        kind: 5,
        attributes: {
          'messaging.system': 'bullmq',
          'messaging.destination.name': 'webhooks',
          'messaging.message.id': expect.stringContaining(delivery.id),
        },
      });
      // Its parent is the worker's handling of the replay request, in the same trace.
      const parent = collector.spans.find((s) => s.spanId === job.parentSpanId)!;
      expect(parent).toMatchObject({ scope: 'rota.worker', name: 'worker.webhooks.replay', traceId });
      // The delivery itself is a client span under the job, naming the receiver's host, never its URL.
      const post = await spansUntil('the delivery span', (all) =>
        all.find((s) => s.scope === 'rota.webhooks' && s.parentSpanId === job.spanId),
      );
      expect(post).toMatchObject({
        name: 'POST webhook',
        kind: 3,
        traceId,
        attributes: { 'http.request.method': 'POST', 'server.address': '127.0.0.1', 'http.response.status_code': 200 },
      });
      expect(JSON.stringify(post.attributes)).not.toContain(receiver.url);
      // A job added outside any request (the catalog sweep the worker asks for at boot) starts a trace of its own.
      const sweep = await spansUntil('the boot sweep', (all) =>
        all.find((s) => s.scope === 'rota.worker' && s.name === 'catalog.sweep'),
      );
      expect(sweep.parentSpanId).toBe('');
    } finally {
      await receiver.close();
    }
  });

  it('never holds a request on a collector that does not answer', async () => {
    collector.hold(true);
    const before = collector.posts();
    const started = Date.now();
    for (let i = 0; i < 3; i++) {
      const r = await booted.execute({
        traceparent: traceparentOf(hex(16), hex(8)),
        'idempotency-key': `trace-hang-${i}`,
      });
      expect(r.status).toBe(200);
    }
    // The exporter's post is in the air, unanswered, while requests go on.
    void flushTraces();
    await until('an export to the silent collector', () => collector.posts() > before);
    const r = await booted.execute({ 'idempotency-key': 'trace-hang-last' });
    expect(r.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(15_000);
    collector.hold(false);
  });
});

describe('tracing without a collector', () => {
  let booted: Awaited<ReturnType<typeof bootStack>>;

  beforeAll(async () => {
    booted = await bootStack({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' });
  });
  afterAll(async () => {
    await booted?.stack.close();
  });

  it('exports nothing, answers as usual, and passes the caller trace context on to the provider unchanged', async () => {
    const posts = collector.posts();
    const traceId = hex(16);
    const callerSpan = hex(8);
    const r = await booted.execute({ traceparent: traceparentOf(traceId, callerSpan), 'idempotency-key': 'off-1' });
    expect({ status: r.status, success: r.json?.success }).toEqual({ status: 200, success: true });
    expect(r.headers.get('x-request-id')).toBeTruthy();
    // No span is recorded, so the provider's parent is the caller's own span.
    expect(lastProviderTraceparent()).toBe(traceparentOf(traceId, callerSpan));
    // And a request without one sends none.
    expect((await booted.execute({ 'idempotency-key': 'off-2' })).status).toBe(200);
    expect(lastProviderTraceparent()).toBeUndefined();
    await flushTraces();
    await new Promise((r) => setTimeout(r, 500));
    expect(collector.posts()).toBe(posts);
  });
});
