import type { Job, Queue } from 'bullmq';
import type { WorkerConfig } from '../config';
import type { WebhooksService } from './webhooks.service';

/** A delivery left pending this long without an attempt is enqueued again by the dispatch sweep (its job may have been lost). */
const STRANDED_AFTER_S = 60;

/**
 * Enqueues one delivery. The first send's job id is the delivery id (a
 * repeat is a no-op while the job exists); a replay gets its own id, so a
 * kept failed job cannot block it.
 */
export async function enqueueDelivery(
  queue: Queue,
  config: WorkerConfig,
  deliveryId: string,
  replay = false,
): Promise<void> {
  await queue.add(
    'webhooks.deliver',
    { delivery_id: deliveryId },
    {
      jobId: replay ? `${deliveryId}-replay-${Date.now()}` : deliveryId,
      attempts: config.ROTA_WEBHOOK_ATTEMPTS,
      backoff: { type: 'exponential', delay: config.ROTA_WEBHOOK_BACKOFF_MS },
    },
  );
}

/** `events.dispatch`: the outbox fanned out to matching subscriptions, one job per new delivery, plus any stranded delivery. */
export async function dispatchEvents(webhooks: WebhooksService, queue: Queue, config: WorkerConfig) {
  const created = await webhooks.dispatch();
  for (const id of created) await enqueueDelivery(queue, config, id);
  const stranded = await webhooks.stranded(STRANDED_AFTER_S);
  for (const id of stranded) await enqueueDelivery(queue, config, id);
  return { deliveries: created.length, requeued: stranded.length };
}

/**
 * `webhooks.deliver`: one attempt; a failure that has attempts left throws,
 * so BullMQ retries it with backoff. The last failure throws too, so the job
 * ends `failed` and the queue's failed count is the dead-letter count. The
 * job of a dead delivery runs again only when an operator retried it from
 * the queue board (job ids are delivery ids; a replay uses a job of its
 * own): the delivery is then reopened and attempted once more.
 */
export async function deliverWebhook(webhooks: WebhooksService, deliveryId: string, job: Job) {
  const attempts = job.opts.attempts ?? 1;
  // BullMQ keeps attemptsMade on a manual retry, so a run past the last attempt is one.
  if (job.attemptsMade >= attempts) await webhooks.reopenDead(deliveryId);
  const last = job.attemptsMade + 1 >= attempts;
  const outcome = await webhooks.attempt(deliveryId, last);
  if (outcome === 'retry') throw new Error(`webhook delivery ${deliveryId} failed; retrying`);
  if (outcome === 'dead') throw new Error(`webhook delivery ${deliveryId} is dead after its last attempt`);
  return { outcome };
}
