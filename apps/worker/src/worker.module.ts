import { Controller, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import type { WorkerSchedulers } from '@rota/contracts';
import { currentEmbeddingModel } from '@rota/catalog';
import { createPrisma, type PrismaClient } from '@rota/db';
import { InfraModule, LOGGER, pingAnswer, PRISMA, RpcClient, type Logger } from '@rota/service-kit';
import type { WorkerConfig } from './config';
import { FxController } from './fx/fx.controller';
import { FxService } from './fx/fx.service';
import { createFxService, createHealthService } from './health/create';
import { HealthController } from './health/health.controller';
import { HealthService } from './health/health.service';
import { createJobRunner } from './jobs/create-runner';
import { JobRunner } from './jobs/runner';
import { QueuesController } from './jobs/queues.controller';
import { createWebhooksService } from './webhooks/create';
import { WebhooksController } from './webhooks/webhooks.controller';
import { WebhooksService } from './webhooks/webhooks.service';

@Controller()
class WorkerController implements OnModuleInit, OnApplicationShutdown {
  constructor(private readonly runner: JobRunner) {}

  @MessagePattern('worker.ping')
  ping() {
    return pingAnswer('worker');
  }

  /** Readiness and the catalog status ask this: a scheduler Redis lost means a sweep that no longer runs. */
  @MessagePattern('worker.schedulers')
  async schedulers(): Promise<WorkerSchedulers> {
    return { missing: await this.runner.missingSchedulers() };
  }

  async onModuleInit() {
    await this.runner.start();
  }

  /** SIGTERM: running jobs finish here; the database closes after, with the rest of the infrastructure. */
  async onApplicationShutdown() {
    await this.runner.close();
  }
}

@Module({})
export class WorkerModule {
  static forConfig(config: WorkerConfig): DynamicModule {
    return {
      module: WorkerModule,
      // The transport client asks the session service for the credential-store canary.
      imports: [InfraModule.forRoot({ app: 'worker', config, prisma: createPrisma, rpc: true })],
      controllers: [WorkerController, HealthController, FxController, WebhooksController, QueuesController],
      providers: [
        {
          provide: HealthService,
          inject: [PRISMA, RpcClient, LOGGER],
          useFactory: (prisma: PrismaClient, rpc: RpcClient, log: Logger) =>
            createHealthService(config, prisma, currentEmbeddingModel(config), log, (timeoutMs) =>
              rpc.send('session.credentials.check', {}, { timeoutMs }),
            ),
        },
        {
          provide: FxService,
          inject: [PRISMA, LOGGER],
          useFactory: (prisma: PrismaClient, log: Logger) => createFxService(config, prisma, log),
        },
        {
          provide: WebhooksService,
          inject: [PRISMA, LOGGER],
          useFactory: (prisma: PrismaClient, log: Logger) => createWebhooksService(config, prisma, log),
        },
        // The runner is shared with the tests, which build it from a config and a client.
        {
          provide: JobRunner,
          inject: [PRISMA, HealthService, FxService, WebhooksService, RpcClient],
          useFactory: (
            prisma: PrismaClient,
            health: HealthService,
            fx: FxService,
            webhooks: WebhooksService,
            rpc: RpcClient,
          ) => createJobRunner(config, prisma, { health, fx, webhooks, rpc }),
        },
      ],
    };
  }
}
