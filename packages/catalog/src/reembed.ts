import { createHash } from 'node:crypto';
import type { PrismaClient } from '@rota/db';
import { toVectorParam, type Embedder } from './embedder';
import { CatalogRepository } from './repository';
import { descriptionHash, toolEmbeddingText } from './text';

/** A batch of stale rows to embed in one call; what a `catalog.embed` job carries. */
export interface EmbedBatch {
  ids: string[];
}

/** What one batch did. */
export interface EmbedBatchResult {
  /** Rows this job held and embedded. */
  embedded: number;
  /** Rows written (fewer than `embedded` when a text changed in between). */
  written: number;
  /** Rows already fresh, or held by another job or an import. */
  skipped: number;
}

/**
 * Deterministic BullMQ job id for a batch: the model, the rows and the hashes
 * they had when the sweep saw them. Two sweeps that see the same stale rows
 * enqueue the same job once; an edited row makes a new id. No `:` (BullMQ
 * refuses it in custom ids).
 */
export function embedJobId(model: string, rows: Array<{ id: string; hash: string }>): string {
  const h = createHash('sha256').update(model);
  for (const r of rows) h.update(`\n${r.id} ${r.hash}`);
  return `embed-${h.digest('hex').slice(0, 32)}`;
}

/**
 * Embeds one batch: locks the rows that still lack a vector of the
 * embedder's model (skipping rows another transaction holds), embeds their
 * texts in one call, and writes each vector with a compare-and-set on the
 * hash it read, all in one transaction. If the call fails nothing is written
 * and the rows stay stale; a killed process releases its locks with its
 * connection.
 */
export async function embedBatch(
  prisma: PrismaClient,
  embedder: Embedder,
  batch: EmbedBatch,
  opts: { timeoutMs?: number } = {},
): Promise<EmbedBatchResult> {
  return CatalogRepository.transaction(
    prisma,
    async (repo) => {
      const rows = await repo.lockStale(batch.ids, embedder.model);
      if (rows.length === 0) return { embedded: 0, written: 0, skipped: batch.ids.length };
      const texts = rows.map((r) =>
        toolEmbeddingText({ providerName: r.providerName, toolName: r.toolName, description: r.description }),
      );
      const vectors = await embedder.embed(texts);
      if (vectors.length !== rows.length)
        throw new Error(`embedder returned ${vectors.length} vectors for ${rows.length} texts`);
      const written = await repo.writeEmbeddings(
        embedder.model,
        rows.map((r, i) => ({
          id: r.id,
          seenHash: r.descriptionHash,
          newHash: descriptionHash(embedder.model, texts[i]!),
          vector: toVectorParam(vectors[i]!),
        })),
      );
      return { embedded: rows.length, written, skipped: batch.ids.length - rows.length };
    },
    // Long enough for the embedding call's own deadline plus the writes, and
    // for a model computing on this machine, for every text of the batch on a
    // busy core (rows stay locked meanwhile; other jobs skip them).
    { timeoutMs: (opts.timeoutMs ?? 60_000) + (embedder.perTextBudgetMs ?? 0) * batch.ids.length },
  );
}

/**
 * Walks every row without a vector of `model` in id order and hands out
 * batches of `batchSize`. The sweep job enqueues them; the CLI's inline mode
 * and the benchmark embed them directly.
 */
export async function* staleBatches(
  prisma: PrismaClient,
  model: string,
  batchSize: number,
): AsyncGenerator<Array<{ id: string; hash: string }>> {
  const repo = new CatalogRepository(prisma);
  let after: string | undefined;
  for (;;) {
    const page = await repo.staleIds(model, batchSize, after);
    if (page.length === 0) return;
    yield page;
    if (page.length < batchSize) return;
    after = page[page.length - 1]!.id;
  }
}
