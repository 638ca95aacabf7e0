// Money moving under faults. Logical payments go through the four ways a
// client can charge (a raw catalog tool over execute, the proxy, the
// `codespar_charge` meta-tool over execute and the same over MCP), each with
// its own Idempotency-Key and a client that retries with that key until it
// gets a final answer. Meanwhile the stack is broken in turn: the sandbox
// answers slowly, with 5xx, accepts and never answers, or resets the
// connection; Postgres holds a lock on the call table past the deadline and
// is restarted; session replicas are killed and stopped; Redis is killed; the
// gateway and the worker are restarted. The sandbox ignores provider
// idempotency keys, so a request Rota sent twice is a second charge here.
//
// Figures, per logical payment: requests that reached the provider under its
// key (at most 1), charges made (duplicates: more than 1), answers that were
// not true (a success naming a charge the provider does not hold, a "did not
// run" for a payment the provider made during that very request, a final
// failure for a payment the provider made), and, after the reconcile sweep,
// keys left `running` and call rows left `pending` (both 0).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, sleep } from '../bench/lib/common.mjs';
import { pgClient } from './lib/infra.mjs';
import { bearer, registerSecret, send } from './lib/http.mjs';
import { fmtTally, tally } from './lib/report.mjs';

const M = 'money';
const require = createRequire(import.meta.url);
const dist = (p) => require(join(ROOT, p));

/** What the stack needs for the money part: the sandbox it calls, ignoring provider keys, and a short reconcile window. */
export async function moneySandbox() {
  const { startSandbox } = dist('apps/sandbox/dist/index.js');
  const sandbox = await startSandbox({ port: 0, ignoreIdempotencyKeys: true });
  return {
    sandbox,
    env: {
      ROTA_SANDBOX_URL: sandbox.url,
      // The sweep settles what a fault left pending within the run.
      ROTA_RECONCILE_AFTER_S: '10',
      ROTA_SWEEP_EVERY_MS: '2000',
    },
  };
}

/** The key Rota derives for the provider from the caller's key (see providerIdempotencyKey in the session service). */
function providerKey(tenant, callerKey) {
  const digest = createHash('sha256')
    .update(`${tenant.org_id}\n${tenant.project_id}\n${tenant.environment}\n${callerKey}`)
    .digest('hex');
  return `rota-${digest.slice(0, 40)}`;
}

const BUYER = { name: 'Maria Souza', document: '529.982.247-25', email: 'maria@example.com' };
const CHANNELS = ['raw', 'proxy', 'execute', 'mcp'];

/**
 * One attempt's answer, read as a client would: `ok` (with the charge id),
 * `failed` (a final refusal by the provider or Rota), `not_run` (Rota says
 * nothing reached the provider), `unknown` (it may have), `busy` (another
 * request holds the key, or a rate limit).
 */
function classify(channel, r) {
  const code = r.json?.data?.code ?? r.json?.error ?? r.json?.code;
  if (r.status <= 0) return { kind: 'unknown', why: r.status === 0 ? 'connection' : 'client timeout' };
  if (r.status === 409 && code === 'request_in_progress') return { kind: 'busy', why: code };
  if (r.status === 429) return { kind: 'busy', why: 'rate_limited' };
  if (r.status === 503 && code === 'outcome_unknown') return { kind: 'unknown', why: code };
  if (r.status === 503 || r.status === 502) return { kind: 'not_run', why: code ?? String(r.status) };
  if (r.status >= 500) return { kind: 'unknown', why: `${r.status}:${code ?? ''}` };
  if (channel === 'mcp') {
    const result = r.json?.result;
    if (!result) return { kind: 'unknown', why: `jsonrpc ${r.json?.error?.code ?? r.status}` };
    const body = result.structuredContent ?? {};
    if (!result.isError) return { kind: 'ok', id: body.data?.id, replayed: result._meta?.['rota/replayed'] === true };
    const c = body.data?.code ?? body.code;
    if (c === 'outcome_unknown') return { kind: 'unknown', why: c };
    if (c === 'request_in_progress' || c === 'rate_limited') return { kind: 'busy', why: c };
    if (c === 'upstream_unreachable' || c === 'unavailable') return { kind: 'not_run', why: c };
    return { kind: 'failed', why: c ?? 'isError' };
  }
  if (channel === 'proxy') {
    if (r.status !== 200) return { kind: 'failed', why: `${r.status}:${code ?? ''}` };
    return r.json.status >= 200 && r.json.status < 300
      ? { kind: 'ok', id: r.json.data?.id }
      : { kind: 'failed', why: `provider ${r.json.status}` };
  }
  if (r.status !== 200) return { kind: 'failed', why: `${r.status}:${code ?? ''}` };
  if (r.json.success) return { kind: 'ok', id: channel === 'raw' ? r.json.data?.body?.id : r.json.data?.id };
  if (code === 'outcome_unknown') return { kind: 'unknown', why: code };
  if (code === 'upstream_unreachable' || code === 'connection_required' || code === 'no_rail')
    return { kind: 'not_run', why: code };
  return { kind: 'failed', why: code ?? 'success false' };
}

function request(channel, session, p) {
  const input = { value: p.value, description: p.id };
  switch (channel) {
    case 'raw':
      return {
        method: 'POST',
        path: `/v1/sessions/${session}/execute`,
        body: {
          tool: 'asaas/create_payment',
          input: {
            customer: p.customer,
            billingType: 'PIX',
            value: input.value,
            dueDate: '2099-01-01',
            description: p.id,
            externalReference: p.providerKey,
          },
        },
      };
    case 'proxy':
      return {
        method: 'POST',
        path: `/v1/sessions/${session}/proxy`,
        body: {
          server: 'asaas',
          endpoint: '/v3/payments',
          method: 'POST',
          body: {
            customer: p.customer,
            billingType: 'PIX',
            value: input.value,
            dueDate: '2099-01-01',
            description: p.id,
            externalReference: p.providerKey,
          },
        },
      };
    case 'execute':
      return {
        method: 'POST',
        path: `/v1/sessions/${session}/execute`,
        body: {
          tool: 'codespar_charge',
          input: { method: 'pix', amount: input.value, currency: 'BRL', description: p.id, buyer: BUYER },
        },
      };
    case 'mcp':
      return {
        method: 'POST',
        path: `/v1/sessions/${session}/mcp`,
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'codespar_charge',
            arguments: { method: 'pix', amount: input.value, currency: 'BRL', description: p.id, buyer: BUYER },
            _meta: { idempotency_key: p.key },
          },
        },
      };
  }
}

/** A client that keeps its key and retries until the answer is final (or it runs out of patience). */
async function pay(stack, ctx, p) {
  const req = request(p.channel, ctx.session, p);
  const headers = { ...bearer(ctx.apiKey), 'content-type': 'application/json' };
  if (p.channel === 'mcp') headers.accept = 'application/json, text/event-stream';
  else headers['idempotency-key'] = p.key;
  for (let attempt = 0; attempt < ctx.maxAttempts; attempt++) {
    const before = ctx.keyed(p.providerKey);
    const r = await send(stack.base, {
      method: req.method,
      path: req.path,
      headers,
      body: JSON.stringify(req.body),
      timeoutMs: 15_000,
    });
    const a = { ...classify(p.channel, r), status: r.status, reached: ctx.keyed(p.providerKey) - before };
    p.answers.push(a);
    if (a.kind === 'ok' || a.kind === 'failed') return;
    await sleep(Math.min(3000, 250 * 2 ** attempt) + Math.random() * 200);
  }
}

async function count(db, sql, args) {
  return Number((await db.query(sql, args)).rows[0].n);
}

export async function money(stack, report, { sandbox, ci }) {
  const t0 = Date.now();
  const db0 = dist('packages/db/dist/index.js');
  const contracts = dist('packages/contracts/dist/index.js');
  const { ASAAS_SANDBOX_CUSTOMER } = dist('apps/sandbox/dist/index.js');
  const prisma = db0.createPrisma(stack.env.DATABASE_URL, { poolMax: 2 });
  let project;
  let apiKey;
  try {
    project = await new db0.ProjectRepository(prisma).create({ orgId: db0.DEV_ORG_ID, name: 'reliability-money' });
    apiKey = (
      await new db0.ApiKeyRepository(prisma).create({
        projectId: project.id,
        environment: 'test',
        scopes: [...contracts.PROJECT_SCOPES],
      })
    ).key;
  } finally {
    await prisma.$disconnect();
  }
  registerSecret(apiKey);
  const tenant = { org_id: db0.DEV_ORG_ID, project_id: project.id, environment: 'test' };
  const headers = { ...bearer(apiKey), 'content-type': 'application/json' };
  const connected = await send(stack.base, {
    method: 'POST',
    path: '/v1/connections',
    headers,
    body: JSON.stringify({ server_id: 'asaas', credentials: { api_key: 'sandbox-asaas-key' } }),
  });
  const created = await send(stack.base, {
    method: 'POST',
    path: '/v1/sessions',
    headers,
    body: JSON.stringify({ servers: ['asaas'], user_id: 'money' }),
  });
  if (![200, 201].includes(connected.status) || created.status !== 201)
    throw new Error(`money setup: connection ${connected.status}, session ${created.status}`);
  const ctx = {
    apiKey,
    session: created.json.id,
    maxAttempts: 12,
    keyed: (k) => sandbox.control.counters().keyed_requests.asaas?.[k] ?? 0,
  };
  sandbox.control.clearFaults();

  const [session1, session2] = stack.byApp('session');
  const worker = stack.byApp('worker')[0];
  const fault = (rule) => sandbox.control.addFault({ provider: 'asaas', ...rule });
  const lockStall = async (ms) => {
    const c = await pgClient(stack.env.DATABASE_URL);
    try {
      await c.query('BEGIN');
      await c.query('LOCK TABLE session_tool_calls IN ACCESS EXCLUSIVE MODE');
      await sleep(ms);
      await c.query('COMMIT');
    } finally {
      await c.end().catch(() => undefined);
    }
  };
  const window = ci ? 4000 : 10_000;
  const phases = [
    { name: 'none', act: () => sleep(window) },
    { name: 'sandbox slow', act: () => (fault({ mode: 'slow', delay_ms: 1500, times: ci ? 6 : 40 }), sleep(window)) },
    { name: 'sandbox 5xx', act: () => (fault({ mode: '5xx', times: ci ? 6 : 40 }), sleep(window)) },
    {
      name: 'sandbox accept-then-timeout',
      act: () => (fault({ mode: 'timeout_after_accept', times: ci ? 4 : 30 }), sleep(window)),
    },
    { name: 'sandbox reset', act: () => (fault({ mode: 'refuse', times: ci ? 4 : 30 }), sleep(window)) },
    { name: 'Postgres lock stall 7 s', act: () => lockStall(7000) },
    {
      name: 'session replica SIGKILL',
      act: async () => {
        session1.signal('SIGKILL');
        await session1.exited();
        await sleep(2000);
        session1.start();
      },
    },
    {
      name: 'session replica SIGSTOP 5 s',
      act: async () => {
        session2.signal('SIGSTOP');
        await sleep(5000);
        session2.signal('SIGCONT');
      },
    },
    {
      name: 'Redis SIGKILL + restart',
      act: async () => {
        await stack.redis.kill();
        await sleep(1000);
        await stack.redis.start();
      },
    },
    { name: 'Postgres restart', act: () => stack.pg.restart() },
    {
      name: 'gateway SIGTERM + start',
      act: async () => {
        stack.gateway.signal('SIGTERM');
        await stack.gateway.exited();
        stack.gateway.start();
      },
    },
    {
      name: 'worker SIGKILL + start',
      act: async () => {
        worker.signal('SIGKILL');
        await worker.exited();
        await sleep(1000);
        worker.start();
      },
    },
  ];

  // The load: workers take the next payment until the phases are over.
  const payments = [];
  let stop = false;
  const concurrency = ci ? 6 : 12;
  const maxPayments = Number(process.env.RELIABILITY_PAYMENTS ?? (ci ? 600 : 20_000));
  // Each phase starts its share of the payments, so a fast machine cannot spend them all before the first fault.
  const perPhase = Math.max(1, Math.ceil(maxPayments / phases.length));
  const startedIn = new Map();
  const next = () => {
    if (stop || payments.length >= maxPayments) return null;
    const started = startedIn.get(ctx.phase) ?? 0;
    if (started >= perPhase) return 'wait';
    startedIn.set(ctx.phase, started + 1);
    const i = payments.length;
    const key = `money-${i}-${Date.now().toString(36)}`;
    const p = {
      id: `pay-${i}`,
      key,
      providerKey: providerKey(tenant, key),
      channel: CHANNELS[i % CHANNELS.length],
      value: Math.round((10 + (i % 900) + (i % 7) / 100) * 100) / 100,
      customer: ASAAS_SANDBOX_CUSTOMER,
      answers: [],
      phase: ctx.phase,
    };
    payments.push(p);
    return p;
  };
  ctx.phase = 'none';
  const load = Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let p = next(); p; p = next()) {
        if (p === 'wait') await sleep(50);
        else await pay(stack, ctx, p);
      }
    }),
  );
  for (const phase of phases) {
    ctx.phase = phase.name;
    const tp = Date.now();
    await phase.act();
    sandbox.control.clearFaults();
    await stack.ready(60_000).catch(() => undefined);
    console.log(`   ${phase.name}: ${((Date.now() - tp) / 1000).toFixed(1)} s, ${payments.length} payments so far`);
  }
  stop = true;
  await load;

  // The sweep settles what the faults left pending (rows older than ROTA_RECONCILE_AFTER_S, every ROTA_SWEEP_EVERY_MS).
  const db = await pgClient(stack.env.DATABASE_URL);
  const pendingSql = `SELECT count(*)::int AS n FROM session_tool_calls WHERE project_id = $1 AND state = 'pending'`;
  const runningSql = `SELECT count(*)::int AS n FROM idempotency_keys WHERE project_id = $1 AND state = 'running'`;
  let pending = NaN;
  let running = NaN;
  const settleFrom = Date.now();
  try {
    for (;;) {
      pending = await count(db, pendingSql, [project.id]);
      running = await count(db, runningSql, [project.id]);
      if ((pending === 0 && running === 0) || Date.now() - settleFrom > 60_000) break;
      await sleep(1000);
    }
  } finally {
    await db.end().catch(() => undefined);
  }

  // What the provider holds, per payment: every charge made under the payment's provider key (its externalReference).
  // The sandbox keeps each tenant's objects apart: ask in this project's space, under the tag Rota sends.
  const { SANDBOX_TENANT_HEADER, tenantTag } = dist('packages/providers/dist/index.js');
  const charges = new Map();
  for (const p of payments) {
    const r = await send(sandbox.url, {
      path: `/asaas/v3/payments?limit=100&externalReference=${p.providerKey}`,
      headers: { access_token: 'sandbox-asaas-key', [SANDBOX_TENANT_HEADER]: tenantTag(tenant) },
    });
    charges.set(
      p.id,
      (r.json?.data ?? []).map((c) => c.id),
    );
  }
  const keyed = sandbox.control.counters().keyed_requests.asaas ?? {};
  let maxRequests = 0;
  let duplicates = 0;
  let untruthful = 0;
  const examples = [];
  const finals = [];
  for (const p of payments) {
    const made = charges.get(p.id);
    maxRequests = Math.max(maxRequests, keyed[p.providerKey] ?? 0);
    if (made.length > 1) duplicates++;
    const lies = [];
    for (const a of p.answers) {
      if (a.kind === 'ok' && (!a.id || !made.includes(a.id)))
        lies.push(`ok naming ${a.id ?? 'no id'} (provider holds ${made.length})`);
      if (
        a.kind === 'not_run' &&
        a.reached > 0 &&
        !p.answers.slice(0, p.answers.indexOf(a)).some((b) => b.kind === 'unknown')
      )
        lies.push(`${a.why} while the request reached the provider`);
    }
    const last = p.answers.at(-1);
    if (last?.kind === 'failed' && made.length > 0) lies.push(`final ${last.why} for a payment the provider made`);
    if (lies.length) {
      untruthful++;
      if (examples.length < 3) examples.push(`${p.channel} ${p.id} (${p.phase}): ${lies[0]}`);
    }
    finals.push(`${p.channel}:${last?.kind ?? 'none'}`);
  }
  const seconds = ((Date.now() - t0) / 1000).toFixed(0);
  report.add(M, 'logical payments (raw / proxy / execute / MCP)', `${payments.length} in ${seconds} s`, {
    target: '> 0',
    ok: payments.length > 0,
  });
  report.add(M, 'final answers', fmtTally(tally(finals)), {});
  report.add(M, 'payments started per fault', fmtTally(tally(payments.map((p) => p.phase))), {});
  report.add(M, 'provider requests per logical payment (max)', maxRequests, { target: '<= 1', ok: maxRequests <= 1 });
  report.add(M, 'duplicate charges', duplicates, { target: '0', ok: duplicates === 0 });
  report.add(M, 'untruthful answers', untruthful, { target: '0', ok: untruthful === 0, finding: examples.join('; ') });
  report.add(M, 'keys left running after the sweep', running, { target: '0', ok: running === 0 });
  report.add(M, 'rows left pending after the sweep', pending, { target: '0', ok: pending === 0 });
  return { payments: payments.length, seconds: Number(seconds) };
}
