/**
 * Worker-thread side of {@link LocalEmbedderPool}: embeds the texts it is
 * sent and hands back one flat Float32Array (transferred, not copied).
 */
import { parentPort } from 'node:worker_threads';
import { EMBEDDING_DIMENSIONS, toVectorParam } from './embedder';
import { LocalEmbedder } from './local-embedder';

const embedder = new LocalEmbedder();
parentPort?.on('message', (msg: { id: number; texts: string[]; params?: boolean }) => {
  try {
    if (msg.params) {
      // The SQL text of each vector, built here so the calling thread does not have to.
      parentPort!.postMessage({ id: msg.id, params: msg.texts.map((t) => toVectorParam(embedder.embedOne(t))) });
      return;
    }
    const out = new Float32Array(msg.texts.length * EMBEDDING_DIMENSIONS);
    msg.texts.forEach((t, i) => out.set(embedder.embedOne(t), i * EMBEDDING_DIMENSIONS));
    parentPort!.postMessage({ id: msg.id, buffer: out.buffer }, [out.buffer]);
  } catch (err) {
    parentPort!.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
