import { z } from 'zod';
import type { Embedder } from './embedder';
import { LOCAL_EMBEDDING_MODEL, LocalEmbedder } from './local-embedder';
import { LOCAL_MODELS, LocalEmbedderPool, defaultEmbedThreads, type LocalModelKind } from './local-embedder-pool';
import { HYBRID_EMBEDDING_MODEL } from './hybrid-embedder';
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
  /**
   * Which offline model `local` means: `hybrid` (the sentence encoder and the
   * lexicon's feature hashing in one vector, on worker threads), `neural`
   * (Universal Sentence Encoder lite alone, on worker threads) or `hash`
   * (feature hashing over the lexicon alone).
   */
  ROTA_LOCAL_EMBEDDER: z
    .enum(['hybrid', 'neural', 'hash'])
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Worker threads the models with the sentence encoder (`hybrid`, `neural`) run on; unset means one per core, at most eight. */
  ROTA_EMBED_THREADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** How long a query waiting for an idle encoder thread is held so that others join its inference, in milliseconds (0: none). */
  ROTA_EMBED_BATCH_WINDOW_MS: z.coerce.number().int().min(0).max(100).default(2),
  /** The most queries one inference of the encoder takes. */
  ROTA_EMBED_BATCH_MAX: z.coerce.number().int().min(1).max(256).default(16),
});
export type EmbedderEnv = z.infer<typeof EmbedderEnv>;

type EnvLike = Partial<Record<keyof z.input<typeof EmbedderEnv>, string | number | undefined>> | NodeJS.ProcessEnv;

function read(env: EnvLike): EmbedderEnv {
  const parsed = EmbedderEnv.safeParse(env);
  if (!parsed.success)
    throw new Error(
      `Invalid embedder configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
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
  return LOCAL_MODELS[localModelKind(env)];
}

/**
 * The offline model when `ROTA_LOCAL_EMBEDDER` is unset: the sentence encoder
 * and the lexicon's feature hashing in one vector, the best of the three
 * local models by `pnpm eval -- --models hash,neural,hybrid` (mean top-1 over
 * the demo and MetaTool sets' English, Spanish and Portuguese requests). It
 * does not win everywhere: the encoder alone is ahead on MetaTool's English
 * queries, which are not about commerce, and it leads on the demo set and in
 * Spanish (docs/discover.md has the figures).
 */
const DEFAULT_LOCAL_MODEL: LocalModelKind = 'hybrid';

/** The offline model `local` selects (`ROTA_LOCAL_EMBEDDER`, else {@link DEFAULT_LOCAL_MODEL}). */
export function localModelKind(env: EnvLike = process.env): LocalModelKind {
  return read(env).ROTA_LOCAL_EMBEDDER ?? DEFAULT_LOCAL_MODEL;
}

/** The embedder this environment selects (see {@link EmbedderEnv}). */
export function createEmbedder(env: EnvLike = process.env, opts: { maxInputsPerRequest?: number } = {}): Embedder {
  const e = read(env);
  if (embedderKind(env) === 'local') {
    if (localModelKind(env) === 'hash') return new LocalEmbedder();
    return new LocalEmbedderPool({
      kind: localModelKind(env),
      threads: e.ROTA_EMBED_THREADS ?? defaultEmbedThreads(),
      batchWindowMs: e.ROTA_EMBED_BATCH_WINDOW_MS,
      batchMax: e.ROTA_EMBED_BATCH_MAX,
    });
  }
  return new OpenAIEmbedder({
    apiKey: e.OPENAI_API_KEY!,
    baseURL: e.OPENAI_BASE_URL || undefined,
    model: e.ROTA_OPENAI_EMBEDDING_MODEL,
    timeoutMs: e.ROTA_EMBED_TIMEOUT_MS,
    maxInputsPerRequest: opts.maxInputsPerRequest,
  });
}

export { HYBRID_EMBEDDING_MODEL, LOCAL_EMBEDDING_MODEL, NEURAL_EMBEDDING_MODEL, OPENAI_EMBEDDING_MODEL };
