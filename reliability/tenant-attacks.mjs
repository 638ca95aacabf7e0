// Attacks of a hostile tenant on what belongs to others: the reproductions
// of issue 26 ("Why", items 2 and 4), each expected to be refused with a
// documented 4xx (or, on execute, a documented `data.code`), with nothing
// dialled and no credential arriving at a canary server beside the stack.
//
// - project catalog shadowing (an entry under a global id)
// - private addresses through the proxy (a project's own entry at loopback,
//   [::1], 169.254.169.254, … and at the sandbox's listeners)
// - credentials sent to a changed origin
// - a re-categorised provider lifting amount rules
// - the sandbox's control API and its tenant header
// - the failed-authentication limiter locking a valid key out
// - secrets in a proxy endpoint's query and in an answer that echoes them
// - endpoint encodings (backslashes, `;`, dot segments, stacked escapes)
// - connections read through codespar_manage_connections without servers:read
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ROOT, freePort, sleep } from '../bench/lib/common.mjs';
import { App } from './lib/infra.mjs'; // its stack lists zzrelecho and zzrelmoving in ROTA_PRIVATE_PROVIDERS
import { bearer, registerSecret, send } from './lib/http.mjs';

const require = createRequire(import.meta.url);
const A = 'attacks';

/** A server that writes down every request; `echoHeaders` answers with the headers it got, as a provider echoing a key would. */
async function recorder(echoHeaders = false) {
  const hits = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push({ method: req.method, url: req.url, headers: req.headers });
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(echoHeaders ? { 'x-echo': String(req.headers['x-api-key'] ?? '') } : {}),
      });
      res.end(JSON.stringify(echoHeaders ? { headers: req.headers } : { ok: true }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    port: server.address().port,
    hits,
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

function entry(id, base, extra = {}) {
  return {
    id,
    name: id,
    category: 'payments',
    base_urls: base,
    http: { auth: { type: 'api_key', in: 'header', name: 'x-api-key' }, idempotency_header: 'Idempotency-Key' },
    tools: [
      {
        name: 'charge',
        description: `Charge through ${id}.`,
        http_method: 'POST',
        endpoint_template: '/charges',
        input_schema: { type: 'object' },
      },
    ],
    ...extra,
  };
}

export async function tenantAttacks(stack, keys, report) {
  const canary = await recorder();
  const echo = await recorder(true);
  const { startSandbox } = require(join(ROOT, 'apps/sandbox/dist/index.js'));
  const sandbox = await startSandbox({ port: 0 });
  const tenant = keys.test; // the attacker: a project key in the test environment, every scope
  const operator = keys.operator.find((k) => k.scopes.includes('catalog:write'));
  const j = (k) => ({ ...bearer(k.key), 'content-type': 'application/json' });
  const api = (k, method, path, body) =>
    send(stack.base, { method, path, headers: j(k), body: body === undefined ? undefined : JSON.stringify(body) });
  const importAs = (k, servers, owner) =>
    api(k, 'POST', `/v1/catalog/import?owner=${owner}`, { format: 'rota-catalog', version: 2, servers });
  const sessionFor = async (k, servers) => (await api(k, 'POST', '/v1/sessions', { servers })).json?.id;
  const proxy = (k, ses, body) => api(k, 'POST', `/v1/sessions/${ses}/proxy`, body);
  const secret = `relattack${randomBytes(10).toString('hex')}`;
  const querySecret = `relquery${randomBytes(10).toString('hex')}`;
  registerSecret(secret);
  registerSecret(querySecret);
  const results = [];
  const add = (label, ok, detail) => results.push({ label, ok, detail });
  try {
    if (!operator) throw new Error('no operator key with catalog:write');

    // 1. Shadowing a global id, with an address and a category of the tenant's choice.
    const shadow = await importAs(
      tenant,
      [entry('asaas', { test: canary.url, live: canary.url }, { category: 'other' })],
      'project',
    );
    add(
      'shadowing a global id',
      shadow.status === 409 && shadow.json?.error === 'provider_id_taken',
      `${shadow.status} ${shadow.json?.error}`,
    );

    // 2. Private addresses through the proxy: a project's own entries, with no credentials to stop them.
    const hosts = [
      '127.0.0.1',
      '127.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '169.254.169.254',
      '0xa9fea9fe',
      'localhost',
      '10.0.0.1',
      '[fd00:ec2::254]',
    ];
    const own = hosts.map((h, i) => ({
      ...entry(`zzrelown${i}`, { test: `http://${h}:${canary.port}/v1` }),
      http: { auth: { type: 'none' } },
    }));
    own.push(
      { ...entry('zzrelsbx', { test: sandbox.url }), http: { auth: { type: 'none' } } },
      { ...entry('zzrelctl', { test: sandbox.controlUrl }), http: { auth: { type: 'none' } } },
    );
    const imported = await importAs(tenant, own, 'project');
    if (imported.status !== 200) add('project entries imported', false, `${imported.status} ${imported.json?.error}`);
    const ownSession = await sessionFor(
      tenant,
      own.map((s) => s.id),
    );
    for (const s of own) {
      const r = await proxy(tenant, ownSession, {
        server: s.id,
        method: 'POST',
        endpoint: s.id === 'zzrelctl' ? '/_control/reset' : '/latest/meta-data/',
      });
      add(
        `private address ${s.base_urls.test}`,
        r.status === 409 && r.json?.error === 'provider_not_callable',
        `${r.status} ${r.json?.error}`,
      );
    }

    // 3. Credentials to a changed origin: the operator's entry moves; the tenant's stored key must not follow it.
    await importAs(
      operator,
      [
        entry('zzrelmoving', { test: `${echo.url}/v1` }),
        entry('zzrelecho', { test: `${echo.url}/v1` }, { category: 'other' }),
      ],
      'catalog',
    );
    for (const server of ['zzrelmoving', 'zzrelecho'])
      await api(tenant, 'POST', '/v1/connections', { server_id: server, credentials: { api_key: secret } });
    const session = await sessionFor(tenant, ['zzrelmoving', 'zzrelecho', 'asaas']);
    const before = await proxy(tenant, session, { server: 'zzrelmoving', method: 'GET', endpoint: '/charges' });
    if (before.status !== 200)
      add('operator entry answers before it moves', false, `${before.status} ${before.json?.error}`);
    await importAs(operator, [entry('zzrelmoving', { test: `${canary.url}/v1` })], 'catalog');
    const moved = await proxy(tenant, session, { server: 'zzrelmoving', method: 'GET', endpoint: '/charges' });
    add(
      'credentials to a changed origin (proxy)',
      moved.status === 409 && moved.json?.error === 'connection_required',
      `${moved.status} ${moved.json?.error}`,
    );
    const movedRaw = await api(tenant, 'POST', `/v1/sessions/${session}/execute`, {
      tool: 'zzrelmoving/charge',
      input: {},
    });
    add(
      'credentials to a changed origin (raw tool)',
      movedRaw.json?.data?.code === 'connection_required',
      `${movedRaw.status} ${movedRaw.json?.data?.code}`,
    );

    // 4. Category bypass: a project's own provider calling itself "other" under an amount rule.
    await importAs(
      tenant,
      [entry('zzrelcheap', { test: 'https://zzrelcheap.invalid/v1' }, { category: 'other', moves_money: false })],
      'project',
    );
    await api(tenant, 'PUT', '/v1/policy', {
      rules: [{ type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 10_000 }],
    });
    // Other session replicas see new rules within ROTA_POLICY_CACHE_MS (1 s).
    await sleep(1500);
    const cheapSession = await sessionFor(tenant, ['zzrelcheap']);
    const cheap = await proxy(tenant, cheapSession, {
      server: 'zzrelcheap',
      method: 'POST',
      endpoint: '/charges',
      body: { value: 9999.99 },
    });
    add(
      'category bypass (proxy, R$ 9,999.99 under max_amount)',
      cheap.status === 403 && cheap.json?.ruleType === 'max_amount',
      `${cheap.status}`,
    );
    const cheapRaw = await api(tenant, 'POST', `/v1/sessions/${cheapSession}/execute`, {
      tool: 'zzrelcheap/charge',
      input: { value: 9999.99 },
    });
    add('category bypass (raw tool)', cheapRaw.status === 403, `${cheapRaw.status}`);
    await api(tenant, 'PUT', '/v1/policy', { rules: [] });

    // 5. Sandbox control: the tenant header is Rota's, the control API is on its own listener.
    const named = await proxy(tenant, session, {
      server: 'zzrelecho',
      method: 'GET',
      endpoint: '/x',
      headers: { 'X-Rota-Sandbox-Tenant': 'someone-else' },
    });
    add(
      'naming another sandbox tenant',
      named.status === 400 && named.json?.error === 'forbidden_header',
      `${named.status} ${named.json?.error}`,
    );
    const ctlOnMain = await fetch(`${sandbox.url}/_control/faults`, {
      method: 'POST',
      body: JSON.stringify({ provider: '*', mode: '5xx' }),
    });
    const ctlNoToken = await fetch(`${sandbox.controlUrl}/_control/faults`, {
      method: 'POST',
      body: JSON.stringify({ provider: '*', mode: '5xx' }),
    });
    add(
      'sandbox /_control on the providers port / without its token',
      ctlOnMain.status === 404 && ctlNoToken.status === 401,
      `${ctlOnMain.status} / ${ctlNoToken.status}`,
    );
    add(
      'sandbox faults armed / requests reached it',
      sandbox.control.listFaults().length === 0 && sandbox.control.counters().requests_total === 0,
      '',
    );

    // 6. Secrets: a key in the endpoint's query, and a provider echoing the injected one.
    const echoed = await proxy(tenant, session, {
      server: 'zzrelecho',
      method: 'GET',
      endpoint: `/things?api_key=${querySecret}&page=2`,
    });
    const injected = echo.hits.at(-1)?.headers?.['x-api-key'] === secret;
    add(
      'echoed credential cut from the answer',
      echoed.status === 200 && injected && !echoed.text.includes(secret),
      `${echoed.status}`,
    );
    // (The call row, logs and streams are covered by the secrets grep: both values are registered.)

    // 7. Endpoint encodings.
    const echoBefore = echo.hits.length;
    for (const endpoint of [
      '/a/..%5c..%5cadmin',
      '/%2e%2e%5cadmin',
      '/a/..;/admin',
      '/a;x=1/b',
      '/a/%3b/b',
      '/a/%252e%252e/admin',
      '/a/%25252e%25252e/x',
      '/a/%255c/b',
      '/a/.%2e/b',
      '/a\\b',
    ]) {
      const r = await proxy(tenant, session, { server: 'zzrelecho', method: 'GET', endpoint });
      add(
        `endpoint ${endpoint}`,
        r.status === 400 && r.json?.error === 'invalid_endpoint',
        `${r.status} ${r.json?.error}`,
      );
    }
    add(
      'encoded endpoints that reached the provider',
      echo.hits.length === echoBefore,
      `${echo.hits.length - echoBefore}`,
    );

    // 8. Reading connections without servers:read.
    const narrow = keys.combos.find(
      (k) =>
        k.scopes.includes('tools:execute') &&
        k.scopes.includes('sessions:create') &&
        !k.scopes.includes('servers:read') &&
        k.environment !== 'test',
    );
    if (narrow) {
      const ses = await sessionFor(narrow, ['asaas']);
      const listed = ses
        ? await api(narrow, 'POST', `/v1/sessions/${ses}/execute`, {
            tool: 'codespar_manage_connections',
            input: { action: 'list' },
          })
        : { status: 0, text: '' };
      add('connections listed without servers:read', listed.status === 403, `${listed.status}`);
    }

    // 9. Limiter lockout: a gateway with the failed-authentication limit on; one address guesses, a valid key from it is still served.
    const port = await freePort();
    const limited = new App(
      'gateway-limited',
      'gateway',
      { ...stack.env, PORT: String(port), ROTA_AUTH_FAIL_LIMIT: '5', ROTA_AUTH_FAIL_WINDOW_S: '60' },
      stack.logs,
    ).start();
    try {
      const base = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 100 && (await send(base, { path: '/health/live', timeoutMs: 500 })).status !== 200; i++)
        await sleep(100);
      const guesses = [];
      for (let i = 0; i < 20; i++)
        guesses.push(
          (
            await send(base, {
              path: '/v1/providers?limit=1',
              headers: bearer(`csk_live_${randomBytes(16).toString('hex')}`),
            })
          ).status,
        );
      const served = await send(base, { path: '/v1/providers?limit=1', headers: bearer(keys.full.key) });
      const refusedGuess = await send(base, {
        path: '/v1/providers?limit=1',
        headers: bearer(`csk_live_${randomBytes(16).toString('hex')}`),
      });
      add('valid key served from an address in back-off', served.status === 200, `${served.status}`);
      add(
        'guesses past the limit answered 429 with Retry-After',
        guesses.includes(429) && refusedGuess.status === 429 && !!refusedGuess.headers?.get?.('retry-after'),
        `${refusedGuess.status}`,
      );
    } finally {
      await limited.stop();
    }
  } finally {
    await Promise.all([canary.close(), echo.close(), sandbox.close()]);
  }
  const failed = results.filter((r) => !r.ok);
  report.add(A, `hostile-tenant reproductions (${results.length}): not refused as documented`, failed.length, {
    target: '0',
    ok: results.length > 0 && failed.length === 0,
    finding: failed
      .slice(0, 3)
      .map((f) => `${f.label}: ${f.detail}`)
      .join('; '),
  });
  for (const f of failed) console.log(`  tenant attack not refused: ${f.label} -> ${f.detail}`);
  report.add(
    A,
    'hostile-tenant reproductions: requests at the canary / credentials at it',
    `${canary.hits.length} / ${canary.hits.filter((h) => JSON.stringify(h).includes(secret)).length}`,
    {
      target: '0 / 0',
      ok: canary.hits.length === 0,
      finding: canary.hits
        .slice(0, 3)
        .map((h) => `${h.method} ${h.url}`)
        .join(' '),
    },
  );
}
