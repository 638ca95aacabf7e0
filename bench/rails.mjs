// Acting meta-tools benchmark, one call at a time, all in one run:
//   - the sandbox's create-payment called directly (what the provider itself costs);
//   - execute codespar_list_tools (the pipeline without a provider);
//   - execute codespar_charge by Pix, routed to a rail at execute time (router
//     select, pending row flushed before sending, one provider request,
//     completion, result mapping);
// the figure that matters is what the charge adds over list_tools plus the
// provider. On their own lines: the durable writes of the call (insert the
// pending row with its attempt, complete it, both flushed) and the routing
// decision in process. Needs a build (`pnpm build`), Postgres and Redis.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, fmt, interleaved, sandboxStack, sequential as timed, table } from './lib/common.mjs';
import { keyedWrites } from './lib/keyed-writes.mjs';

const require = createRequire(import.meta.url);
const N = Number(process.env.BENCH_RAIL_CALLS ?? 300);

const sequential = (fn, n = N) => timed(fn, n);

/** The router's choice for a charge among three connected rails with a day of telemetry, in process. */
function routingDecision() {
  const { executableRails, decide } = require(join(ROOT, 'apps/router/dist/route/select.service.js'));
  const { emptyStats } = require(join(ROOT, 'apps/router/dist/telemetry/window.js'));
  const req = { tool: 'codespar_charge', action: 'charge', method: 'pix', currency: 'BRL', amount_minor: '4990' };
  const fits = executableRails(req);
  const set = {
    org_id: 'o',
    project_id: 'p',
    environment: 'test',
    providers: { asaas: 'connected', mercadopago: 'connected', pagarme: 'connected' },
    catalog: ['asaas', 'mercadopago', 'pagarme'],
    refreshed_at: '',
  };
  const stats = new Map(
    fits.map((r, i) => {
      const s = emptyStats();
      s.attempts = 1000 + i;
      s.successes = 990 - i * 5;
      return [`${r.provider_id}|${r.tool}`, s];
    }),
  );
  const once = () => decide(req, executableRails(req), set, stats, emptyStats);
  for (let i = 0; i < 2000; i++) once();
  const samples = [];
  for (let i = 0; i < 20000; i++) {
    const t0 = process.hrtime.bigint();
    once();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return {
    p50: samples[Math.floor(samples.length * 0.5)],
    p99: samples[Math.floor(samples.length * 0.99)],
    rails: fits.length,
  };
}

export async function railsBench() {
  const decision = routingDecision();
  const { sandbox, db, key, base, close } = await sandboxStack('rails', ['search', 'session', 'router']);
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
    // One connected Pix rail that answers in a single request, so the provider's share is one call.
    await post('/v1/connections', {
      server_id: 'mercadopago',
      credentials: { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' },
    });
    const { id: session } = await post('/v1/sessions', { servers: ['mercadopago'] });
    const charge = {
      method: 'pix',
      amount: 49.9,
      currency: 'BRL',
      description: 'Pedido',
      buyer: { name: 'Maria', email: 'maria@example.com', document: '52998224725' },
    };
    const execute = async (tool, input) => {
      const r = await post(`/v1/sessions/${session}/execute`, { tool, input });
      if (!r.success) throw new Error(`${tool}: ${JSON.stringify(r.data)}`);
      return r;
    };
    await execute('codespar_charge', charge);

    // The provider alone: the same create-payment request the rail sends, with a token fetched once.
    const token = await (
      await fetch(`${sandbox.url}/mercadopago/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: 'sandbox-mp-client',
          client_secret: 'sandbox-mp-secret',
        }).toString(),
      })
    ).json();
    const direct = async (i) => {
      const r = await fetch(`${sandbox.url}/mercadopago/v1/payments`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token.access_token}`,
          'content-type': 'application/json',
          'x-idempotency-key': `bench-direct-${i}-${Math.random()}`,
        },
        body: JSON.stringify({
          transaction_amount: 49.9,
          payment_method_id: 'pix',
          description: 'Pedido',
          payer: { email: 'maria@example.com' },
        }),
      });
      if (r.status >= 300) throw new Error(`direct create payment answered ${r.status}: ${await r.text()}`);
      await r.arrayBuffer();
    };
    // The three calls take turns, one round at a time, so a change in the
    // machine's load during the run weighs on all three alike (timed one after
    // another in blocks, the later block met a different machine).
    const [directT, listTools, charges] = await interleaved(
      [direct, () => execute('codespar_list_tools', {}), () => execute('codespar_charge', charge)],
      N,
    );
    const rows = [
      {
        call: 'sandbox create payment, direct',
        'p50 ms': fmt(directT.p50, 2),
        'p95 ms': fmt(directT.p95, 2),
        'added over list_tools + provider': '',
      },
      {
        call: 'execute codespar_list_tools',
        'p50 ms': fmt(listTools.p50, 2),
        'p95 ms': fmt(listTools.p95, 2),
        'added over list_tools + provider': '',
      },
      {
        call: 'execute codespar_charge (pix, routed)',
        'p50 ms': fmt(charges.p50, 2),
        'p95 ms': fmt(charges.p95, 2),
        'added over list_tools + provider': fmt(charges.p50 - listTools.p50 - directT.p50, 2),
      },
    ];

    // The durable writes of one rail call, alone: the pending row with its first attempt, then its completion.
    const pg = require(join(ROOT, 'node_modules/pg'));
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    let n = 0;
    const attempt = JSON.stringify([
      { rail_id: 'mercadopago.pix.in', provider_id: 'mercadopago', provider_idempotency_key: 'k', outcome: 'sending' },
    ]);
    const writes = await sequential(async () => {
      const id = `tc_bench_${n++}`;
      await client.query(
        `INSERT INTO session_tool_calls (id, project_id, environment, tool, server, input, success, duration_ms, state, attempts, rail_id, attempt_log)
         VALUES ($1, 'proj_dev', 'test', 'codespar_charge', 'mercadopago', '{}', false, 0, 'pending', 0, 'mercadopago.pix.in', $2::jsonb)`,
        [id, attempt],
      );
      await client.query(
        `UPDATE session_tool_calls SET state = 'done', success = true, upstream_status = 201, attempts = 1, attempt_log = $2::jsonb WHERE id = $1`,
        [id, attempt],
      );
    });
    // The same under a caller's idempotency key, as written before claims carried a token and as written now, taking turns.
    const keyed = await keyedWrites(client, Math.min(N, 300), {
      tool: 'codespar_charge',
      server: 'mercadopago',
      railId: 'mercadopago.pix.in',
      attempt: {
        rail_id: 'mercadopago.pix.in',
        provider_id: 'mercadopago',
        provider_idempotency_key: 'k',
        outcome: 'sending',
      },
    });
    await client.end();

    console.log(
      `\n## Acting meta-tools, one call at a time, ${N} each (gateway, session, search and router services, sandbox in process)`,
    );
    table(rows);
    console.log(
      `durable writes of a rail call (pending insert with its attempt + completion, synchronous commit): p50 ${fmt(writes.p50, 2)} ms, p95 ${fmt(writes.p95, 2)} ms`,
    );
    console.log(
      `durable writes of a keyed rail call (claim, pending + key, completion + key): p50 ${fmt(keyed.now.p50, 2)} ms (p95 ${fmt(keyed.now.p95, 2)}) with the claim token and one completion statement, ${fmt(keyed.before.p50, 2)} ms (p95 ${fmt(keyed.before.p95, 2)}) as before; added ${fmt(keyed.added, 2)} ms (target <= 0.3)`,
    );
    console.log(
      `routing decision in process (${decision.rails} candidate rails, 3 connected): p50 ${fmt(decision.p50, 4)} ms, p99 ${fmt(decision.p99, 4)} ms`,
    );
    console.log(`sandbox charges created: ${sandbox.control.counters().charges_created}`);
  } finally {
    await close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await railsBench();
  process.exit(0);
}
