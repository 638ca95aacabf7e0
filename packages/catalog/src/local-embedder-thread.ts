/**
 * Worker-thread side of {@link LocalEmbedderPool}: runs one local model (the
 * feature-hashing one, the neural one or both, as `workerData.kind` says), embeds
 * the texts it is sent and hands back one flat Float32Array (transferred,
 * not copied) or the SQL text of each vector.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EMBEDDING_DIMENSIONS, toVectorParam, type Embedder } from './embedder';
import { localModel, type LocalModelKind } from './local-embedder-pool';

const embedder: Embedder = localModel((workerData as { kind?: LocalModelKind } | undefined)?.kind ?? 'hash');

// Messages are handled one after another, so a thread never runs two batches at once.
let queue: Promise<void> = Promise.resolve();
parentPort?.on('message', (msg: { id: number; texts: string[]; params?: boolean }) => {
  queue = queue.then(async () => {
    try {
      const vectors = await embedder.embed(msg.texts);
      if (msg.params) {
        // The SQL text of each vector, built here so the calling thread does not have to.
        parentPort!.postMessage({ id: msg.id, params: vectors.map(toVectorParam) });
        return;
      }
      const out = new Float32Array(msg.texts.length * EMBEDDING_DIMENSIONS);
      vectors.forEach((v, i) => out.set(v, i * EMBEDDING_DIMENSIONS));
      parentPort!.postMessage({ id: msg.id, buffer: out.buffer }, [out.buffer]);
    } catch (err) {
      parentPort!.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
    }
  });
});
