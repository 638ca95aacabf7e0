import { counter, gauge, histogram } from '@rota/service-kit';
import type { Job, Queue, Worker } from 'bullmq';

/** States whose counts are published per queue. */
const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const;
/** A scrape never waits longer than this for Redis. */
const COUNT_TIMEOUT_MS = 1000;

const queues = new Set<Queue>();

const jobs = counter({
  name: 'rota_jobs_total',
  help: 'Jobs that finished on this worker, by queue, job name and outcome (completed, or failed: a failed attempt, retried while attempts remain).',
  labelNames: ['queue', 'name', 'outcome'],
});
const jobSeconds = histogram({
  name: 'rota_job_duration_seconds',
  help: 'Time a job ran on this worker, by queue, job name and outcome.',
  labelNames: ['queue', 'name', 'outcome'],
  buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
});
gauge({
  name: 'rota_queue_jobs',
  help: 'Jobs in each BullMQ queue by state, read from Redis at scrape time (shared by every worker replica).',
  labelNames: ['queue', 'state'],
  async collect() {
    this.reset();
    for (const q of queues) {
      let timer: NodeJS.Timeout | undefined;
      const counts = await Promise.race([
        q.getJobCounts(...STATES).catch(() => undefined),
        new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), COUNT_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
      if (!counts) continue;
      for (const state of STATES) this.set({ queue: q.name, state }, counts[state] ?? 0);
    }
  },
});

function observe(queue: string, outcome: 'completed' | 'failed', job: Job | undefined) {
  if (!job) return;
  jobs.inc({ queue, name: job.name, outcome });
  if (job.processedOn && job.finishedOn)
    jobSeconds.observe({ queue, name: job.name, outcome }, (job.finishedOn - job.processedOn) / 1000);
}

/** Publishes a queue's depths and its worker's job outcomes; returns what stops it. */
export function watchQueue(queue: Queue, worker: Worker): () => void {
  queues.add(queue);
  worker.on('completed', (job) => observe(queue.name, 'completed', job));
  worker.on('failed', (job) => observe(queue.name, 'failed', job));
  return () => queues.delete(queue);
}
