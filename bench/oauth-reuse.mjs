// OAuth2 token reuse across replicas: two ProviderClient instances, each with
// its own Redis connection and token cache (as two session replicas have),
// sharing only Redis and the key prefix, call the sandbox's Mercado Pago
// (OAuth2 client credentials; the sandbox counts every call to its token
// endpoint). Figures: token endpoint calls per 1,000 provider calls, and per
// token lifetime. No assertions: the figures are printed.
//   1. 1,000 calls, half on each replica, 16 at a time, tokens living an hour
//      (the cache starts empty, so the first calls of both replicas race for it);
//   2. calls for BENCH_OAUTH_SECONDS (default 12) with tokens living 4 s and
//      refreshed 1 s before expiry, so several lifetimes pass under load.
// Each is run twice in the same process: shared (both replicas on one key
// prefix, as deployed) and, as the baseline, each replica caching on its own
// prefix (what replicas that did not share through Redis would do). The
// ratio is shared token calls over baseline token calls.
// Needs a build (`pnpm build`) and Redis.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT, benchPrefix, fmt, table } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CALLS = Number(process.env.BENCH_OAUTH_CALLS ?? 1000);
const SECONDS = Number(process.env.BENCH_OAUTH_SECONDS ?? 12);
const CONCURRENCY = 16;
const CLIENT = { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' };
const TENANT = { org_id: 'org_dev', project_id: 'proj_dev', environment: 'test' };

/** AES-256-GCM with the keyring's interface: the cached tokens are sealed as in the session service. */
function sealer() {
  const key = randomBytes(32);
  return {
    seal(plain, aad) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad));
      const body = Buffer.concat([c.update(plain), c.final()]);
      return { ciphertext: Buffer.concat([iv, c.getAuthTag(), body]), keyId: 'bench' };
    },
    open(blob, _keyId, aad) {
      const d = createDecipheriv('aes-256-gcm', key, blob.subarray(0, 12)).setAAD(Buffer.from(aad));
      d.setAuthTag(blob.subarray(12, 28));
      return Buffer.concat([d.update(blob.subarray(28)), d.final()]);
    },
  };
}

async function phase({ ttlSeconds, refreshMarginMs, calls, seconds, shared }) {
  const { ProviderClient, OAuth2TokenCache, buildRequest } = require(join(ROOT, 'packages/providers/dist/index.js'));
  const { startSandbox, DEFAULT_CONFIG } = require(join(ROOT, 'apps/sandbox/dist/index.js'));
  const Redis = require(join(ROOT, 'node_modules/ioredis'));
  const mp = DEFAULT_CONFIG.providers.mercadopago;
  const sandbox = await startSandbox({
    port: 0,
    config: { providers: { mercadopago: { ...mp, auth: { ...mp.auth, token_ttl_seconds: ttlSeconds } } } },
  });
  const prefix = benchPrefix('oauth');
  const seal = sealer();
  const redises = [];
  const replica = (n) => {
    const redis = new Redis(REDIS_URL);
    redises.push(redis);
    // The baseline: a replica of its own, sharing nothing with the other one.
    const keyPrefix = shared ? prefix : `${prefix}:r${n}`;
    const tokens = new OAuth2TokenCache({ redis, sealer: seal, keyPrefix, refreshMarginMs });
    return new ProviderClient({
      tokens,
      allowPrivateAddresses: ['mercadopago'],
      defaults: { concurrency: 64, queue: 1000 },
    });
  };
  const replicas = [replica(1), replica(2)];
  const base = `${sandbox.url}/mercadopago`;
  const auth = {
    type: 'oauth2',
    grant: 'client_credentials',
    token_url: `${base}/oauth/token`,
    scopes: [],
    client_auth: 'client_secret_post',
  };
  const request = buildRequest({ baseUrl: base, method: 'GET', endpointTemplate: '/v1/payments/search', input: {} });
  const perReplica = [0, 0];
  let failures = 0;
  const one = async (i) => {
    const r = await replicas[i].call({
      providerId: 'mercadopago',
      request,
      auth,
      credentials: CLIENT,
      tenant: TENANT,
      connectionId: 'test:mercadopago',
    });
    if (r.kind === 'response' && r.status === 200) perReplica[i]++;
    else failures++;
  };
  const t0 = performance.now();
  let sent = 0;
  const until = seconds ? t0 + seconds * 1000 : Infinity;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      // Workers alternate between the replicas, so both hold calls in flight at every moment.
      while (seconds ? performance.now() < until : sent < calls) {
        sent++;
        await one(w % 2);
      }
    }),
  );
  const elapsedS = (performance.now() - t0) / 1000;
  const counters = sandbox.control.counters();
  const tokenCalls = counters.token_requests.mercadopago ?? 0;
  const authFailures = counters.auth_failures.mercadopago ?? 0;
  for (const r of redises) {
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
  }
  for (const r of redises) r.disconnect();
  await sandbox.close();
  const total = perReplica[0] + perReplica[1];
  // Refreshed `refreshMarginMs` before expiry, a token serves (ttl - margin) of wall time.
  const lifetimes = Math.max(1, Math.ceil(elapsedS / (ttlSeconds - refreshMarginMs / 1000)));
  return { total, perReplica, failures, tokenCalls, authFailures, elapsedS, lifetimes };
}

export async function oauthReuseBench() {
  const LONG = { ttlSeconds: 3600, refreshMarginMs: 60_000, calls: CALLS };
  const SHORT = { ttlSeconds: 4, refreshMarginMs: 1000, seconds: SECONDS };
  const runs = [
    {
      label: `${CALLS} calls`,
      ttl: '3600 s',
      shared: await phase({ ...LONG, shared: true }),
      own: await phase({ ...LONG, shared: false }),
    },
    {
      label: `${SECONDS} s of calls`,
      ttl: '4 s (refresh 1 s early)',
      shared: await phase({ ...SHORT, shared: true }),
      own: await phase({ ...SHORT, shared: false }),
    },
  ];
  const row = (label, cache, r, ttl, ratio) => ({
    run: label,
    cache,
    'token lifetime': ttl,
    'provider calls (replica 1 / 2)': `${r.total} (${r.perReplica[0]} / ${r.perReplica[1]})`,
    failed: r.failures,
    'token endpoint calls': r.tokenCalls,
    'per 1,000 calls': fmt((r.tokenCalls / Math.max(1, r.total)) * 1000, 2),
    'lifetimes elapsed': r.lifetimes,
    'per lifetime': fmt(r.tokenCalls / r.lifetimes, 2),
    '401s': r.authFailures,
    'token calls vs baseline': ratio,
  });
  console.log(
    `\n## OAuth2 token reuse across 2 replicas (sandbox Mercado Pago, client credentials, ${CONCURRENCY} calls in flight)`,
  );
  table(
    runs.flatMap(({ label, ttl, shared, own }) => [
      row(label, 'baseline: one cache per replica', own, ttl, '1.00'),
      row(label, 'shared through Redis', shared, ttl, fmt(shared.tokenCalls / Math.max(1, own.tokenCalls), 2)),
    ]),
  );
}
