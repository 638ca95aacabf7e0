#!/usr/bin/env node
// Writes tests/fixtures/webhook-vectors.json: messages signed, and checked,
// by the npm `standardwebhooks` package, so the Python verifier is held to
// the reference implementation rather than to itself. Deterministic: the
// same package version always writes the same file (the stack test compares).
// Usage: node scripts/webhook-vectors.cjs [out-file]
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Webhook } = require('standardwebhooks');

const secrets = ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_' + Buffer.alloc(32, 7).toString('base64')];
const payloads = [
  '{"type":"system.health.degraded","data":{"status":"degraded"}}',
  '{"type":"call.completed","data":{"amount":"49.90","note":"cobrança pix ✓"}}',
  '{}',
];
const vectors = [];
let n = 0;
for (const secret of secrets) {
  const wh = new Webhook(secret);
  for (const payload of payloads) {
    const id = `msg_${String(++n).padStart(4, '0')}`;
    const timestamp = 1_780_000_000 + n * 61;
    const signature = wh.sign(id, new Date(timestamp * 1000), payload);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    const other = new Webhook(secrets.find((s) => s !== secret));
    const cases = [
      { name: 'valid', headers, payload, valid: true },
      {
        name: 'several signatures, one valid',
        headers: { ...headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${signature} v2,abc` },
        payload,
        valid: true,
      },
      { name: 'payload changed', headers, payload: payload.replace('}', ' }'), valid: false },
      {
        name: 'signed by another secret',
        headers: { ...headers, 'webhook-signature': other.sign(id, new Date(timestamp * 1000), payload) },
        payload,
        valid: false,
      },
      { name: 'id changed', headers: { ...headers, 'webhook-id': `${id}x` }, payload, valid: false },
      {
        name: 'timestamp changed',
        headers: { ...headers, 'webhook-timestamp': String(timestamp + 1) },
        payload,
        valid: false,
      },
    ];
    for (const c of cases) {
      // What the reference library says, checked at the message's own time (its clock is the only input we move).
      const realNow = Date.now;
      Date.now = () => timestamp * 1000;
      let ok;
      try {
        wh.verify(c.payload, c.headers);
        ok = true;
      } catch {
        ok = false;
      } finally {
        Date.now = realNow;
      }
      if (ok !== c.valid) throw new Error(`standardwebhooks disagrees with the expectation for ${id} ${c.name}`);
      vectors.push({ secret, now: timestamp, ...c });
    }
  }
}
const out = process.argv[2] ?? join(__dirname, '..', 'tests', 'fixtures', 'webhook-vectors.json');
writeFileSync(
  out,
  `${JSON.stringify({ generator: `standardwebhooks@${require('standardwebhooks/package.json').version}`, vectors }, null, 2)}\n`,
);
