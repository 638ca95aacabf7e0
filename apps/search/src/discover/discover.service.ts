import type {
  DiscoverChannel,
  DiscoverMetaToolName,
  DiscoverRequest,
  DiscoverResult,
  DiscoverSkipReason,
} from '@rota/contracts';
import { EmbeddingError, EmbeddingNotStartedError, type Embedder } from '@rota/catalog/embedder';
import { currentTenant } from '@rota/service-kit';
import {
  BrokenCircuitError,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import { nextSteps, toMatch, type AdviceContext } from './advice';
import type { DiscoverConfig } from './config';
import type { DiscoverCatalog } from './discover.repository';
import { parseDiscoverInput } from './input';
import { vectorSkipped } from './embed-metrics';
import { renderQuery } from './query-language';
import { metaToolGist, metaToolHints } from './meta-tool-hints';
import {
  namedProviders,
  rankCandidates,
  requestAct,
  trigramScore,
  type Candidate,
  type RankedTool,
  type RankingSettings,
} from './ranking';

export interface DiscoverLogger {
  warn(message: string, meta?: Record<string, unknown>): void;
  info?(message: string, meta?: Record<string, unknown>): void;
}

export function rankingSettings(c: DiscoverConfig): RankingSettings {
  return {
    bonusVector: c.ROTA_DISCOVER_BONUS_VECTOR,
    bonusLexical: c.ROTA_DISCOVER_BONUS_LEXICAL,
    testPenalty: c.ROTA_DISCOVER_TEST_PENALTY,
    trigramThreshold: c.ROTA_DISCOVER_TRIGRAM_THRESHOLD,
    providerWeight: c.ROTA_DISCOVER_PROVIDER_WEIGHT,
    weightVector: c.ROTA_DISCOVER_WEIGHT_VECTOR,
    weightLexical: c.ROTA_DISCOVER_WEIGHT_LEXICAL,
    maxDistance: c.ROTA_DISCOVER_MAX_DISTANCE,
    fusion: c.ROTA_DISCOVER_FUSION,
    rrfK: c.ROTA_DISCOVER_RRF_K,
    bonusNamed: c.ROTA_DISCOVER_BONUS_NAMED,
    bonusAct: c.ROTA_DISCOVER_BONUS_ACT,
  };
}

/** The query vector, or why there is none. */
type Embedding = { vector: Float32Array; skipped?: undefined } | { vector: null; skipped: DiscoverSkipReason };

/**
 * How many deadlines an inference must have run for the queries behind it
 * to count it as stuck: a slow inference on a starved machine is not a broken
 * encoder, one that has run for twice a query's whole deadline is.
 */
const STUCK_DEADLINES = 2;

/** The query's encoder ran past the deadline: a real failure, which the breaker counts. */
class EmbeddingTimeoutError extends EmbeddingError {
  constructor(ms: number) {
    super(`query embedding took longer than ${ms} ms`, true);
  }
}

/**
 * `codespar_discover`: validates the input, reads the keyword table, brings
 * the use case into the catalog's language, embeds it, asks the catalog for
 * both channels' candidates in one query, fuses the scores and writes the
 * answer.
 */
export class DiscoverService {
  private readonly settings: RankingSettings;
  /** Query embeddings kept for repeated use cases (an agent often asks the same thing twice), up to `ROTA_DISCOVER_EMBED_CACHE_SIZE`. */
  private readonly cache = new Map<string, Float32Array>();
  /**
   * Each query embedding runs under a deadline, and behind a circuit breaker:
   * after `ROTA_DISCOVER_EMBED_BREAKER_FAILURES` failures in a row, discover
   * stops calling the embedder for `ROTA_DISCOVER_EMBED_BREAKER_OPEN_MS` and
   * answers from the lexical channel at once, instead of waiting out a dead API
   * on every call; then one call tries it again. A query that was still
   * waiting for a busy local encoder when its deadline passed is taken out of
   * the encoder's queue and does not count: the encoder is loaded, not broken,
   * and opening the breaker would only turn a busy minute into a lexical-only one.
   */
  private readonly breaker: CircuitBreakerPolicy;
  /**
   * Until when the open breaker refuses the embedder: calls before then do
   * not ask for a vector at all, so the catalog runs its one lexical statement
   * (not the lexical search meant to be followed by the vector pass). The
   * first call after it goes through the breaker, which half-opens.
   */
  private brokenUntil = 0;

  constructor(
    private readonly catalog: DiscoverCatalog,
    /** Null when no embedder is configured: discover then ranks by the lexical channel alone. */
    private readonly embedder: Embedder | null,
    private readonly config: DiscoverConfig,
    private readonly log: DiscoverLogger = { warn: () => undefined },
  ) {
    this.settings = rankingSettings(config);
    const breaker = circuitBreaker(
      handleWhen((err) => !(err instanceof EmbeddingNotStartedError)),
      {
        halfOpenAfter: config.ROTA_DISCOVER_EMBED_BREAKER_OPEN_MS,
        breaker: new ConsecutiveBreaker(config.ROTA_DISCOVER_EMBED_BREAKER_FAILURES),
      },
    );
    breaker.onBreak(() => {
      this.brokenUntil = Date.now() + config.ROTA_DISCOVER_EMBED_BREAKER_OPEN_MS;
      this.log.warn('discover: query embeddings keep failing; ranking by the lexical channel alone for a while', {
        model: embedder?.model,
        pause_ms: config.ROTA_DISCOVER_EMBED_BREAKER_OPEN_MS,
      });
    });
    breaker.onReset(() => this.log.info?.('discover: query embeddings answer again', { model: embedder?.model }));
    this.breaker = breaker;
  }

  /** Ranks for the request's tenant: its project's own tools and connections, in its environment. */
  async discover(req: DiscoverRequest): Promise<DiscoverResult> {
    const tenant = currentTenant();
    const q = parseDiscoverInput(req.input);
    const rendering = renderQuery(q.useCase);
    const channels = this.config.ROTA_DISCOVER_CHANNELS;
    // A model that reads only English gets the request brought into English;
    // the others read it as written.
    const lexical = channels.has('lexical');
    let embedding: Promise<Embedding> | null = null;
    let skipped: DiscoverSkipReason | undefined;
    if (!channels.has('vector')) skipped = 'disabled';
    else if (!this.embedder) skipped = 'no_embedder';
    else if (Date.now() < this.brokenUntil) skipped = 'breaker_open';
    else embedding = this.embed(this.embedder.englishOnly ? rendering.englishText : q.useCase);
    const query = {
      projectId: tenant.project_id,
      environment: tenant.environment,
      text: q.useCase,
      category: q.category,
      country: q.country,
      candidates: Math.max(this.config.ROTA_DISCOVER_CANDIDATES, q.limit + 1),
      lexical: lexical
        ? {
            text: rendering.lexicalText,
            expansion: rendering.expansion,
            expansionWeight: this.config.ROTA_DISCOVER_EXPANSION_WEIGHT,
            k1: this.config.ROTA_DISCOVER_BM25_K1,
            b: this.config.ROTA_DISCOVER_BM25_B,
            fieldWeights: this.config.ROTA_DISCOVER_BM25_FIELDS,
            scanCap: this.config.ROTA_DISCOVER_LEXICAL_SCAN_CAP,
            scoreCap: this.config.ROTA_DISCOVER_LEXICAL_SCORE_CAP,
          }
        : null,
    };
    // The lexical channel need not wait for the query's embedding (tens of
    // milliseconds with the local encoder) when the catalog can start it alone.
    const model = this.embedder?.model ?? null;
    let pending: Promise<Candidate[]>;
    if (embedding && lexical && this.catalog.candidatesWhileEmbedding) {
      pending = this.catalog.candidatesWhileEmbedding(
        query,
        embedding.then((e) => (e.vector && model ? { vector: e.vector, model } : null)),
      );
    } else {
      pending = (embedding ?? Promise.resolve(null)).then((e) =>
        this.catalog.candidates({ ...query, vector: e?.vector ?? null, model: e?.vector ? model : null }),
      );
    }
    // Work that needs neither the vector nor the rows runs while they are on
    // their way: one turn of the event loop first, so the embedder's batch
    // (sent from a setImmediate) and the statement leave before it. A failure
    // of the catalog in that turn is the call's error (`await pending` below),
    // not an unhandled rejection of the process.
    pending.catch(() => undefined);
    await new Promise<void>((resolve) => setImmediate(resolve));
    const hints = metaToolHints(q.useCase);
    const act = requestAct(rendering.englishText);
    const rows = await pending;
    const embedded = embedding ? await embedding : null;
    const vector = embedded?.vector ?? null;
    skipped ??= embedded?.skipped;
    if (skipped) vectorSkipped().inc({ reason: skipped });
    const ranked = rankCandidates(rows, tenant.environment, this.settings, namedProviders(q.useCase, rows), act);
    const ctx: AdviceContext = { environment: tenant.environment, country: q.country };
    const metaTools = hints.map((h) => h.tool);

    let recommended: RankedTool | null = null;
    let related: RankedTool[];
    let reason: DiscoverResult['recommended_reason'];
    if (metaTools.length > 0) {
      // A native meta-tool covers the job: the catalog is still shown, but only as related rails.
      related = ranked.slice(0, q.limit);
      reason = 'native_meta_tool';
    } else if (ranked.length === 0) {
      related = [];
      reason = 'no_match';
    } else if (ranked[0]!.blocked) {
      // The penalty sorts blocked rails last, so a blocked top means every match is blocked.
      related = ranked.slice(0, q.limit);
      reason = 'blocked_in_test';
    } else {
      recommended = ranked[0]!;
      related = ranked.slice(1, q.limit + 1);
    }
    if (this.catalog.similarities) {
      // The similarities each match shows, measured for the shown rows only.
      const shownIds = (recommended ? [recommended, ...related] : related).map((r) => r.candidate.id);
      const sims = await this.catalog.similarities(q.useCase, shownIds);
      const fill = (r: RankedTool): RankedTool => {
        const s = sims.get(r.candidate.id);
        if (!s) return r;
        const candidate = { ...r.candidate, ...s };
        return { ...r, candidate, trigramSimilarity: trigramScore(candidate, this.settings) };
      };
      recommended = recommended ? fill(recommended) : null;
      related = related.map(fill);
    }
    const shown = recommended ? [recommended, ...related] : related;
    const strategy =
      shown.length === 0 ? 'empty' : shown.some((r) => r.cosineDistance !== null) ? 'embedding' : 'trigram';
    const ran: DiscoverChannel[] = [];
    if (lexical) ran.push('lexical');
    if (vector) ran.push('vector');

    const result: DiscoverResult = {
      use_case: q.useCase,
      search_strategy: strategy,
      channels: ran,
      channels_skipped: skipped ? [{ channel: 'vector', reason: skipped }] : [],
      recommended: recommended ? toMatch(recommended, ctx) : null,
      related: related.map((r) => toMatch(r, ctx)),
      next_steps: nextSteps({
        useCase: q.useCase,
        environment: tenant.environment,
        metaTools: metaTools.map((tool: DiscoverMetaToolName) => ({ tool, gist: metaToolGist(tool) })),
        recommended,
        related,
        blockedInTest: reason === 'blocked_in_test',
        filtered: q.category !== null || q.country !== null,
      }),
      meta_tools: metaTools,
    };
    if (reason) result.recommended_reason = reason;
    return result;
  }

  /**
   * The query vector, or why there is none (failure, deadline, open breaker):
   * the lexical channel still answers.
   */
  private async embed(text: string): Promise<Embedding> {
    const embedder = this.embedder!;
    const key = `${embedder.model}\0${text}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return { vector: hit };
    }
    try {
      const [v] = await this.breaker.execute(() => this.embedOnce(embedder, text));
      if (!v) return { vector: null, skipped: 'failed' };
      if (this.config.ROTA_DISCOVER_EMBED_CACHE_SIZE > 0) {
        this.cache.set(key, v);
        if (this.cache.size > this.config.ROTA_DISCOVER_EMBED_CACHE_SIZE)
          this.cache.delete(this.cache.keys().next().value!);
      }
      return { vector: v };
    } catch (err) {
      // While the breaker is open each call skips the embedder; the break itself was logged once.
      if (err instanceof BrokenCircuitError) return { vector: null, skipped: 'breaker_open' };
      const reason: DiscoverSkipReason =
        err instanceof EmbeddingNotStartedError ? 'busy' : err instanceof EmbeddingTimeoutError ? 'timeout' : 'failed';
      this.log.warn('discover: query embedding failed; ranking by the lexical channel alone', {
        error: (err as Error).message,
        reason,
        model: embedder.model,
      });
      return { vector: null, skipped: reason };
    }
  }

  /**
   * One embedding under the deadline. When the deadline passes the query is
   * given up, and the breaker counts it only when the embedder is at fault.
   * For an embedder that queues work for a local model (it honours the
   * signal: the pool), that means stuck: some inference has been running for
   * {@link STUCK_DEADLINES} whole deadlines. A query that waited behind other
   * queries, or whose inference is merely slow because the machine is busy,
   * fails with {@link EmbeddingNotStartedError} (`busy`) and is not counted,
   * so load makes some answers lexical but never all of them for the
   * breaker's pause. Any other embedder counts every missed deadline.
   */
  private embedOnce(embedder: Embedder, text: string): Promise<Float32Array[]> {
    const ms = this.config.ROTA_DISCOVER_EMBED_TIMEOUT_MS;
    const ac = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const atFault = !embedder.honoursSignal || (embedder.runningForMs?.() ?? 0) >= STUCK_DEADLINES * ms;
        const late = atFault
          ? new EmbeddingTimeoutError(ms)
          : new EmbeddingNotStartedError('gave up waiting for a busy encoder');
        // The deadline's verdict first: the embedder rejects its own way when aborted.
        reject(late);
        ac.abort(late);
      }, ms);
    });
    const work = embedder.embed([text], { signal: ac.signal });
    // Whichever loses the race is settled later; its outcome is not wanted.
    work.catch(() => undefined);
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  }
}
