import { LOG_STREAM_FIELDS, logStreamKey } from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import Redis from 'ioredis';
import { ASAAS_SANDBOX_CUSTOMER, startSandbox, type Sandbox } from '../apps/sandbox/src';
import { WorkerConfig } from '../apps/worker/src/config';
import { reconcileCalls } from '../apps/worker/src/jobs/calls-reconcile';
import { lookupThrough, publishThrough } from '../apps/worker/src/jobs/create-runner';
import { SessionsRepository } from '../apps/worker/src/jobs/sessions.repository';
import { loadConfig } from '@rota/service-kit';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(120_000);

const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;

/**
 * The reconcile sweep against the sandbox: a money call whose service died
 * between sending and completing is left `pending`; the sweep asks the
 * provider by the idempotency key Rota sent, through the session service
 * (which alone opens credentials), and settles the row with what it learns.
 */
describe('calls.reconcile asks the provider by idempotency key', () => {
  let sandbox: Sandbox;
  let stack: Stack;
  let key: string;
  let session: string;
  let sweep: () => Promise<{ found: number; unknown: number }>;

  const api = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
    http(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...headers }, json });
  const execute = (tool: string, input: Record<string, unknown>, headers: Record<string, string> = {}) =>
    api('POST', `/v1/sessions/${session}/execute`, { tool, input }, headers);
  const row = (id: string) => stack.db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id } });

  /** What a crash between the provider's answer and the completion leaves behind: the row pending, its key running, both old. */
  const crashAfterSending = async (toolCallId: string) => {
    const old = new Date(Date.now() - 10 * 60_000);
    await stack.db.prisma.sessionToolCall.update({
      where: { id: toolCallId },
      data: { state: 'pending', success: false, upstreamStatus: null, calledAt: old },
    });
    await stack.db.prisma.idempotencyKey.updateMany({ where: { toolCallId }, data: { state: 'running' } });
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
    stack = await startStack({
      demoCatalog: true,
      env: { ROTA_SANDBOX_URL: sandbox.url, ROTA_RPC_TIMEOUT_MS: '8000', ROTA_LOCAL_EMBEDDER: 'hash' },
    });
    key = (await stack.key([...SCOPES], { environment: 'test' })).key;
    expect(
      (await api('POST', '/v1/connections', { server_id: 'asaas', credentials: { api_key: 'sandbox-asaas-key' } }))
        .status,
    ).toBe(201);
    expect(
      (
        await api('POST', '/v1/connections', {
          server_id: 'mercadopago',
          credentials: { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' },
        })
      ).status,
    ).toBe(201);
    const s = await api('POST', '/v1/sessions', { servers: ['asaas', 'mercadopago', 'melhorenvio'] });
    expect(s.status).toBe(201);
    session = s.json.id;
    // The worker's own transport client and the sweep the scheduler runs, driven here once per test.
    const rpc = stack.services.worker.app.get(RpcClient);
    const config = loadConfig(WorkerConfig, stack.env);
    sweep = () =>
      reconcileCalls(
        new SessionsRepository(stack.db.prisma),
        lookupThrough(rpc, config),
        config.ROTA_RECONCILE_AFTER_S,
        undefined,
        publishThrough(rpc, config),
      );
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
  });

  it('completes an Asaas charge the provider made, and a retry with the caller’s key gets it without a second charge', async () => {
    const first = await execute(
      'asaas/create_payment',
      {
        customer: ASAAS_SANDBOX_CUSTOMER,
        billingType: 'PIX',
        value: 80,
        dueDate: '2026-12-20',
        externalReference: 'reconcile-1',
      },
      { 'idempotency-key': 'reconcile-asaas' },
    );
    expect(first.json).toMatchObject({ success: true });
    const paymentId = first.json.data.body.id as string;
    await crashAfterSending(first.json.tool_call_id);
    const charges = sandbox.control.counters().charges_created;
    const lookups = () => sandbox.control.counters().requests.asaas?.find_payment_by_idempotency_key ?? 0;
    const before = lookups();

    expect(await sweep()).toEqual({ found: 1, unknown: 0 });
    expect(lookups()).toBe(before + 1);
    const done = await row(first.json.tool_call_id);
    expect(done).toMatchObject({ state: 'done', success: true, upstreamStatus: 200 });
    expect(done.output).toMatchObject({
      status: 200,
      body: { id: paymentId, value: 80 },
      reconciled: { looked_up: true, outcome: 'found' },
    });

    const again = await execute(
      'asaas/create_payment',
      {
        customer: ASAAS_SANDBOX_CUSTOMER,
        billingType: 'PIX',
        value: 80,
        dueDate: '2026-12-20',
        externalReference: 'reconcile-1',
      },
      { 'idempotency-key': 'reconcile-asaas' },
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toMatchObject({
      success: true,
      tool_call_id: first.json.tool_call_id,
      data: { status: 200, body: { id: paymentId }, reconciled: true },
    });
    expect(sandbox.control.counters().charges_created).toBe(charges);
  });

  it('puts each call it settles on the live call log stream, masked like any streamed call', async () => {
    const redis = new Redis(stack.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const streamed = async (id: string) => {
        const entries = await redis.xrevrange(logStreamKey(stack.env.ROTA_REDIS_PREFIX!), '+', '-', 'COUNT', 200);
        return entries
          .map(([, fields]) => JSON.parse(fields[fields.indexOf(LOG_STREAM_FIELDS.data) + 1]!))
          .filter((e: { id: string }) => e.id === id);
      };
      const first = await execute(
        'asaas/create_payment',
        {
          customer: ASAAS_SANDBOX_CUSTOMER,
          billingType: 'PIX',
          value: 12,
          dueDate: '2026-12-20',
          externalReference: 'reconcile-stream',
        },
        { 'idempotency-key': 'reconcile-stream' },
      );
      expect(first.json).toMatchObject({ success: true });
      const id = first.json.tool_call_id as string;
      // The call streamed once when it finished; the crash makes it pending again.
      expect(await streamed(id)).toHaveLength(1);
      await crashAfterSending(id);
      expect(await sweep()).toEqual({ found: 1, unknown: 0 });
      let events: Array<Record<string, unknown>> = [];
      for (let i = 0; i < 50 && events.length < 2; i++) {
        events = await streamed(id);
        if (events.length < 2) await new Promise((r) => setTimeout(r, 100));
      }
      expect(events).toHaveLength(2);
      expect(events[0]).toMatchObject({
        id,
        project_id: expect.any(String),
        outcome: 'success',
        upstream_status: 200,
        tool: 'asaas/create_payment',
      });
      expect(JSON.stringify(events[0])).not.toContain('sandbox-asaas-key');
    } finally {
      redis.disconnect();
    }
  });

  it('completes a Mercado Pago payment the same way, with an OAuth2 token', async () => {
    const body = {
      transaction_amount: 31.5,
      payment_method_id: 'pix',
      description: 'reconcile',
      payer: { email: 'buyer@example.com' },
    };
    const first = await execute('mercadopago/create_payment', body, { 'idempotency-key': 'reconcile-mp' });
    expect(first.json).toMatchObject({ success: true });
    await crashAfterSending(first.json.tool_call_id);

    expect(await sweep()).toEqual({ found: 1, unknown: 0 });
    const done = await row(first.json.tool_call_id);
    expect(done).toMatchObject({ state: 'done', success: true });
    expect(done.output).toMatchObject({
      body: { id: first.json.data.body.id, transaction_amount: 31.5 },
      reconciled: { outcome: 'found' },
    });
  });

  it('marks the call outcome_unknown, saying it looked, when the provider holds nothing under the key', async () => {
    const first = await execute('asaas/create_payment', {
      customer: ASAAS_SANDBOX_CUSTOMER,
      billingType: 'PIX',
      value: 12,
      dueDate: '2026-12-20',
    });
    // The request never reached the provider under this key (it crashed before sending, say).
    await crashAfterSending(first.json.tool_call_id);
    await stack.db.prisma.sessionToolCall.update({
      where: { id: first.json.tool_call_id },
      data: { providerIdempotencyKey: 'rota-never-sent' },
    });

    expect(await sweep()).toEqual({ found: 0, unknown: 1 });
    const unknown = await row(first.json.tool_call_id);
    expect(unknown.state).toBe('outcome_unknown');
    expect(unknown.output).toMatchObject({
      code: 'outcome_unknown',
      reconciled: { looked_up: true, outcome: 'not_found' },
    });
  });

  it('marks the call outcome_unknown without asking when the catalog gives the provider no lookup', async () => {
    const stale = 'tc_reconcile_nolookup';
    const project = await stack.db.prisma.project.findUniqueOrThrow({ where: { id: 'proj_dev' } });
    await stack.db.prisma.sessionToolCall.create({
      data: {
        id: stale,
        sessionId: session,
        projectId: 'proj_dev',
        orgId: project.orgId,
        environment: 'test',
        tool: 'melhorenvio/create_label',
        server: 'melhorenvio',
        input: {},
        success: false,
        durationMs: 0,
        calledAt: new Date(Date.now() - 10 * 60_000),
        state: 'pending',
        providerIdempotencyKey: 'rota-label',
      },
    });
    const requests = sandbox.control.counters().requests_total;
    expect(await sweep()).toEqual({ found: 0, unknown: 1 });
    expect(sandbox.control.counters().requests_total).toBe(requests);
    expect((await row(stale)).output).toMatchObject({
      code: 'outcome_unknown',
      reconciled: { looked_up: false, outcome: 'not_supported' },
    });
  });

  it('looks up a call that ended outcome_unknown (the provider took it and never answered): a retry with the key gets it, reconciled, on execute and the proxy', async () => {
    const input = {
      customer: ASAAS_SANDBOX_CUSTOMER,
      billingType: 'PIX',
      value: 21,
      dueDate: '2026-12-20',
      externalReference: 'reconcile-unknown',
    };
    sandbox.control.addFault({ provider: 'asaas', route: 'create_payment', mode: 'timeout_after_accept', times: 2 });
    const charges = sandbox.control.counters().charges_created;
    const first = await execute('asaas/create_payment', input, { 'idempotency-key': 'reconcile-unknown' });
    expect(first.json).toMatchObject({ success: false, data: { code: 'outcome_unknown' } });
    const proxyBody = {
      server: 'asaas',
      endpoint: '/v3/payments',
      method: 'POST',
      body: { ...input, externalReference: 'reconcile-unknown-proxy' },
    };
    const proxied = await api('POST', `/v1/sessions/${session}/proxy`, proxyBody, {
      'idempotency-key': 'reconcile-unknown-proxy',
    });
    expect(proxied.status).toBe(503);
    expect(proxied.json).toMatchObject({ error: 'outcome_unknown' });
    expect(sandbox.control.counters().charges_created).toBe(charges + 2);
    // Old enough for the sweep (the 503 names no call row, so both are found by their state).
    expect(
      await stack.db.prisma.$executeRawUnsafe(
        `UPDATE session_tool_calls SET called_at = now() - interval '10 minutes' WHERE state = 'outcome_unknown' AND called_at > now() - interval '5 minutes'`,
      ),
    ).toBe(2);

    expect(await sweep()).toEqual({ found: 2, unknown: 0 });
    const again = await execute('asaas/create_payment', input, { 'idempotency-key': 'reconcile-unknown' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toMatchObject({
      success: true,
      tool_call_id: first.json.tool_call_id,
      data: { status: 200, body: { value: 21 }, reconciled: true },
    });
    const proxyAgain = await api('POST', `/v1/sessions/${session}/proxy`, proxyBody, {
      'idempotency-key': 'reconcile-unknown-proxy',
    });
    expect(proxyAgain.status).toBe(200);
    expect(proxyAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(proxyAgain.json).toMatchObject({
      status: 200,
      data: { externalReference: 'reconcile-unknown-proxy' },
      reconciled: true,
    });
    expect(sandbox.control.counters().charges_created).toBe(charges + 2);
    // Asked once: a second sweep finds nothing left to settle.
    expect(await sweep()).toEqual({ found: 0, unknown: 0 });
  });
});
