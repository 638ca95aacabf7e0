import { Controller, Inject, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { createPrisma, type PrismaClient } from '@rota/db';
import { pingAnswer } from '@rota/service-kit';
import type { WorkerConfig } from './config';
import { createJobRunner } from './jobs/create-runner';
import { JobRunner } from './jobs/runner';

const CONFIG = Symbol('WORKER_CONFIG');
const PRISMA = Symbol('PRISMA');

@Controller()
class WorkerController implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly runner: JobRunner,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
  ) {}

  @MessagePattern('worker.ping')
  ping() {
    return pingAnswer('worker');
  }

  async onModuleInit() {
    await this.runner.start();
  }

  /** SIGTERM: finish running jobs first, then release the database. */
  async onApplicationShutdown() {
    await this.runner.close();
    await this.prisma.$disconnect();
  }
}

@Module({})
export class WorkerModule {
  static forConfig(config: WorkerConfig) {
    return {
      module: WorkerModule,
      controllers: [WorkerController],
      providers: [
        { provide: CONFIG, useValue: config },
        { provide: PRISMA, useFactory: () => createPrisma(config.DATABASE_URL) },
        {
          provide: JobRunner,
          inject: [PRISMA],
          useFactory: (prisma: PrismaClient) => createJobRunner(config, prisma),
        },
      ],
    };
  }
}
