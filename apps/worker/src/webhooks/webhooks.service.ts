import {
  AppError,
  type Tenant,
  type WebhookCreated,
  type WebhookCreateRequest,
  type WebhookDeleted,
  type WebhookDeliveriesCommand,
  type WebhookDelivery,
  type WebhookDeliveryList,
  type WebhookList,
  type WebhookView,
} from '@rota/contracts';
import { newId } from '@rota/db';
import { counter, histogram } from '@rota/service-kit';
import type { Logger } from 'pino';
import { postWebhook, webhookUrlRefusal } from './sender';
import { newWebhookSecret, signWebhook, type SecretBox } from './signing';
import type { DeliveryRow, SubscriptionRow, WebhookOwner, WebhooksRepository } from './webhooks.repository';

export interface WebhooksDeps {
  repo: WebhooksRepository;
  /** Absent when no webhook key is configured: subscriptions cannot be made or delivered. */
  box?: SecretBox;
  timeoutMs: number;
  allowPrivate: boolean;
  log: Pick<Logger, 'info' | 'warn'>;
}

/** What the deliver job learns from one attempt. */
export type AttemptOutcome = 'delivered' | 'retry' | 'dead' | 'skipped';

const deliveries = counter({
  name: 'rota_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: delivered (2xx), failed (anything else, retried), dead (the last attempt failed).',
  labelNames: ['outcome'],
});
const attemptSeconds = histogram({
  name: 'rota_webhook_attempt_duration_seconds',
  help: 'Time a webhook receiver took to answer one attempt.',
});

function ownerOf(tenant: Tenant | undefined): WebhookOwner {
  return tenant
    ? { orgId: tenant.org_id, projectId: tenant.project_id, environment: tenant.environment }
    : { orgId: null, projectId: null, environment: null };
}

const view = (r: SubscriptionRow): WebhookView => ({
  id: r.id,
  url: r.url,
  events: r.events,
  description: r.description,
  scope: r.project_id ? 'project' : 'deployment',
  created_at: r.created_at.toISOString(),
});

const deliveryView = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  webhook_id: r.subscription_id,
  event_id: r.event_id,
  event_type: r.event_type,
  status: r.status,
  attempts: r.attempts,
  created_at: r.created_at.toISOString(),
  delivered_at: r.delivered_at?.toISOString() ?? null,
});

/** Webhook subscriptions (per project and environment, or the deployment's), the outbox fan-out and signed delivery. */
export class WebhooksService {
  constructor(private readonly deps: WebhooksDeps) {}

  private box(): SecretBox {
    if (!this.deps.box)
      throw new AppError(
        'unavailable',
        'Webhooks are not configured on this deployment: the worker needs ROTA_WEBHOOK_KEY.',
      );
    return this.deps.box;
  }

  async create(body: WebhookCreateRequest, tenant: Tenant | undefined): Promise<WebhookCreated> {
    const box = this.box();
    const refused = await webhookUrlRefusal(body.url, this.deps.allowPrivate);
    if (refused) throw new AppError('webhook_url_refused', `Rota does not deliver to this address: ${refused}.`);
    const id = newId('whk');
    const secret = newWebhookSecret();
    const row = await this.deps.repo.create({
      id,
      owner: ownerOf(tenant),
      url: body.url,
      events: [...new Set(body.events)],
      description: body.description ?? null,
      secretSealed: box.seal(secret, id),
    });
    this.deps.log.info({ webhook: id, events: row.events }, 'webhook created');
    return { ...view(row), secret };
  }

  async list(tenant: Tenant | undefined): Promise<WebhookList> {
    return { webhooks: (await this.deps.repo.list(ownerOf(tenant))).map(view) };
  }

  async delete(id: string, tenant: Tenant | undefined): Promise<WebhookDeleted> {
    if (!(await this.deps.repo.delete(ownerOf(tenant), id)))
      throw new AppError('webhook_not_found', 'No webhook with this id.');
    return { id, deleted: true };
  }

  async deliveries(cmd: WebhookDeliveriesCommand, tenant: Tenant | undefined): Promise<WebhookDeliveryList> {
    if (!(await this.deps.repo.exists(ownerOf(tenant), cmd.id)))
      throw new AppError('webhook_not_found', 'No webhook with this id.');
    const rows = await this.deps.repo.deliveries(cmd.id, { status: cmd.query.status, limit: cmd.query.limit });
    return { deliveries: rows.map(deliveryView) };
  }

  /** Puts a delivery back to `pending`; the caller enqueues its job. */
  async replay(id: string, deliveryId: string, tenant: Tenant | undefined): Promise<WebhookDelivery> {
    if (!(await this.deps.repo.exists(ownerOf(tenant), id)))
      throw new AppError('webhook_not_found', 'No webhook with this id.');
    const [row] = await this.deps.repo.deliveries(id, { id: deliveryId, limit: 1 });
    if (!row) throw new AppError('webhook_delivery_not_found', 'No delivery with this id for this webhook.');
    await this.deps.repo.requeue(deliveryId);
    return deliveryView({ ...row, status: 'pending', delivered_at: null });
  }

  /** A dead delivery retried from the queue board: back to pending for one more attempt (nothing else changes). */
  async reopenDead(deliveryId: string): Promise<void> {
    await this.deps.repo.reopenDead(deliveryId);
  }

  /** `events.dispatch`: new deliveries from the outbox (the caller enqueues one job each). */
  dispatch(limit = 500): Promise<string[]> {
    return this.deps.repo.dispatch(limit);
  }

  stranded(olderThanS: number): Promise<string[]> {
    return this.deps.repo.stranded(olderThanS, 500);
  }

  /**
   * `webhooks.deliver`: one signed attempt. `last` says whether the job has
   * no attempt left, so a failure makes the delivery dead instead of
   * retrying. A delivery that already ended, or whose subscription is gone,
   * is skipped.
   */
  async attempt(deliveryId: string, last: boolean): Promise<AttemptOutcome> {
    const work = await this.deps.repo.work(deliveryId);
    if (!work || work.deleted || work.status === 'delivered' || work.status === 'dead') return 'skipped';
    const secret = this.box().open(Buffer.from(work.secret_sealed), work.subscription_id);
    const body = JSON.stringify({
      id: work.event_id,
      type: work.event_type,
      timestamp: work.event_created_at.toISOString(),
      data: work.payload,
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': work.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secret, work.event_id, timestamp, body),
    };
    const result = await postWebhook(work.url, headers, body, {
      timeoutMs: this.deps.timeoutMs,
      allowPrivate: this.deps.allowPrivate,
    });
    attemptSeconds.observe(result.ms / 1000);
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const error = ok ? null : (result.error ?? `the receiver answered HTTP ${result.status}`);
    const outcome: AttemptOutcome = ok ? 'delivered' : last ? 'dead' : 'retry';
    const recorded = await this.deps.repo.recordAttempt(
      deliveryId,
      { n: work.attempts.length + 1, at: new Date().toISOString(), status_code: result.status, error, ms: result.ms },
      outcome === 'retry' ? 'retrying' : outcome,
    );
    if (!recorded) return 'skipped';
    deliveries.inc({ outcome: outcome === 'retry' ? 'failed' : outcome });
    if (outcome === 'dead')
      this.deps.log.warn(
        { delivery: deliveryId, event: work.event_id, error },
        'webhook delivery is dead after its last attempt',
      );
    return outcome;
  }
}
