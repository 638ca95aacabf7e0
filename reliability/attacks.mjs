// Attacks: what an outsider or another tenant would try.
// - Auth before body: unauthenticated oversized and malformed bodies must get
//   their 401 without the gateway reading them, while /health/live stays quick.
// - Scope matrix: every route with every single scope.
// - Tenancy: another project's or environment's sessions and connections
//   answer byte for byte what an id that never existed answers.
// - SSRF: catalog URL imports of loopback, private, link-local and metadata
//   addresses in every encoding we know, plus a redirect to one.
// - A hostile tenant's reproductions (tenant-attacks.mjs): catalog shadowing,
//   private addresses, moved origins, category bypass, sandbox control,
//   limiter lockout, secrets in endpoints and echoes, endpoint encodings.
// - Odds and ends of the findings list: MCP batches, a key in a query string
//   (the secrets grep then reads the logs), revocation delay.
import { request } from 'node:http';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, sleep } from '../bench/lib/common.mjs';
import { bearer, send } from './lib/http.mjs';
import { fmtTally, pool, tally } from './lib/report.mjs';
import { tenantAttacks } from './tenant-attacks.mjs';

const require = createRequire(import.meta.url);
const A = 'attacks';

/** Sends a body with node:http so the status is seen as soon as it arrives, even mid-upload. */
function rawPost(base, path, headers, size, chunk = 'a') {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const u = new URL(base + path);
    let done = false;
    const finish = (status, err) => {
      if (done) return;
      done = true;
      resolve({ status, ms: performance.now() - t0, err });
    };
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(size), ...headers },
      },
      (res) => {
        res.resume();
        finish(res.statusCode);
      },
    );
    req.on('error', (e) => finish(0, e.code));
    req.setTimeout(30_000, () => {
      req.destroy();
      finish(-1, 'timeout');
    });
    const block = Buffer.alloc(64 * 1024, chunk);
    let sent = 0;
    const pump = () => {
      while (sent < size && !done) {
        const n = Math.min(block.length, size - sent);
        sent += n;
        if (!req.write(n === block.length ? block : block.subarray(0, n))) return req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

async function authBeforeBody(stack, report) {
  let stop = false;
  let maxLive = 0;
  const prober = (async () => {
    while (!stop) {
      const r = await send(stack.base, { path: '/health/live', timeoutMs: 20_000 });
      maxLive = Math.max(maxLive, r.ms);
      await sleep(20);
    }
  })();
  const MiB = 1024 * 1024;
  const cases = [
    ['/v1/catalog/import', 15 * MiB, '['],
    ['/v1/catalog/import', 15 * MiB, 'a'],
    ['/v1/catalog/import', 60 * MiB, '{'],
    ['/v1/sessions', 2 * MiB, '['],
    ['/v1/connections', 2 * MiB, '"'],
    ['/mcp', 2 * MiB, '['],
    ['/v1/tools/search', 2 * MiB, '{'],
  ];
  const results = [];
  await pool(cases, 4, async ([path, size, ch]) => {
    for (const headers of [{}, { authorization: 'Bearer csk_live_' + 'N'.repeat(32) }, { authorization: 'Basic eDp5' }])
      results.push(await rawPost(stack.base, path, headers, size, ch));
  });
  // Small malformed bodies too: unknown callers never learn about the body.
  for (const path of ['/v1/sessions', '/v1/catalog/import', '/v1/meta-tools/discover', '/v1/connections']) {
    for (const body of ['{', '[[[[', 'null', '{"a":"\u0000"}'])
      results.push({
        ...(await send(stack.base, { method: 'POST', path, headers: { 'content-type': 'application/json' }, body })),
      });
    results.push(
      await send(stack.base, { method: 'POST', path, headers: { 'content-type': 'text/plain' }, body: 'x' }),
    );
  }
  stop = true;
  await prober;
  const statuses = tally(results.map((r) => r.status));
  const not401 = results.filter((r) => r.status !== 401).length;
  const maxMs = Math.max(...results.map((r) => r.ms));
  report.add(A, 'unauthenticated big/malformed bodies: statuses', fmtTally(statuses), {
    target: 'all 401',
    ok: not401 === 0,
    finding: '#6 (body parsed before authentication)',
  });
  report.add(A, 'slowest unauthenticated answer (ms)', maxMs.toFixed(0), {
    target: '< 1000',
    ok: maxMs < 1000,
    finding: '#6',
  });
  report.add(A, '/health/live max latency meanwhile (ms)', maxLive.toFixed(0), {
    target: '< 250',
    ok: maxLive < 250,
    finding: '#6 (event loop blocked by a body)',
  });
}

async function scopeMatrix(stack, keys, report) {
  const doc = await (await fetch(`${stack.base}/openapi.json`)).json();
  const single = new Map();
  for (const k of [...keys.combos, ...keys.operator]) if (k.scopes.length === 1) single.set(k.scopes[0], k);
  // An operator key always carries admin: its narrowest form stands for that scope.
  if (!single.has('admin') && keys.operator.length)
    single.set('admin', [...keys.operator].sort((a, b) => a.scopes.length - b.scopes.length)[0]);
  const wrong = [];
  const jobs = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const scope = op?.['x-required-scope'];
      if (!scope) continue;
      for (const [s, key] of single)
        jobs.push({
          path: path.replace(/\{[^}]+\}/g, 'ses_scopeprobe'),
          method: method.toUpperCase(),
          scope,
          s,
          key,
          id: op.operationId,
        });
    }
  }
  await pool(jobs, 8, async (j) => {
    const r = await send(stack.base, {
      method: j.method,
      path: j.path,
      headers: { ...bearer(j.key.key), ...(j.method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      body: j.method === 'POST' ? '{}' : undefined,
    });
    const allowed = j.key.scopes.includes(j.scope);
    const ok = allowed ? r.status !== 403 && r.status !== 401 : r.status === 403 && r.json?.error === 'forbidden';
    if (!ok) wrong.push(`${j.id}×${j.s}=${r.status}`);
  });
  report.add(
    A,
    `scope matrix: ${jobs.length / single.size} routes x ${single.size} scopes, wrong cells`,
    wrong.length,
    {
      target: '0',
      ok: wrong.length === 0,
      finding: wrong.slice(0, 4).join(' '),
    },
  );
  for (const w of wrong.slice(0, 20)) console.log(`  scope: ${w}`);
}

async function tenancy(stack, keys, report, fx) {
  const created = await send(stack.base, {
    method: 'POST',
    path: '/v1/sessions',
    headers: { ...bearer(keys.full.key), 'content-type': 'application/json' },
    body: JSON.stringify({ servers: fx.servers.slice(0, 2), user_id: 'reliability-tenancy' }),
  });
  const mine = created.json?.id ? { id: created.json.id, key: keys.full } : undefined;
  const conn = fx.connections.find((c) => c.key === keys.full);
  const rid = { 'x-request-id': 'tenancy-probe' };
  const probes = [];
  if (mine) {
    const fake = `ses_${'0'.repeat(Math.max(1, mine.id.length - 4))}`;
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['POST', '/execute', JSON.stringify({ tool: 'codespar_list_tools', input: {} })],
      ['POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })],
      ['DELETE', '', undefined],
    ]) {
      for (const other of [keys.otherProject, keys.test])
        probes.push({
          label: `session${suffix} ${method}`,
          method,
          a: `/v1/sessions/${mine.id}${suffix}`,
          b: `/v1/sessions/${fake}${suffix}`,
          key: other,
          body,
        });
    }
  }
  if (conn) {
    const fake = `${conn.id.split('_')[0]}_${'0'.repeat(Math.max(1, conn.id.length - conn.id.indexOf('_') - 1))}`;
    for (const other of [keys.otherProject, keys.test])
      probes.push({
        label: 'connection DELETE',
        method: 'DELETE',
        a: `/v1/connections/${conn.id}`,
        b: `/v1/connections/${fake}`,
        key: other,
      });
  }
  const differ = [];
  let not404 = 0;
  for (const p of probes) {
    const headers = {
      ...bearer(p.key.key),
      ...rid,
      ...(p.body ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } : {}),
    };
    const a = await send(stack.base, { method: p.method, path: p.a, headers, body: p.body });
    const b = await send(stack.base, { method: p.method, path: p.b, headers, body: p.body });
    if (a.status !== 404) not404++;
    if (a.status !== b.status || a.text !== b.text) differ.push(`${p.label} ${a.status}/${b.status}`);
  }
  // The owner still sees what the others were refused: nothing was closed or deleted by them.
  const still = mine
    ? (await send(stack.base, { path: `/v1/sessions/${mine.id}`, headers: bearer(keys.full.key) })).json?.status
    : 'n/a';
  report.add(
    A,
    `cross-project/-environment probes (${probes.length}): not 404 / not byte-identical`,
    `${not404} / ${differ.length}`,
    {
      target: '0 / 0',
      ok: probes.length > 0 && not404 === 0 && differ.length === 0,
      finding: differ.slice(0, 3).join(' ') || 'no fixtures',
    },
  );
  report.add(A, "owner's session after the probes", still, {
    target: 'active',
    ok: still === 'active',
    finding: 'another tenant changed it',
  });

  // A test key asking for the live connection list through the meta-tool.
  const testSession = fx.sessions.find((s) => s.key === keys.test);
  if (testSession) {
    const liveIds = fx.connections.filter((c) => c.key === keys.full).map((c) => c.id);
    const r = await send(stack.base, {
      method: 'POST',
      path: `/v1/sessions/${testSession.id}/execute`,
      headers: { ...bearer(keys.test.key), 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'codespar_manage_connections', input: { action: 'list', environment: 'live' } }),
    });
    const leaked =
      liveIds.filter((id) => r.text.includes(id)).length + (/"environment"\s*:\s*"live"/.test(r.text) ? 1 : 0);
    report.add(A, 'test key listing live connections via meta-tool: live entries seen', leaked, {
      target: '0',
      ok: leaked === 0,
      finding: '#10',
    });
  }
}

async function ssrf(stack, keys, report, fx) {
  const hits = [];
  const trap = createServer((req, res) => {
    hits.push(req.url);
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"format":"rota-catalog","version":1,"servers":[]}');
  });
  await new Promise((r) => trap.listen(0, '127.0.0.1', r));
  const p = trap.address().port;
  const hosts = [
    '127.0.0.1',
    '127.1',
    '127.0.1',
    '2130706433',
    '0x7f000001',
    '0x7f.0.0.1',
    '017700000001',
    '0177.0.0.1',
    '127.000.000.001',
    '127.255.255.254',
    'localhost',
    'LOCALHOST',
    'localhost.',
    '0.0.0.0',
    '0',
    '[::]',
    '[::1]',
    '[0:0:0:0:0:0:0:1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:7f00:1]',
    '[::127.0.0.1]',
    '[::7f00:1]',
    '[64:ff9b::127.0.0.1]',
    '[2002:7f00:1::]',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '198.18.0.1',
    '[fc00::1]',
    '[fd12:3456::1]',
    '[::ffff:10.0.0.1]',
    '[::ffff:192.168.1.1]',
    '[::ffff:c0a8:101]',
    '169.254.169.254',
    '169.254.0.1',
    '0xa9fea9fe',
    '2852039166',
    '0251.0376.0251.0376',
    '[::ffff:169.254.169.254]',
    '[::ffff:a9fe:a9fe]',
    '[::a9fe:a9fe]',
    '[fe80::1]',
    '[fd00:ec2::254]',
    'metadata.google.internal',
    'metadata',
    '224.0.0.1',
    '255.255.255.255',
    '[ff02::1]',
  ];
  const urls = [];
  for (const h of hosts) for (const scheme of ['http', 'https']) urls.push(`${scheme}://${h}:${p}/catalog.json`);
  urls.push(
    `http://127.0.0.1:${p}/redirect`,
    `http://user:pw@127.0.0.1:${p}/`,
    `http://127.0.0.1%2f@example.com:${p}/`,
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_INFO',
    `ftp://127.0.0.1:${p}/`,
    'http://[::1]:6379/',
    `http://127.0.0.1:${stack.redis.port}/`,
    `http://127.0.0.1:${stack.pg.port}/`,
  );
  const key = keys.operator.find((k) => k.scopes.includes('catalog:write')) ?? keys.full;
  const results = [];
  const server = fx.servers[0] ?? 'asaas';
  await pool(urls, 6, async (url) => {
    for (const k of new Set([key, keys.full])) {
      for (const [path, body] of [
        ['/v1/catalog/import', { url }],
        [`/v1/catalog/import?server=${server}`, { url, mcp: true }],
      ]) {
        const r = await send(stack.base, {
          method: 'POST',
          path,
          headers: { ...bearer(k.key), 'content-type': 'application/json' },
          body: JSON.stringify(body),
          timeoutMs: 30_000,
        });
        results.push({ url, status: r.status, code: r.json?.error, message: r.json?.message ?? '' });
      }
    }
  });
  const messages = tally(
    results.map((r) => `${r.status} ${r.message.replace(/https?:\/\/\S+|\d+(\.\d+)+|\[[^\]]*\]/g, '…').slice(0, 70)}`),
  );
  for (const [m, n] of Object.entries(messages)) console.log(`  ssrf answer x${n}: ${m}`);
  trap.close();
  const accepted = results.filter((r) => r.status >= 200 && r.status < 300);
  // A refusal that names a connection error means the address passed the policy and was dialled.
  const dialled = results.filter((r) =>
    /ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|ECONNRESET|EADDRNOTAVAIL|timed out|aborted/i.test(r.message),
  );
  const notRefusedFast = results.filter((r) => !(r.status >= 400 && r.status < 500));
  report.add(
    A,
    `SSRF: ${results.length} catalog URL imports, answers`,
    fmtTally(tally(results.map((r) => `${r.status}${r.code ? `:${r.code}` : ''}`))),
  );
  report.add(A, 'SSRF: imports accepted / not refused with a 4xx', `${accepted.length} / ${notRefusedFast.length}`, {
    target: '0 / 0',
    ok: accepted.length === 0 && notRefusedFast.length === 0,
    finding: `#14: ${[...new Set(notRefusedFast.map((r) => r.url))].slice(0, 3).join(' ')}`,
  });
  report.add(A, 'SSRF: addresses that passed the policy and were dialled', new Set(dialled.map((r) => r.url)).size, {
    target: '0',
    ok: dialled.length === 0,
    finding: `#14: ${[...new Set(dialled.map((r) => new URL(r.url).hostname))].slice(0, 4).join(' ')}`,
  });
  report.add(A, 'SSRF: requests that reached the local trap server', hits.length, {
    target: '0',
    ok: hits.length === 0,
    finding: `#14 ${hits.slice(0, 3).join(' ')}`,
  });
  report.add(A, 'SSRF: redirect from a public-looking host', 'not run', {
    finding: 'needs a public name resolving to this machine',
  });
  for (const r of notRefusedFast.slice(0, 10))
    console.log(`  ssrf not refused: ${r.url} -> ${r.status} ${r.code ?? ''}`);
}

async function odds(stack, keys, report) {
  // JSON-RPC batches were removed from MCP 2025-06-18.
  const batch = await send(stack.base, {
    method: 'POST',
    path: '/mcp',
    headers: {
      ...bearer(keys.full.key),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(Array.from({ length: 5 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }))),
  });
  const refused = batch.status === 400 && JSON.stringify(batch.json ?? '').includes('-32600');
  report.add(A, 'MCP JSON-RPC batch of 5', `${batch.status}`, {
    target: '400 / -32600',
    ok: refused,
    finding: '#15 (batches accepted)',
  });
  // A key in a query string: the secrets grep over the logs decides whether it was written down.
  await send(stack.base, { path: `/v1/providers?api_key=${keys.full.key}&token=${keys.full.key}` });
  await send(stack.base, { path: `/v1/providers?limit=1`, headers: { authorization: `Bearer ${keys.full.key}x` } });
  // Revocation: how long a revoked key keeps working.
  const db = require(join(ROOT, 'packages/db/dist/index.js'));
  const prisma = db.createPrisma(stack.env.DATABASE_URL, { poolMax: 1 });
  try {
    const repo = new db.ApiKeyRepository(prisma);
    const k = await repo.create({ projectId: db.DEV_PROJECT_ID, environment: 'live', scopes: ['servers:read'] });
    const { registerSecret } = await import('./lib/http.mjs');
    registerSecret(k.key);
    await send(stack.base, { path: '/v1/catalog/status', headers: bearer(k.key) });
    await repo.revoke(k.id);
    const t0 = performance.now();
    // How long the revoked key kept working: until the answer to the last
    // request it passed (the gateway decided before that answer left). The
    // first refusal's own answer comes one request later, so it is shown
    // beside it but is not the figure: it adds a round trip and the poll gap.
    let ms = NaN;
    let lastAccepted = 0;
    while (performance.now() - t0 < 5000) {
      const r = await send(stack.base, { path: '/v1/catalog/status', headers: bearer(k.key) });
      if (r.status === 401) {
        ms = performance.now() - t0;
        break;
      }
      lastAccepted = performance.now() - t0;
      await sleep(10);
    }
    report.add(
      A,
      'revoked key: last request it passed / first refusal answered (ms after revocation)',
      Number.isNaN(ms) ? '> 5000' : `${lastAccepted.toFixed(0)} / ${ms.toFixed(0)}`,
      {
        target: '< 1000 (first figure)',
        ok: !Number.isNaN(ms) && lastAccepted < 1000,
        finding: 'auth cache outlives its bound',
      },
    );
  } finally {
    await prisma.$disconnect();
  }
}

export async function attacks(stack, keys, report, fx) {
  await authBeforeBody(stack, report);
  await scopeMatrix(stack, keys, report);
  await tenancy(stack, keys, report, fx);
  await ssrf(stack, keys, report, fx);
  await odds(stack, keys, report);
  await tenantAttacks(stack, keys, report);
}
