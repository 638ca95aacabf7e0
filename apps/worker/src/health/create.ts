import type { CredentialsCheckResult } from '@rota/contracts';
import type { PrismaClient } from '@rota/db';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
import { FxRepository } from '../fx/fx.repository';
import { HttpFxSource } from '../fx/fx.source';
import { FxService } from '../fx/fx.service';
import { CatalogRepository } from '../jobs/catalog.repository';
import { HealthRepository } from './health.repository';
import { HealthService } from './health.service';

/** How the worker reaches the session service's canary (`session.credentials.check`). */
export type CredentialsProbe = (timeoutMs: number) => Promise<CredentialsCheckResult>;

/** Used when the worker is built without a transport client (some tests): the check reports that nothing was asked. */
const unreachable: CredentialsProbe = () =>
  Promise.reject(new Error('This worker has no transport client to ask the session service.'));

/** The worker's health rollup from its config. */
export function createHealthService(
  config: WorkerConfig,
  prisma: PrismaClient,
  model: string,
  log: Logger,
  credentials: CredentialsProbe = unreachable,
): HealthService {
  const catalog = new CatalogRepository(prisma);
  return new HealthService({
    repo: new HealthRepository(prisma),
    catalogCounts: (m) => catalog.counts(m),
    model,
    credentials,
    fxSourceConfigured: config.ROTA_FX_URL !== undefined,
    fxStaleHours: config.ROTA_FX_STALE_AFTER_H,
    budgetMs: config.ROTA_HEALTH_CHECK_TIMEOUT_MS,
    retentionDays: config.ROTA_HEALTH_RETENTION_DAYS,
    log,
  });
}

/** The worker's exchange rates from its config: the HTTP source when `ROTA_FX_URL` is set. */
export function createFxService(config: WorkerConfig, prisma: PrismaClient, log: Logger): FxService {
  const source = config.ROTA_FX_URL
    ? new HttpFxSource(config.ROTA_FX_URL, config.ROTA_FX_FORMAT, config.ROTA_FX_TIMEOUT_MS)
    : undefined;
  return new FxService(new FxRepository(prisma), source, log);
}
