import type { Embedder } from '@rota/catalog/embedder';
import type { LocalEmbedderPool } from '@rota/catalog/local-embedder-pool';
import { counter, gauge } from '@rota/service-kit';

/** Queries discover ranked without the vector channel, by why (see `DiscoverSkipReason`). */
export const vectorSkipped = () =>
  counter({
    name: 'rota_discover_vector_skipped_total',
    help: 'codespar_discover calls ranked without the vector channel, by reason (disabled, no_embedder, breaker_open, busy, timeout, failed).',
    labelNames: ['reason'],
  });

function isPool(e: Embedder | null): e is LocalEmbedderPool {
  return !!e && typeof (e as Partial<LocalEmbedderPool>).stats === 'function';
}

/**
 * The local encoder's queue, read at scrape time: how many queries wait for
 * a thread, how many threads are busy, and the inferences run and queries
 * abandoned so far. Registered once per process (a gauge's `collect` is the
 * first registration's).
 */
export function registerEmbedderMetrics(embedder: Embedder | null): void {
  if (!isPool(embedder)) return;
  const model = embedder.model;
  gauge({
    name: 'rota_embed_queue_depth',
    help: 'Texts waiting for a thread of the local encoder, queries and bulk chunks apart, read at scrape time.',
    labelNames: ['model', 'queue'],
    collect() {
      const s = embedder.stats();
      this.set({ model, queue: 'query' }, s.queued);
      this.set({ model, queue: 'bulk' }, s.bulkQueued);
    },
  });
  gauge({
    name: 'rota_embed_busy_threads',
    help: 'Threads of the local encoder running an inference, read at scrape time.',
    labelNames: ['model'],
    collect() {
      this.set({ model }, embedder.stats().busyThreads);
    },
  });
  gauge({
    name: 'rota_embed_query_batches',
    help: 'Inferences of queries the local encoder has run since the process started, and the queries they held (the ratio is the mean batch).',
    labelNames: ['model', 'count'],
    collect() {
      const s = embedder.stats();
      this.set({ model, count: 'batches' }, s.batches);
      this.set({ model, count: 'queries' }, s.batchedTexts);
      this.set({ model, count: 'abandoned' }, s.abandoned);
    },
  });
}
