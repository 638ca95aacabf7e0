import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { QueuesCommand, type QueuesView } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { JobRunner } from './runner';

const STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;

/** The queue dashboard's data: counts by state and the latest failed jobs, without payloads. */
@Controller()
export class QueuesController {
  constructor(@Inject(JobRunner) private readonly runner: JobRunner) {}

  @MessagePattern('worker.queues')
  async queues(@Payload(new ZodPipe(QueuesCommand)) _cmd: unknown): Promise<QueuesView> {
    const out: QueuesView['queues'] = [];
    for (const [name, queue] of this.runner.queues) {
      const counts = await queue.getJobCounts(...STATES);
      const failed = await queue.getFailed(0, 9);
      out.push({
        name,
        counts,
        failed: failed.map((j) => ({
          id: String(j.id),
          name: j.name,
          attempts: j.attemptsMade,
          reason: (j.failedReason ?? '').slice(0, 500),
          at: j.finishedOn ? new Date(j.finishedOn).toISOString() : null,
        })),
      });
    }
    return { queues: out };
  }
}
