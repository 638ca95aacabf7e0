import { z } from 'zod';
import { EVENT_NAMES } from './events';

/**
 * Triggers: webhook subscriptions of a project and environment (or of the
 * deployment, made with an operator key), each with event filters. Events
 * of the catalog (events.ts) are delivered through the worker, signed as the
 * Standard Webhooks convention does:
 *
 * - `webhook-id`: the event id (`evt_…`), the same on every retry and replay;
 * - `webhook-timestamp`: seconds since the epoch when this attempt was sent;
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256>` of `<id>.<timestamp>.<body>`,
 *   keyed with the base64 part of the subscription's `whsec_…` secret.
 */

/** An event name of the catalog, a prefix ending in `.*` (`system.health.*`), or `*` for every event. */
export const WebhookEventFilter = z
  .string()
  .max(100)
  .refine((f) => webhookFilterMatches(f, EVENT_NAMES).length > 0, {
    message: `an event name (${EVENT_NAMES.join(', ')}), a prefix such as "system.health.*", or "*"`,
  })
  .describe('An event name, a prefix ending in `.*`, or `*`.');

/** The catalog event names a filter selects. */
export function webhookFilterMatches(filter: string, names: readonly string[]): string[] {
  if (filter === '*') return [...names];
  if (filter.endsWith('.*')) {
    const prefix = filter.slice(0, -1);
    return names.filter((n) => n.startsWith(prefix));
  }
  return names.filter((n) => n === filter);
}

/** `POST /v1/webhooks`. */
export const WebhookCreateRequest = z
  .object({
    url: z
      .string()
      .max(2048)
      .refine((u) => {
        try {
          const p = new URL(u);
          return (p.protocol === 'https:' || p.protocol === 'http:') && !p.username && !p.password;
        } catch {
          return false;
        }
      }, 'an absolute http(s) URL without credentials')
      .describe(
        'Where events are POSTed. It obeys the address rules of provider calls: private, loopback, link-local and metadata addresses are refused.',
      ),
    events: z.array(WebhookEventFilter).min(1).max(20),
    description: z.string().max(200).optional(),
  })
  .strict();
export type WebhookCreateRequest = z.infer<typeof WebhookCreateRequest>;

export const WEBHOOK_ID = /^whk_[A-Za-z0-9]{1,64}$/;
export const WEBHOOK_DELIVERY_ID = /^wdl_[A-Za-z0-9]{1,64}$/;

export const WebhookView = z.object({
  id: z.string().describe('`whk_…`.'),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  scope: z
    .enum(['project', 'deployment'])
    .describe('`deployment`: an operator subscription, which receives deployment-wide events.'),
  created_at: z.string(),
});
export type WebhookView = z.infer<typeof WebhookView>;

export const WebhookCreated = WebhookView.extend({
  secret: z.string().describe('`whsec_<base64>`: shown once. Verify each delivery’s `webhook-signature` with it.'),
});
export type WebhookCreated = z.infer<typeof WebhookCreated>;

export const WebhookList = z.object({ webhooks: z.array(WebhookView).describe('Newest first.') });
export type WebhookList = z.infer<typeof WebhookList>;

export const WebhookDeleted = z.object({ id: z.string(), deleted: z.literal(true) });
export type WebhookDeleted = z.infer<typeof WebhookDeleted>;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'dead'] as const;
export const WebhookDeliveryStatus = z
  .enum(WEBHOOK_DELIVERY_STATUSES)
  .describe(
    '`retrying`: an attempt failed and another is scheduled; `dead`: every attempt failed (the dead-letter list); replay sends it again.',
  );

export const WebhookAttempt = z.object({
  n: z.number().int().positive(),
  at: z.string(),
  status_code: z.number().int().nullable().describe('The receiver’s HTTP status; null when no answer came.'),
  error: z.string().nullable(),
  ms: z.number().int().nonnegative(),
});

export const WebhookDelivery = z.object({
  id: z.string().describe('`wdl_…`.'),
  webhook_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: WebhookDeliveryStatus,
  attempts: z.array(WebhookAttempt).describe('Every attempt, oldest first (the delivery log).'),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** `GET /v1/webhooks/{id}/deliveries`. */
export const WebhookDeliveriesQuery = z
  .object({
    status: WebhookDeliveryStatus.optional().describe('`dead` lists the dead-letter deliveries.'),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();
export type WebhookDeliveriesQuery = z.infer<typeof WebhookDeliveriesQuery>;

export const WebhookDeliveryList = z.object({ deliveries: z.array(WebhookDelivery).describe('Newest first.') });
export type WebhookDeliveryList = z.infer<typeof WebhookDeliveryList>;

/** Transport commands (the tenant comes from the envelope; none for an operator). */
export const WebhookCreateCommand = WebhookCreateRequest;
export const WebhookListCommand = z.object({}).strict();
export const WebhookRefCommand = z.object({ id: z.string().regex(WEBHOOK_ID) }).strict();
export const WebhookDeliveriesCommand = z
  .object({ id: z.string().regex(WEBHOOK_ID), query: WebhookDeliveriesQuery })
  .strict();
export const WebhookReplayCommand = z
  .object({ id: z.string().regex(WEBHOOK_ID), delivery_id: z.string().regex(WEBHOOK_DELIVERY_ID) })
  .strict();
export type WebhookRefCommand = z.infer<typeof WebhookRefCommand>;
export type WebhookDeliveriesCommand = z.infer<typeof WebhookDeliveriesCommand>;
export type WebhookReplayCommand = z.infer<typeof WebhookReplayCommand>;

/** `worker.queues`: the queue dashboard's data (operator keys). */
export const QueuesCommand = z.object({}).strict();
export const QueuesView = z.object({
  queues: z.array(
    z.object({
      name: z.string(),
      counts: z
        .record(z.string(), z.number().int().nonnegative())
        .describe('Jobs by state: waiting, active, delayed, failed, completed.'),
      failed: z
        .array(
          z.object({
            id: z.string(),
            name: z.string(),
            attempts: z.number().int(),
            reason: z.string(),
            at: z.string().nullable(),
          }),
        )
        .describe('The latest failed jobs (ids and reasons only, never payloads).'),
    }),
  ),
});
export type QueuesView = z.infer<typeof QueuesView>;
