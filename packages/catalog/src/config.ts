import { availableParallelism } from 'node:os';
import { z } from 'zod';
import type { Embedder } from './embedder';
import { LOCAL_EMBEDDING_MODEL, LocalEmbedder } from './local-embedder';
import { LocalEmbedderPool } from './local-embedder-pool';
import { NEURAL_EMBEDDING_MODEL } from './neural-embedder';
import { OPENAI_EMBEDDING_MODEL, OpenAIEmbedder } from './openai-embedder';

/**
 * The environment variables that choose the catalog's embedder. Apps merge
 * this into their own config schema (`BaseConfig.extend(EmbedderEnv.shape)`).
 */
export const EmbedderEnv = z.object({
  /** `local` or `openai`; unset means `openai` when OPENAI_API_KEY is set, else `local`. */
  ROTA_EMBEDDER: z
    .enum(['local', 'openai'])
    .optional()
    .or(z.literal('').transform(() => undefined)),
  OPENAI_API_KEY: z.string().optional(),
  /** Any OpenAI-compatible server. */
  OPENAI_BASE_URL: z.string().url().optional().or(z.literal('')),
  /** Model name sent to the OpenAI-compatible server. */
  ROTA_OPENAI_EMBEDDING_MODEL: z.string().min(1).default(OPENAI_EMBEDDING_MODEL),
  /** Abort of one embeddings request. */
  ROTA_EMBED_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** Which offline model `local` means: `neural` (Universal Sentence Encoder lite, on worker threads) or `hash` (feature hashing over the lexicon). */
  ROTA_LOCAL_EMBEDDER: z
    .enum(['neural', 'hash'])
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Worker threads the neural model runs on; unset means one per core, at most two. */
  ROTA_EMBED_THREADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .optional()
    .or(z.literal('').transform(() => undefined)),
});
export type EmbedderEnv = z.infer<typeof EmbedderEnv>;

type EnvLike = Partial<Record<keyof z.input<typeof EmbedderEnv>, string | number | undefined>> | NodeJS.ProcessEnv;

function read(env: EnvLike): EmbedderEnv {
  const parsed = EmbedderEnv.safeParse(env);
  if (!parsed.success) throw new Error(`Invalid embedder configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** Which embedder the environment selects. */
export function embedderKind(env: EnvLike = process.env): 'local' | 'openai' {
  const e = read(env);
  if (e.ROTA_EMBEDDER) {
    if (e.ROTA_EMBEDDER === 'openai' && !e.OPENAI_API_KEY) throw new Error('ROTA_EMBEDDER=openai needs OPENAI_API_KEY');
    return e.ROTA_EMBEDDER;
  }
  return e.OPENAI_API_KEY ? 'openai' : 'local';
}

/**
 * The model name vectors are stored under with this environment. Discover
 * compares a query only with rows of this model.
 */
export function currentEmbeddingModel(env: EnvLike = process.env): string {
  if (embedderKind(env) === 'openai') return read(env).ROTA_OPENAI_EMBEDDING_MODEL;
  return localModelKind(env) === 'neural' ? NEURAL_EMBEDDING_MODEL : LOCAL_EMBEDDING_MODEL;
}

/**
 * The offline model `local` selects: the hashing model unless
 * `ROTA_LOCAL_EMBEDDER=neural`. The sentence encoder wins on English
 * catalogs (MetaTool) but is English-only and loses on Portuguese and
 * Spanish requests (docs/discover.md has the figures), so it is opt-in.
 */
export function localModelKind(env: EnvLike = process.env): 'neural' | 'hash' {
  return read(env).ROTA_LOCAL_EMBEDDER ?? 'hash';
}

/** The embedder this environment selects (see {@link EmbedderEnv}). */
export function createEmbedder(env: EnvLike = process.env, opts: { maxInputsPerRequest?: number } = {}): Embedder {
  const e = read(env);
  if (embedderKind(env) === 'local') {
    if (localModelKind(env) === 'hash') return new LocalEmbedder();
    return new LocalEmbedderPool({ kind: 'neural', threads: e.ROTA_EMBED_THREADS ?? Math.min(2, availableParallelism()) });
  }
  return new OpenAIEmbedder({
    apiKey: e.OPENAI_API_KEY!,
    baseURL: e.OPENAI_BASE_URL || undefined,
    model: e.ROTA_OPENAI_EMBEDDING_MODEL,
    timeoutMs: e.ROTA_EMBED_TIMEOUT_MS,
    maxInputsPerRequest: opts.maxInputsPerRequest,
  });
}

export { LOCAL_EMBEDDING_MODEL, NEURAL_EMBEDDING_MODEL, OPENAI_EMBEDDING_MODEL };
