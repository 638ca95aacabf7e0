// Provider calls benchmark, one call at a time, all in one run:
//   - the sandbox provider called directly (what the provider itself costs);
//   - execute codespar_list_tools (the pipeline without a provider);
//   - execute asaas/get_payment (a raw GET tool through the gateway);
//   - POST /v1/sessions/{id}/proxy GET /v3/payments/{id};
//   - execute asaas/create_payment (a money call: a pending row written and
//     flushed before sending, completed after);
// and, on its own line, the durable writes a money call needs (insert the
// pending row, then complete it, both flushed to disk) measured against the
// same database, and the same under a caller's idempotency key as written
// before and after claims carried a token (bench/lib/keyed-writes.mjs). Needs a build (`pnpm build`), Postgres and Redis.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, fmt, sandboxStack, sequential as timed, table } from './lib/common.mjs';
import { keyedWrites } from './lib/keyed-writes.mjs';

const require = createRequire(import.meta.url);
const N = Number(process.env.BENCH_PROVIDER_CALLS ?? 300);

const sequential = (fn, n = N) => timed(fn, n);

export async function providersBench() {
  const { ASAAS_SANDBOX_CUSTOMER } = require(join(ROOT, 'apps/sandbox/dist/index.js'));
  const { sandbox, db, key, base, close } = await sandboxStack('providers', ['search', 'session']);
  try {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = async (path, body, extra = {}) => {
      const r = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...headers, ...extra },
        body: JSON.stringify(body),
      });
      const json = await r.json();
      if (!r.ok) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(json)}`);
      return json;
    };
    await post('/v1/connections', { server_id: 'asaas', credentials: { api_key: 'sandbox-asaas-key' } });
    const { id: session } = await post('/v1/sessions', { servers: ['asaas'] });
    const payment = { customer: ASAAS_SANDBOX_CUSTOMER, billingType: 'PIX', value: 10, dueDate: '2026-12-31' };
    const created = await post(`/v1/sessions/${session}/execute`, { tool: 'asaas/create_payment', input: payment });
    if (!created.success) throw new Error(`create_payment failed: ${JSON.stringify(created.data)}`);
    const paymentId = created.data.body.id;
    const execute = async (tool, input) => {
      const r = await post(`/v1/sessions/${session}/execute`, { tool, input });
      if (!r.success) throw new Error(`${tool}: ${JSON.stringify(r.data)}`);
    };

    const rows = [];
    const direct = await sequential(async () => {
      const r = await fetch(`${sandbox.url}/asaas/v3/payments/${paymentId}`, {
        headers: { access_token: 'sandbox-asaas-key' },
      });
      await r.arrayBuffer();
    });
    const listTools = await sequential(() => execute('codespar_list_tools', {}));
    const rawGet = await sequential(() => execute('asaas/get_payment', { id: paymentId }));
    const proxyGet = await sequential(() =>
      post(`/v1/sessions/${session}/proxy`, { server: 'asaas', endpoint: `/v3/payments/${paymentId}`, method: 'GET' }),
    );
    const money = await sequential(() => execute('asaas/create_payment', payment), Math.min(N, 150));
    const add = (r) => `${fmt(r.p50 - listTools.p50 - direct.p50, 2)}`;
    rows.push({
      call: 'sandbox GET, direct',
      'p50 ms': fmt(direct.p50, 2),
      'p95 ms': fmt(direct.p95, 2),
      'added over list_tools + provider': '',
    });
    rows.push({
      call: 'execute codespar_list_tools',
      'p50 ms': fmt(listTools.p50, 2),
      'p95 ms': fmt(listTools.p95, 2),
      'added over list_tools + provider': '',
    });
    rows.push({
      call: 'execute asaas/get_payment (raw GET)',
      'p50 ms': fmt(rawGet.p50, 2),
      'p95 ms': fmt(rawGet.p95, 2),
      'added over list_tools + provider': add(rawGet),
    });
    rows.push({
      call: 'proxy GET /v3/payments/{id}',
      'p50 ms': fmt(proxyGet.p50, 2),
      'p95 ms': fmt(proxyGet.p95, 2),
      'added over list_tools + provider': add(proxyGet),
    });
    rows.push({
      call: 'execute asaas/create_payment (money)',
      'p50 ms': fmt(money.p50, 2),
      'p95 ms': fmt(money.p95, 2),
      'added over list_tools + provider': '',
    });

    // The durable writes of one money call, alone: insert pending, complete, both flushed.
    const pg = require(join(ROOT, 'node_modules/pg'));
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    let n = 0;
    const writes = await sequential(async () => {
      const id = `tc_bench_${n++}`;
      await client.query(
        `INSERT INTO session_tool_calls (id, project_id, environment, tool, server, input, success, duration_ms, state, attempts) VALUES ($1, 'proj_dev', 'test', 'asaas/create_payment', 'asaas', '{}', false, 0, 'pending', 0)`,
        [id],
      );
      await client.query(
        `UPDATE session_tool_calls SET state = 'done', success = true, upstream_status = 200, attempts = 1 WHERE id = $1`,
        [id],
      );
    });
    // The same under a caller's idempotency key, as written before claims carried a token and as written now, taking turns.
    const keyed = await keyedWrites(client, Math.min(N, 300), { tool: 'asaas/create_payment', server: 'asaas' });
    await client.end();

    console.log(
      `\n## Provider calls, one at a time, ${N} each (gateway, session and search services, sandbox in process)`,
    );
    table(rows);
    console.log(
      `durable writes of a money call (pending insert + completion, synchronous commit): p50 ${fmt(writes.p50, 2)} ms, p95 ${fmt(writes.p95, 2)} ms`,
    );
    console.log(
      `durable writes of a keyed money call (claim, pending + key, completion + key): p50 ${fmt(keyed.now.p50, 2)} ms (p95 ${fmt(keyed.now.p95, 2)}) with the claim token and one completion statement, ${fmt(keyed.before.p50, 2)} ms (p95 ${fmt(keyed.before.p95, 2)}) as before; added ${fmt(keyed.added, 2)} ms (target <= 0.3)`,
    );
    console.log(`sandbox charges created: ${sandbox.control.counters().charges_created}`);
  } finally {
    await close();
  }
}
