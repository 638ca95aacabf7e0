import 'reflect-metadata';
import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Environment, Scope } from '@rota/contracts';
import { currentEmbeddingModel, seedDemoCatalog } from '@rota/catalog';
import { ApiKeyRepository, createTestDatabase, seed } from '@rota/db';
import { BaseConfig, loadConfig, startService, type StartedService } from '@rota/service-kit';
import { testPrefix } from '@rota/service-kit/testing/redis-server';
import { createGateway } from '../../apps/gateway/src/app.factory';
import { ContractCheck } from './contract-check';
import { GatewayConfig } from '../../apps/gateway/src/config';
import { RouterModule } from '../../apps/router/src/router.module';
import { RouterConfig } from '../../apps/router/src/config';
import { SearchModule } from '../../apps/search/src/search.module';
import { SearchConfig } from '../../apps/search/src/config';
import { SessionModule } from '../../apps/session/src/session.module';
import { SessionConfig } from '../../apps/session/src/config';
import { WorkerConfig } from '../../apps/worker/src/config';
import { WorkerModule } from '../../apps/worker/src/worker.module';

export interface Stack {
  url: string;
  env: Record<string, string>;
  gateway: NestFastifyApplication;
  services: Record<'search' | 'session' | 'router' | 'worker', StartedService>;
  db: Awaited<ReturnType<typeof createTestDatabase>>;
  /** Checks every response against the OpenAPI document; violations fail `close()`. */
  contract: ContractCheck;
  key(scopes: Scope[], opts?: { environment?: Environment; projectId?: string }): Promise<{ id: string; key: string }>;
  /** An operator key (no project): `admin`, `catalog:write` and `servers:read` unless told otherwise. */
  operatorKey(scopes?: Scope[]): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

/**
 * Suites run the hashing model unless they (or the environment) choose
 * another: the default local model runs a sentence encoder, whose embedding
 * of the demo catalog takes about a minute on a busy machine.
 */
const TEST_EMBEDDER = { ROTA_LOCAL_EMBEDDER: process.env.ROTA_LOCAL_EMBEDDER || 'hash' };

/**
 * Boots the whole stack in this process against its own database (cloned
 * from the migrated template) and its own Redis prefix, with the gateway on a
 * random port. Tests drive it over HTTP like any client.
 */
export async function startStack(
  opts: {
    env?: Record<string, string>;
    extraGatewayModules?: Type<unknown>[];
    /** Also load packages/catalog/data/demo-catalog.json (the worker embeds it). */ demoCatalog?: boolean;
    /**
     * Every log line of every app (gateway and services alike) goes to this
     * file, at `trace` unless `env.LOG_LEVEL` says otherwise, until `close()`.
     */
    logFile?: string;
  } = {},
): Promise<Stack> {
  const db = await createTestDatabase();
  await seed(
    db.prisma,
    opts.demoCatalog
      ? {
          providerCatalog: (p) =>
            seedDemoCatalog(p, {
              model: currentEmbeddingModel({ ...process.env, ...TEST_EMBEDDER, ...opts.env }),
              sandboxUrl: opts.env?.ROTA_SANDBOX_URL,
            }),
        }
      : {},
  );
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...TEST_EMBEDDER,
    DATABASE_URL: db.url,
    ROTA_REDIS_PREFIX: testPrefix('e2e'),
    LOG_LEVEL: 'silent',
    // Test databases hold no real credentials: the built-in key is fine here.
    ROTA_DEV_MODE: 'true',
    // Suites send many deliberate 401s from one address; the limiter still
    // runs on every request, and its own suite sets a small limit.
    ROTA_AUTH_FAIL_LIMIT: '10000',
    ...(opts.logFile ? { LOG_LEVEL: 'trace' } : {}),
    ...opts.env,
  };
  // Loggers read it when they are made, which is while the apps boot below.
  if (opts.logFile) process.env.ROTA_LOG_FILE = opts.logFile;
  const base = loadConfig(BaseConfig, env);
  const services = {
    search: await startService('search', SearchModule.forConfig(loadConfig(SearchConfig, env)), base),
    session: await startService('session', SessionModule.forConfig(loadConfig(SessionConfig, env)), base),
    router: await startService('router', RouterModule.forConfig(loadConfig(RouterConfig, env)), base),
    worker: await startService('worker', WorkerModule.forConfig(loadConfig(WorkerConfig, env)), base),
  };
  const gateway = await createGateway(loadConfig(GatewayConfig, { ...env, PORT: '0' }), opts.extraGatewayModules ?? []);
  const contract = new ContractCheck();
  contract.install(gateway.getHttpAdapter().getInstance());
  await gateway.listen(0, '127.0.0.1');
  const addr = gateway.getHttpServer().address() as { port: number };
  const keys = new ApiKeyRepository(db.prisma);
  return {
    url: `http://127.0.0.1:${addr.port}`,
    env,
    gateway,
    services,
    db,
    key: async (scopes, o = {}) => {
      const created = await keys.create({
        projectId: o.projectId ?? 'proj_dev',
        environment: o.environment ?? 'live',
        scopes,
      });
      return { id: created.id, key: created.key };
    },
    operatorKey: async (scopes = ['admin', 'catalog:write', 'servers:read']) => {
      const created = await keys.create({ operator: true, scopes });
      return { id: created.id, key: created.key };
    },
    contract,
    close: async () => {
      await gateway.close();
      for (const s of Object.values(services)) await s.app.close();
      await db.drop();
      if (opts.logFile) delete process.env.ROTA_LOG_FILE;
      // Every response of the run, held to the OpenAPI document.
      if (contract.violations.length > 0)
        throw new Error(`Responses that break the OpenAPI document:\n${[...new Set(contract.violations)].join('\n')}`);
    },
  };
}

/** fetch() returning status, headers and parsed JSON (or raw text). */
export async function http(url: string, init: RequestInit & { json?: unknown } = {}) {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const res = await fetch(url, { ...init, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
