// `pnpm reliability [--ci] [part…]`: starts a private Postgres, Redis, the
// five built apps and the sandbox provider server, then fuzzes, attacks,
// soaks and breaks them, moves money through them under faults, and prints
// one table of figures. Exits 1 when any figure misses its target.
// Parts: fuzz, attacks, soak, faults, money (in that order). Needs `pnpm build`.
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { attacks } from './attacks.mjs';
import { faults } from './faults.mjs';
import { money, moneySandbox } from './money.mjs';
import { fuzz } from './fuzz.mjs';
import { secretsGrep } from './secrets.mjs';
import { soak } from './soak.mjs';
import { makeKeys, startStack, demoCatalogText } from './lib/infra.mjs';
import { bearer, registerSecret, send } from './lib/http.mjs';
import { Report } from './lib/report.mjs';

const args = process.argv.slice(2);
const ci = args.includes('--ci');
const parts = args.filter((a) => !a.startsWith('--'));
const PARTS = ['fuzz', 'attacks', 'soak', 'faults', 'money'];
for (const p of parts) {
  if (!PARTS.includes(p)) {
    console.error(`unknown part ${p}; one of: ${PARTS.join(', ')}`);
    process.exit(2);
  }
}
const want = (p) => parts.length === 0 || parts.includes(p);

const SIZES = ci
  ? { perOperation: Number(process.env.RELIABILITY_CASES ?? 60), soakSeconds: 30, faultSeconds: 6 }
  : { perOperation: Number(process.env.RELIABILITY_CASES ?? 2000), soakSeconds: 300, faultSeconds: 12 };

/**
 * What the other parts need to exist: providers to name, a few connections
 * holding credential values the secrets grep looks for, sessions to address.
 */
async function fixtures(stack, keys, report) {
  const auth = bearer(keys.full.key);
  let servers = (await send(stack.base, { path: '/v1/providers?limit=100', headers: auth })).json?.servers ?? [];
  if (servers.length === 0 && keys.operator.length) {
    // The seed could not load the demo catalog: import it through the API.
    const doc = demoCatalogText();
    const op = keys.operator.find((k) => k.scopes.includes('catalog:write')) ?? keys.operator[0];
    const r = await send(stack.base, {
      method: 'POST',
      path: '/v1/catalog/import',
      headers: { ...bearer(op.key), 'content-type': 'application/json' },
      body: doc,
      timeoutMs: 120_000,
    });
    stack.problems.push(`demo catalog imported over HTTP: ${r.status}`);
    servers = (await send(stack.base, { path: '/v1/providers?limit=100', headers: auth })).json?.servers ?? [];
  }
  const ids = servers.map((s) => s.id);
  const secrets = [];
  const connections = [];
  for (const s of servers.filter((x) => x.auth_type && x.auth_type !== 'none').slice(0, 4)) {
    for (const key of [keys.full, keys.test, keys.otherProject]) {
      const value = `relsecret${randomBytes(12).toString('hex')}`;
      secrets.push(value);
      registerSecret(value);
      const r = await send(stack.base, {
        method: 'POST',
        path: '/v1/connections',
        headers: { ...bearer(key.key), 'content-type': 'application/json' },
        body: JSON.stringify({ server_id: s.id, credentials: { api_key: value, client_secret: `${value}cs` } }),
      });
      registerSecret(`${value}cs`);
      if (r.json?.id) connections.push({ id: r.json.id, key, server: s.id });
    }
  }
  const sessions = [];
  for (const key of [keys.full, keys.full, keys.full, keys.test, keys.otherProject]) {
    const r = await send(stack.base, {
      method: 'POST',
      path: '/v1/sessions',
      headers: { ...bearer(key.key), 'content-type': 'application/json' },
      body: JSON.stringify({ servers: ids.slice(0, 3), user_id: 'reliability' }),
    });
    if (r.json?.id) sessions.push({ id: r.json.id, key });
  }
  report.add(
    'setup',
    'providers / connections / sessions',
    `${ids.length} / ${connections.length} / ${sessions.length}`,
    {
      target: '> 0 each',
      ok: ids.length > 0 && connections.length > 0 && sessions.length > 0,
      finding: stack.problems.join('; '),
    },
  );
  return { servers: ids, secrets, connections, sessions };
}

/** Empty policy rules and rate limits for every project and environment the run's keys act in. */
async function resetGovernance(stack, keys) {
  for (const key of [keys.full, keys.test, keys.otherProject]) {
    const headers = { ...bearer(key.key), 'content-type': 'application/json' };
    const policy = await send(stack.base, {
      method: 'PUT',
      path: '/v1/policy',
      headers,
      body: JSON.stringify({ rules: [] }),
    });
    const limits = await send(stack.base, {
      method: 'PUT',
      path: '/v1/rate-limits',
      headers,
      body: JSON.stringify({ limits: [] }),
    });
    if (policy.status !== 200 || limits.status !== 200)
      stack.problems.push(`governance reset answered ${policy.status}/${limits.status}`);
  }
}

const report = new Report();
console.log(`Rota reliability${ci ? ' (CI subset)' : ''} on ${cpus().length} cores, node ${process.version}`);
const t0 = Date.now();
// The sandbox the money part charges through (it ignores provider idempotency
// keys); the demo catalog's test base URLs point at it.
const money$ = want('money') ? await moneySandbox() : null;
const stack = await startStack({ env: money$?.env ?? {} });
console.log(`stack ready (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
let failedToRun = false;
try {
  const keys = await makeKeys(stack);
  for (const k of keys.plain) registerSecret(k);
  const fx = await fixtures(stack, keys, report);
  console.log(`keys and fixtures ready (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  const realIds = {
    sessions: fx.sessions.map((s) => s.id),
    connections: fx.connections.map((c) => c.id),
    servers: fx.servers.slice(0, 5),
  };
  const step = async (name, fn) => {
    if (!want(name)) return;
    const t = Date.now();
    console.log(`\n## ${name}`);
    try {
      await fn();
    } catch (err) {
      failedToRun = true;
      console.error(err);
      report.add(name, 'part ran to the end', 'no', {
        target: 'yes',
        ok: false,
        finding: String(err?.message ?? err).slice(0, 100),
      });
    }
    console.log(`   (${((Date.now() - t) / 1000).toFixed(0)} s)`);
  };
  await step('fuzz', () => fuzz(stack, keys, report, { perOperation: SIZES.perOperation, realIds }));
  await step('attacks', () => attacks(stack, keys, report, fx, { ci }));
  // The fuzzer stores whatever valid policy rules and rate limits it generated;
  // the load of the parts below must not run into them.
  await resetGovernance(stack, keys);
  await step('soak', () => soak(stack, keys, report, fx, { seconds: SIZES.soakSeconds }));
  await step('faults', () => faults(stack, keys, report, fx, { seconds: SIZES.faultSeconds, ci }));
  await step('money', () => money(stack, report, { sandbox: money$.sandbox, ci }));
  const tg = Date.now();
  await secretsGrep(stack, report);
  console.log(`\n## secrets grep\n   (${((Date.now() - tg) / 1000).toFixed(0)} s)`);
} finally {
  await stack.close({ keep: process.env.RELIABILITY_KEEP === '1' });
  await money$?.sandbox.close();
}
console.log(`\n## Reliability figures (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
report.print();
const failed = report.failed;
console.log(failed.length ? `\n${failed.length} figure(s) missed their target.` : '\nEvery figure met its target.');
process.exit(failed.length || failedToRun ? 1 : 0);
