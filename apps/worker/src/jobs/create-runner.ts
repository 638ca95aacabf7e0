import { createEmbedder } from '@rota/catalog';
import type { PrismaClient } from '@rota/db';
import { createLogger, type RpcClient } from '@rota/service-kit';
import type { CallLookup, SettledPublisher } from './calls-reconcile';
import Redis from 'ioredis';
import type { WorkerConfig } from '../config';
import type { FxService } from '../fx/fx.service';
import { createFxService, createHealthService } from '../health/create';
import type { HealthService } from '../health/health.service';
import { createWebhooksService } from '../webhooks/create';
import type { WebhooksService } from '../webhooks/webhooks.service';
import { CatalogJobs } from './catalog.jobs';
import { catalogJobOptions, JobRunner } from './runner';
import { SessionsRepository } from './sessions.repository';

/** Builds the worker's job runner from its config (the module and the tests share this). */
export function createJobRunner(
  config: WorkerConfig,
  prisma: PrismaClient,
  services: { health?: HealthService; fx?: FxService; webhooks?: WebhooksService; rpc?: RpcClient } = {},
): JobRunner {
  const log = createLogger('worker', config.LOG_LEVEL);
  const catalog = new CatalogJobs(
    prisma,
    createEmbedder(config, { maxInputsPerRequest: config.ROTA_EMBED_BATCH_SIZE }),
    // The transaction of one batch outlives the embedding call's own deadline.
    {
      batchSize: config.ROTA_EMBED_BATCH_SIZE,
      batchTimeoutMs: config.ROTA_EMBED_TIMEOUT_MS * 2 + 30_000,
      jobOptions: catalogJobOptions(config),
      reindexThreshold: config.ROTA_EMBED_REINDEX_THRESHOLD,
    },
    log,
  );
  return new JobRunner(
    new Redis(config.REDIS_URL, { maxRetriesPerRequest: null }) as never,
    `${config.ROTA_REDIS_PREFIX}:bull`,
    {
      config,
      sessions: new SessionsRepository(prisma),
      catalog,
      // The module passes the instances its controllers use; tests may omit them.
      health: services.health ?? createHealthService(config, prisma, catalog.embedder.model, log),
      fx: services.fx ?? createFxService(config, prisma, log),
      webhooks: services.webhooks ?? createWebhooksService(config, prisma, log),
      log,
      // Only the session service opens credentials: the reconcile sweep asks it to look a call up.
      lookupCall: services.rpc ? lookupThrough(services.rpc, config) : undefined,
      publishSettled: services.rpc ? publishThrough(services.rpc, config) : undefined,
    },
  );
}

/** `session.calls.settled`: the session service puts the settled calls on the call log stream. */
export function publishThrough(rpc: RpcClient, config: WorkerConfig): SettledPublisher {
  return (ids) => rpc.send('session.calls.settled', { tool_call_ids: ids }, { timeoutMs: config.ROTA_RPC_TIMEOUT_MS });
}

/** `session.calls.lookup` for the call's own tenant, with room for a token fetch and the provider's answer. */
export function lookupThrough(rpc: RpcClient, config: WorkerConfig): CallLookup {
  return (call) =>
    rpc.send(
      'session.calls.lookup',
      { tool_call_id: call.id },
      {
        tenant: { org_id: call.orgId, project_id: call.projectId, environment: call.environment },
        timeoutMs: 2 * config.ROTA_RPC_TIMEOUT_MS,
      },
    );
}
