import type { PrismaClient } from '@rota/db';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
import { DEV_WEBHOOK_KEY, SecretBox } from './signing';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** The worker's webhooks from its config: the sealing key is ROTA_WEBHOOK_KEY, or the built-in one in development mode. */
export function createWebhooksService(config: WorkerConfig, prisma: PrismaClient, log: Logger): WebhooksService {
  const key = config.ROTA_WEBHOOK_KEY
    ? Buffer.from(config.ROTA_WEBHOOK_KEY, 'base64')
    : config.ROTA_DEV_MODE && process.env.NODE_ENV !== 'production'
      ? DEV_WEBHOOK_KEY
      : undefined;
  if (!key) log.warn('ROTA_WEBHOOK_KEY is not set: webhooks cannot be created or delivered');
  return new WebhooksService({
    repo: new WebhooksRepository(prisma),
    box: key ? new SecretBox(key) : undefined,
    timeoutMs: config.ROTA_WEBHOOK_TIMEOUT_MS,
    allowPrivate: config.ROTA_WEBHOOK_ALLOW_PRIVATE,
    log,
  });
}
