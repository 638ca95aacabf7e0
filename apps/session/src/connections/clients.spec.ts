import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_POLICY, type Sealer } from '@rota/providers';
import { loadConfig } from '@rota/service-kit';
import type Redis from 'ioredis';
import { SANDBOX_PROVIDERS, SessionConfig } from '../config';
import { privateProviderIds, providerClients, providerPolicies } from './clients';

const config = (env: Record<string, string> = {}) => loadConfig(SessionConfig, { LOG_LEVEL: 'silent', ...env });
const store = {
  rotateRefreshToken: () => Promise.resolve('stored' as const),
  credentialsFor: () => Promise.resolve(null),
};

describe('ROTA_PROVIDER_LIMITS', () => {
  it('is empty by default', () => {
    expect(config().ROTA_PROVIDER_LIMITS).toEqual({});
    expect(config({ ROTA_PROVIDER_LIMITS: '  ' }).ROTA_PROVIDER_LIMITS).toEqual({});
  });

  it('parses per-provider limits and hands the adapter exactly the fields that were set', () => {
    const limits = config({
      ROTA_PROVIDER_LIMITS: JSON.stringify({
        mercadopago: { timeout_ms: 8000, concurrency: 8 },
        melhorenvio: {
          connect_timeout_ms: 500,
          max_response_bytes: 1_048_576,
          queue: 0,
          breaker_failures: 3,
          breaker_half_open_ms: 10_000,
        },
      }),
    }).ROTA_PROVIDER_LIMITS;
    expect(providerPolicies(limits)).toEqual({
      mercadopago: { responseTimeoutMs: 8000, concurrency: 8 },
      melhorenvio: {
        connectTimeoutMs: 500,
        maxResponseBytes: 1_048_576,
        queue: 0,
        breakerFailures: 3,
        breakerHalfOpenAfterMs: 10_000,
      },
    });
  });

  it('refuses to boot on malformed JSON, unknown fields, bad values or a bad provider id, naming the problem', () => {
    expect(() => config({ ROTA_PROVIDER_LIMITS: '{mercadopago:' })).toThrow(/ROTA_PROVIDER_LIMITS: must be JSON/);
    expect(() => config({ ROTA_PROVIDER_LIMITS: '{"mercadopago":{"timeout":8000}}' })).toThrow(
      /ROTA_PROVIDER_LIMITS.*mercadopago/,
    );
    expect(() => config({ ROTA_PROVIDER_LIMITS: '{"mercadopago":{"timeout_ms":-1}}' })).toThrow(
      /ROTA_PROVIDER_LIMITS.*timeout_ms/,
    );
    expect(() => config({ ROTA_PROVIDER_LIMITS: '{"mercadopago":{"concurrency":1.5}}' })).toThrow(/concurrency/);
    expect(() => config({ ROTA_PROVIDER_LIMITS: '{"mercadopago":{"timeout_ms":"8000"}}' })).toThrow(/timeout_ms/);
    expect(() => config({ ROTA_PROVIDER_LIMITS: '{"bad id":{}}' })).toThrow(/ROTA_PROVIDER_LIMITS/);
    expect(() => config({ ROTA_PROVIDER_LIMITS: '[]' })).toThrow(/ROTA_PROVIDER_LIMITS/);
  });

  it('reaches both clients: the provider named gets its limits over the global deadlines, others keep the defaults', async () => {
    const c = config({
      ROTA_PROVIDER_TIMEOUT_MS: '4000',
      ROTA_PROVIDER_CONNECT_TIMEOUT_MS: '2000',
      ROTA_PROVIDER_LIMITS: '{"mercadopago":{"timeout_ms":9000,"max_response_bytes":2048,"concurrency":4}}',
    });
    const clients = providerClients(c, {} as Sealer, {} as Redis, store);
    try {
      for (const client of [clients.live, clients.test]) {
        expect(client.policy('mercadopago')).toEqual({
          ...DEFAULT_POLICY,
          connectTimeoutMs: 2000,
          responseTimeoutMs: 9000,
          maxResponseBytes: 2048,
          concurrency: 4,
        });
        expect(client.policy('asaas')).toEqual({ ...DEFAULT_POLICY, connectTimeoutMs: 2000, responseTimeoutMs: 4000 });
      }
    } finally {
      await Promise.all([clients.live.close(), clients.test.close()]);
    }
  });
});

describe('ROTA_PRIVATE_PROVIDERS', () => {
  it('defaults to every demo catalog provider whose test base URL is the sandbox', () => {
    const text = readFileSync(join(__dirname, '../../../../packages/catalog/data/demo-catalog.json'), 'utf8');
    const servers = (JSON.parse(text) as { servers: Array<{ id: string; base_urls: { test?: string } }> }).servers;
    const sandboxed = servers.filter((s) => s.base_urls.test?.startsWith('${ROTA_SANDBOX_URL}')).map((s) => s.id);
    expect(sandboxed.length).toBeGreaterThan(0);
    expect([...SANDBOX_PROVIDERS].sort()).toEqual(sandboxed.sort());
    expect(privateProviderIds(config()).sort()).toEqual(sandboxed.sort());
  });

  it('takes the operator list as given', () => {
    expect(privateProviderIds(config({ ROTA_PRIVATE_PROVIDERS: ' asaas, ,acme ' }))).toEqual(['asaas', 'acme']);
    expect(privateProviderIds(config({ ROTA_PRIVATE_PROVIDERS: '' }))).toEqual([]);
  });
});
