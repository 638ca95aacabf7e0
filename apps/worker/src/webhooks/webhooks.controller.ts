import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  WebhookCreateCommand,
  WebhookDeliveriesCommand,
  WebhookListCommand,
  WebhookRefCommand,
  WebhookReplayCommand,
  type WebhookCreated,
  type WebhookCreateRequest,
  type WebhookDeleted,
  type WebhookDelivery,
  type WebhookDeliveryList,
  type WebhookList,
} from '@rota/contracts';
import { maybeTenant, ZodPipe } from '@rota/service-kit';
import { JobRunner } from '../jobs/runner';
import { WebhooksService } from './webhooks.service';

/** Webhook subscriptions over the transport; an operator's request (no tenant) manages the deployment's subscriptions. */
@Controller()
export class WebhooksController {
  constructor(
    @Inject(WebhooksService) private readonly webhooks: WebhooksService,
    @Inject(JobRunner) private readonly runner: JobRunner,
  ) {}

  @MessagePattern('worker.webhooks.create')
  create(@Payload(new ZodPipe(WebhookCreateCommand)) body: WebhookCreateRequest): Promise<WebhookCreated> {
    return this.webhooks.create(body, maybeTenant());
  }

  @MessagePattern('worker.webhooks.list')
  list(@Payload(new ZodPipe(WebhookListCommand)) _cmd: unknown): Promise<WebhookList> {
    return this.webhooks.list(maybeTenant());
  }

  @MessagePattern('worker.webhooks.delete')
  delete(@Payload(new ZodPipe(WebhookRefCommand)) cmd: WebhookRefCommand): Promise<WebhookDeleted> {
    return this.webhooks.delete(cmd.id, maybeTenant());
  }

  @MessagePattern('worker.webhooks.deliveries')
  deliveries(
    @Payload(new ZodPipe(WebhookDeliveriesCommand)) cmd: WebhookDeliveriesCommand,
  ): Promise<WebhookDeliveryList> {
    return this.webhooks.deliveries(cmd, maybeTenant());
  }

  @MessagePattern('worker.webhooks.replay')
  async replay(@Payload(new ZodPipe(WebhookReplayCommand)) cmd: WebhookReplayCommand): Promise<WebhookDelivery> {
    const delivery = await this.webhooks.replay(cmd.id, cmd.delivery_id, maybeTenant());
    await this.runner.enqueueDelivery(cmd.delivery_id, true);
    return delivery;
  }
}
