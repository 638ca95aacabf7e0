import { Controller, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { createPrisma, type PrismaClient } from '@rota/db';
import { InfraModule, pingAnswer, PRISMA } from '@rota/service-kit';
import type { WorkerConfig } from './config';
import { createJobRunner } from './jobs/create-runner';
import { JobRunner } from './jobs/runner';

@Controller()
class WorkerController implements OnModuleInit, OnApplicationShutdown {
  constructor(private readonly runner: JobRunner) {}

  @MessagePattern('worker.ping')
  ping() {
    return pingAnswer('worker');
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
      imports: [InfraModule.forRoot({ app: 'worker', config, prisma: createPrisma })],
      controllers: [WorkerController],
      providers: [
        // The runner is shared with the tests, which build it from a config and a client.
        { provide: JobRunner, inject: [PRISMA], useFactory: (prisma: PrismaClient) => createJobRunner(config, prisma) },
      ],
    };
  }
}
