// Fuzz: every operation of the served /openapi.json, with bodies, path and
// query parameters and headers generated from the document's own schemas
// (valid and broken), sent with keys of every scope combination and with bad
// keys. Every answer is held to the document: no 5xx, every status
// documented, every JSON body valid against the schema documented for its
// status. A separate batch of requests that must be refused (bad key, wrong
// scope, unparseable or poisoned body) runs between two row counts of every
// table: refusals write nothing.
import fc from 'fast-check';
import Ajv2020 from 'ajv/dist/2020.js';
import { pgClient, tableCounts } from './lib/infra.mjs';
import { invalidArb, malformedBody, resolver, validArb } from './lib/arbitrary.mjs';
import { bearer, send } from './lib/http.mjs';
import { fmtTally, pool } from './lib/report.mjs';

const CONCURRENCY = 8;

function operations(doc) {
  const out = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      out.push({
        method: method.toUpperCase(),
        path,
        id: op.operationId ?? `${method} ${path}`,
        scope: op['x-required-scope'] ?? null,
        secured: Array.isArray(op.security)
          ? op.security.length > 0
          : Array.isArray(doc.security) && doc.security.length > 0,
        params: (op.parameters ?? []).map(resolver(doc)),
        body: op.requestBody?.content?.['application/json']?.schema,
        responses: op.responses,
      });
    }
  }
  return out;
}

/** The keys a case may present: every scope combination, operator keys, and bad ones. */
function keyArb(keys) {
  const good = [...keys.combos, ...keys.operator, keys.test].map((k) => ({
    key: k.key,
    scopes: k.scopes,
    kind: 'key',
  }));
  const bad = [
    undefined,
    '',
    'csk_live_',
    `csk_live_${'A'.repeat(32)}`,
    `csk_test_${'z'.repeat(40)}`,
    keys.revoked,
    `${keys.full.key}x`,
    keys.full.key.toUpperCase(),
    'Bearer',
    '../../etc/passwd',
    '\u00e9\u00e9\u00e9',
  ].map((key) => ({ key, scopes: [], kind: 'bad' }));
  const badHeader = [
    { raw: `Basic ${Buffer.from('a:b').toString('base64')}` },
    { raw: `bearer  ${keys.full.key}` },
    { raw: `Bearer ${keys.full.key} extra` },
    { raw: 'Bearer' },
  ].map((h) => ({ ...h, scopes: [], kind: 'bad' }));
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...good) },
    { weight: 2, arbitrary: fc.constantFrom(...bad) },
    { weight: 1, arbitrary: fc.constantFrom(...badHeader) },
  );
}

const requestId = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
  fc.constantFrom('', 'a b', 'x'.repeat(129), 'ü', '\t'),
);
const accept = fc.constantFrom(
  'application/json, text/event-stream',
  'application/json',
  'text/event-stream',
  '*/*',
  'text/html',
  '',
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  '',
);

function caseArb(doc, op, keys, realIds) {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const pathArb = fc.record(
    Object.fromEntries(
      pathParams.map((p) => [
        p.name,
        fc.oneof(
          { weight: 3, arbitrary: validArb(doc, p.schema ?? { type: 'string' }) },
          {
            weight: realIds.length ? 3 : 0,
            arbitrary: realIds.length ? fc.constantFrom(...realIds) : fc.constant('x'),
          },
          { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
          { weight: 1, arbitrary: fc.constantFrom('..', '%2e%2e', 'a%00', 'x'.repeat(300), '%', ' ') },
        ),
      ]),
    ),
  );
  const queryArb = fc.record(
    {
      known: fc.record(
        Object.fromEntries(
          queryParams.map((p) => [
            p.name,
            fc.oneof(
              { weight: 3, arbitrary: validArb(doc, p.schema ?? { type: 'string' }) },
              { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
            ),
          ]),
        ),
        {
          requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name),
        },
      ),
      unknown: fc.option(
        fc.dictionary(fc.stringMatching(/^[a-z_]{1,10}$/), fc.string({ maxLength: 10 }), { maxKeys: 2 }),
        { freq: 4 },
      ),
    },
    { requiredKeys: ['known'] },
  );
  const bodyArb = op.body
    ? fc.oneof(
        { weight: 4, arbitrary: validArb(doc, op.body).map((v) => ({ kind: 'valid', text: JSON.stringify(v) })) },
        {
          weight: 3,
          arbitrary: invalidArb(doc, op.body).map((v) => ({ kind: 'invalid', text: JSON.stringify(v) ?? 'null' })),
        },
        { weight: 1, arbitrary: malformedBody.map((text) => ({ kind: 'malformed', text })) },
        { weight: 1, arbitrary: fc.constant({ kind: 'none', text: undefined }) },
      )
    : fc.oneof(
        { weight: 9, arbitrary: fc.constant({ kind: 'none', text: undefined }) },
        {
          weight: 1,
          arbitrary: fc
            .jsonValue({ maxDepth: 1 })
            .map((v) => ({ kind: 'unexpected', text: JSON.stringify(v) ?? 'null' })),
        },
      );
  return fc.record({
    auth: keyArb(keys),
    path: pathArb,
    query: queryArb,
    body: bodyArb,
    requestId: fc.option(requestId, { freq: 3 }),
    accept: fc.option(accept, { freq: 2 }),
    contentType: fc.option(contentType, { freq: 6 }),
    bigHeader: fc.boolean().map((b) => b && Math.random() < 0.02),
  });
}

function toRequest(op, c) {
  let path = op.path;
  for (const [k, v] of Object.entries(c.path)) path = path.replace(`{${k}}`, encodeURIComponent(String(v)));
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(c.query.known ?? {})) q.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  for (const [k, v] of Object.entries(c.query.unknown ?? {})) q.append(k, v);
  const qs = q.toString();
  const headers = {};
  if (c.auth.raw) headers.authorization = c.auth.raw;
  else Object.assign(headers, bearer(c.auth.key));
  if (c.requestId !== null) headers['x-request-id'] = c.requestId;
  if (c.accept !== null) headers.accept = c.accept;
  if (c.body.text !== undefined) headers['content-type'] = c.contentType ?? 'application/json';
  if (c.bigHeader) headers['x-padding'] = 'p'.repeat(40_000);
  // Header values fetch() refuses to send are dropped rather than fuzzed.
  for (const [k, v] of Object.entries(headers)) if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(v)) delete headers[k];
  // fetch() cannot send a body with GET or HEAD.
  const body = op.method === 'GET' || op.method === 'HEAD' ? undefined : c.body.text;
  if (body === undefined) delete headers['content-type'];
  return { method: op.method, path: qs ? `${path}?${qs}` : path, headers, body };
}

class Checker {
  constructor(doc) {
    this.doc = doc;
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
    this.ajv.addSchema({ ...doc, $id: 'rota-openapi' });
    this.validators = new Map();
  }

  /** Null when the answer is what the document promises; else why not. */
  check(op, res) {
    if (res.status <= 0) return `no answer (${res.error})`;
    const documented = op.responses[String(res.status)];
    if (!documented) return `status ${res.status} not documented`;
    const schema = documented.content?.['application/json'];
    if (!schema) return null;
    const ct = res.headers.get('content-type') ?? '';
    if (!ct.startsWith('application/json') || res.json === undefined)
      return res.status >= 400 ? `${res.status} without a JSON envelope` : null;
    const pointer = [
      'paths',
      op.path,
      op.method.toLowerCase(),
      'responses',
      String(res.status),
      'content',
      'application/json',
      'schema',
    ]
      .map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    let v = this.validators.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `rota-openapi#/${pointer}` });
      this.validators.set(pointer, v);
    }
    return v(res.json) ? null : `${res.status} body off schema: ${this.ajv.errorsText(v.errors).slice(0, 120)}`;
  }
}

/** Requests that must be refused whatever the tree: their rows are counted before and after. */
function refusalBatch(op, keys, n, sampleBody) {
  const wrongScope = op.scope
    ? keys.combos.find((k) => !k.scopes.includes(op.scope) && k.scopes.length === keys.projectScopes.length - 1)
    : null;
  const out = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 5;
    const headers = { 'content-type': 'application/json' };
    let body = op.body ? sampleBody() : undefined;
    if (kind === 0) headers.authorization = `Bearer csk_live_${'Q'.repeat(32)}`;
    else if (kind === 1 && wrongScope) Object.assign(headers, bearer(wrongScope.key));
    else if (kind === 1) headers.authorization = `Bearer ${keys.revoked}`;
    else if (kind === 2 && op.body) {
      body = '{"a":';
      Object.assign(headers, bearer(keys.full.key));
    } else if (kind === 3 && op.body) {
      body = JSON.stringify({ zz_poison: 'a\u0000b', ...JSON.parse(sampleBody()) });
      Object.assign(headers, bearer(keys.full.key));
    } else if (kind === 4 && op.body) {
      headers['content-type'] = 'text/plain';
      Object.assign(headers, bearer(keys.full.key));
    } else headers.authorization = 'Basic Zm9vOmJhcg==';
    if (!op.secured && (kind === 0 || kind === 1 || !op.body)) continue;
    let path = op.path.replace(/\{[^}]+\}/g, 'ses_doesnotexist');
    out.push({ method: op.method, path, headers, body });
  }
  return out;
}

export async function fuzz(stack, keys, report, { perOperation, realIds, seed = Date.now() % 2 ** 31 }) {
  const doc = await (await fetch(`${stack.base}/openapi.json`)).json();
  const ops = operations(doc);
  const checker = new Checker(doc);
  const db = await pgClient(stack.env.DATABASE_URL);
  const totals = { cases: 0, fivexx: 0, offEnvelope: 0, statuses: {}, refused: 0, refusedTwoxx: 0, rowsWritten: 0 };
  const examples = { fivexx: [], offEnvelope: [], rows: [] };
  // Distinct causes, for the table's note column.
  const causes = { fivexx: new Map(), offEnvelope: new Map() };
  const cause = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);
  const top = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([k, n]) => `${k} x${n}`)
      .join('; ');
  console.log(`fuzz: ${ops.length} operations x ${perOperation} cases (seed ${seed})`);
  try {
    for (const op of ops) {
      const ids = op.path.includes('/sessions/')
        ? realIds.sessions
        : op.path.includes('/connections/')
          ? realIds.connections
          : op.path.includes('/servers/')
            ? realIds.servers
            : [];
      const cases = fc.sample(caseArb(doc, op, keys, ids), { numRuns: perOperation, seed: seed + ops.indexOf(op) });
      const statuses = {};
      await pool(cases, CONCURRENCY, async (c) => {
        const req = toRequest(op, c);
        const res = await send(stack.base, { ...req, timeoutMs: 20_000 });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status >= 500 || res.status <= 0) {
          totals.fivexx++;
          cause(
            causes.fivexx,
            `${op.id} ${res.status} ${res.json?.error ?? res.error ?? ''}${/[\ud800-\udfff]/.test(req.body ?? '') || /%ED%[AB]/i.test(req.path) ? ' (lone surrogate)' : ''}`,
          );
          if (examples.fivexx.length < 12)
            examples.fivexx.push(
              `${op.id} ${res.status} ${res.json?.error ?? res.error ?? ''} ${res.json?.message ?? ''} <- ${c.body.kind} ${JSON.stringify(req.body ?? '').slice(0, 80)} ${req.path.slice(0, 80)}`,
            );
        }
        const why = res.status > 0 ? checker.check(op, res) : null;
        if (why) {
          totals.offEnvelope++;
          cause(causes.offEnvelope, `${op.id}: ${why.slice(0, 60)}`);
          if (examples.offEnvelope.length < 12) examples.offEnvelope.push(`${op.id}: ${why}`);
        }
      });
      totals.cases += cases.length;
      for (const [k, v] of Object.entries(statuses)) totals.statuses[k] = (totals.statuses[k] ?? 0) + v;

      const sampler = op.body ? fc.sample(validArb(doc, op.body), { numRuns: 50, seed }) : [];
      let si = 0;
      const batch = refusalBatch(op, keys, Math.max(20, Math.round(perOperation / 10)), () =>
        JSON.stringify(sampler[si++ % sampler.length] ?? {}),
      );
      const before = await tableCounts(db);
      let twoxx = 0;
      await pool(batch, CONCURRENCY, async (req) => {
        const res = await send(stack.base, { ...req, timeoutMs: 20_000 });
        if (res.status >= 200 && res.status < 300) twoxx++;
        const why = res.status > 0 ? checker.check(op, res) : 'no answer';
        if (why) {
          totals.offEnvelope++;
          cause(causes.offEnvelope, `${op.id}: ${why.slice(0, 60)}`);
          if (examples.offEnvelope.length < 12) examples.offEnvelope.push(`${op.id} (refusal batch): ${why}`);
        }
        if (res.status >= 500 || res.status <= 0) {
          totals.fivexx++;
          cause(causes.fivexx, `${op.id} ${res.status} ${res.json?.error ?? res.error ?? ''} (refusal batch)`);
        }
      });
      const after = await tableCounts(db);
      const diff = Object.keys(after).filter((t) => after[t] !== before[t]);
      totals.refused += batch.length;
      totals.refusedTwoxx += twoxx;
      if (diff.length) {
        totals.rowsWritten += diff.reduce((n, t) => n + Math.abs(after[t] - before[t]), 0);
        examples.rows.push(`${op.id}: ${diff.map((t) => `${t} ${before[t]}->${after[t]}`).join(', ')}`);
      }
      console.log(`  ${op.id.padEnd(20)} ${fmtTally(statuses)}`);
    }
  } finally {
    await db.end();
  }
  const F = 'fuzz';
  report.add(F, 'operations x cases', `${ops.length} x ${perOperation} = ${totals.cases}`);
  report.add(F, 'statuses', fmtTally(totals.statuses));
  report.add(F, '5xx or no answer', totals.fivexx, {
    target: '0',
    ok: totals.fivexx === 0,
    finding: top(causes.fivexx),
  });
  report.add(F, 'answers off the document', totals.offEnvelope, {
    target: '0',
    ok: totals.offEnvelope === 0,
    finding: top(causes.offEnvelope),
  });
  report.add(F, 'refusals sent / answered 2xx', `${totals.refused} / ${totals.refusedTwoxx}`, {
    target: '2xx = 0',
    ok: totals.refusedTwoxx === 0,
    finding: 'a request that must be refused was accepted',
  });
  report.add(F, 'rows written by refusals', totals.rowsWritten, {
    target: '0',
    ok: totals.rowsWritten === 0,
    finding: examples.rows.join('; ').slice(0, 120),
  });
  for (const e of examples.fivexx) console.log(`  5xx: ${e}`);
  for (const e of examples.offEnvelope) console.log(`  off document: ${e}`);
  for (const e of examples.rows) console.log(`  rows: ${e}`);
  return totals;
}
