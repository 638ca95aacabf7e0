import { Controller } from '@nestjs/common';
import {
  ROUTES,
  type WebhookCreated,
  type WebhookDeleted,
  type WebhookDelivery,
  type WebhookDeliveryList,
  type WebhookList,
} from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import { Input, Route, type In } from '../http/route';

/** Webhook subscriptions, held by the worker (which seals their secrets and delivers). The tenant travels in the envelope. */
@Controller()
export class WebhooksController {
  constructor(private readonly rpc: RpcClient) {}

  @Route(ROUTES.createWebhook)
  create(@Input() { body }: In<typeof ROUTES.createWebhook>): Promise<WebhookCreated> {
    return this.rpc.send('worker.webhooks.create', body);
  }

  @Route(ROUTES.listWebhooks)
  list(): Promise<WebhookList> {
    return this.rpc.send('worker.webhooks.list', {});
  }

  @Route(ROUTES.deleteWebhook)
  delete(@Input() { params }: In<typeof ROUTES.deleteWebhook>): Promise<WebhookDeleted> {
    return this.rpc.send('worker.webhooks.delete', { id: params.id });
  }

  @Route(ROUTES.listWebhookDeliveries)
  deliveries(@Input() { params, query }: In<typeof ROUTES.listWebhookDeliveries>): Promise<WebhookDeliveryList> {
    return this.rpc.send('worker.webhooks.deliveries', { id: params.id, query });
  }

  @Route(ROUTES.replayWebhookDelivery)
  replay(@Input() { params }: In<typeof ROUTES.replayWebhookDelivery>): Promise<WebhookDelivery> {
    return this.rpc.send('worker.webhooks.replay', { id: params.id, delivery_id: params.delivery_id });
  }
}
