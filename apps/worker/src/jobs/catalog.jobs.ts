import {
  addUnique,
  embedBatch,
  embedJobId,
  EmbeddingError,
  staleBatches,
  type Embedder,
  type EmbedBatchResult,
} from '@rota/catalog';
import type { PrismaClient } from '@rota/db';
import { DelayedError, UnrecoverableError, type Job, type JobsOptions, type Queue } from 'bullmq';
import type { Logger } from 'pino';
import { CatalogRepository } from './catalog.repository';

export interface CatalogJobsOptions {
  /** Rows per `catalog.embed` job, which is also rows per embedding call. */
  batchSize: number;
  /** Deadline of one batch's transaction (embedding call plus writes). */
  batchTimeoutMs: number;
  /** Attempts, backoff and retention of embed jobs. */
  jobOptions: JobsOptions;
  /** Stale rows (and at least half the table) from which a sweep rebuilds the HNSW index instead of inserting into it; 0: never. */
  reindexThreshold: number;
}

/** While the HNSW index is being rebuilt, one job waits for the batches to finish. */
export const REINDEX_JOB_ID = 'catalog-reindex';
const REINDEX_POLL_MS = 1000;

/**
 * The catalog's two jobs. The sweep only reads ids and enqueues; the embed
 * job does the work for one batch (see `embedBatch` for the locking and the
 * compare-and-set). Neither trusts its payload: both reload rows.
 */
export class CatalogJobs {
  constructor(
    private readonly prisma: PrismaClient,
    readonly embedder: Embedder,
    private readonly opts: CatalogJobsOptions,
    private readonly log: Logger,
  ) {}

  /**
   * Enqueues every stale row in batches with deterministic job ids. When most
   * of the table is stale (a first load, a model switch), it drops the HNSW
   * index first and queues a rebuild that waits for the batches.
   */
  async sweep(queue: Queue, job?: Job): Promise<{ stale: number; batches: number; rebuildIndex: boolean }> {
    const repo = new CatalogRepository(this.prisma);
    const { tools, embedded } = await repo.counts(this.embedder.model);
    const staleNow = tools - embedded;
    const indexed = await repo.vectorIndexExists();
    const bulk =
      indexed && this.opts.reindexThreshold > 0 && staleNow >= this.opts.reindexThreshold && staleNow * 2 >= tools;
    if (bulk) {
      this.log.info(
        { stale: staleNow, tools, model: this.embedder.model },
        'most of the catalog needs vectors: dropping the HNSW index until the batches are done',
      );
      await repo.dropVectorIndex();
    }
    let stale = 0;
    let batches = 0;
    for await (const rows of staleBatches(this.prisma, this.embedder.model, this.opts.batchSize)) {
      await addUnique(queue, 'catalog.embed', { ids: rows.map((r) => r.id) }, embedJobId(this.embedder.model, rows), {
        jobOptions: this.opts.jobOptions,
      });
      stale += rows.length;
      batches++;
      await job?.updateProgress({ stale, batches });
    }
    // Also heals an index left dropped by a worker that died mid-rebuild.
    const rebuildIndex = bulk || !indexed;
    if (rebuildIndex)
      await addUnique(queue, 'catalog.reindex', {}, REINDEX_JOB_ID, {
        removeOnComplete: true,
        jobOptions: { ...this.opts.jobOptions, delay: REINDEX_POLL_MS },
      });
    if (stale > 0) this.log.info({ stale, batches, model: this.embedder.model }, 'catalog sweep enqueued stale rows');
    return { stale, batches, rebuildIndex };
  }

  /**
   * Builds the HNSW index once no other catalog job is waiting or running;
   * until then it puts itself back in the delayed set.
   */
  async reindex(queue: Queue, job: Job, token?: string): Promise<{ built: boolean }> {
    const repo = new CatalogRepository(this.prisma);
    if (await repo.vectorIndexExists()) return { built: false };
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    const schedulers = await queue.getJobSchedulersCount();
    // This job is one of the active ones; each scheduler keeps one delayed job.
    const pending =
      (counts.waiting ?? 0) +
      (counts.prioritized ?? 0) +
      (counts.active ?? 0) -
      1 +
      Math.max(0, (counts.delayed ?? 0) - schedulers);
    if (pending > 0 && token) {
      await job.moveToDelayed(Date.now() + REINDEX_POLL_MS, token);
      throw new DelayedError();
    }
    const t = performance.now();
    await CatalogRepository.transaction(this.prisma, (r) => r.createVectorIndex(), { timeoutMs: 3_600_000 });
    this.log.info({ ms: Math.round(performance.now() - t) }, 'rebuilt the HNSW index of the catalog');
    return { built: true };
  }

  async embed(ids: string[], job?: Job): Promise<EmbedBatchResult> {
    try {
      const result = await embedBatch(this.prisma, this.embedder, { ids }, { timeoutMs: this.opts.batchTimeoutMs });
      await job?.updateProgress({ ...result, total: ids.length });
      if (result.embedded > 0) this.log.debug({ ...result, model: this.embedder.model }, 'embedded catalog batch');
      return result;
    } catch (err) {
      // A refused key or a malformed request will not get better by waiting:
      // fail the job now; its rows stay stale for the next sweep.
      if (err instanceof EmbeddingError && !err.retryable) throw new UnrecoverableError(err.message);
      throw err;
    }
  }
}
