import { AppError, DiscoverResult, type Environment } from '@rota/contracts';
import { EmbeddingNotStartedError, type EmbedOptions, type Embedder } from '@rota/catalog/embedder';
import { requestContext } from '@rota/service-kit';
import { DiscoverConfig } from './config';
import type { CandidateQuery, DiscoverCatalog } from './discover.repository';
import { DiscoverService } from './discover.service';
import type { Candidate } from './ranking';

const CONFIG = DiscoverConfig.parse({});

function row(over: Partial<Candidate> = {}): Candidate {
  return {
    id: `${over.serverId ?? 'acme'}/${over.toolName ?? 'x'}`,
    serverId: 'acme',
    toolName: 'create_payment',
    description: 'Create a payment.',
    httpMethod: 'POST',
    endpointTemplate: '/payments',
    projectId: null,
    providerName: 'Acme',
    category: 'payments',
    providerCountry: 'BR',
    providerCountries: ['BR'],
    authType: 'api_key',
    selfServeAuth: true,
    sandboxAvailable: true,
    providerStatus: 'stable',
    cosineDistance: 0.3,
    fromVectorPass: true,
    lexicalScore: 2,
    fromLexicalPass: true,
    nameSimilarity: 0.2,
    descriptionSimilarity: 0.2,
    providerNameSimilarity: 0,
    providerDescriptionSimilarity: 0,
    connectionRowStatus: null,
    ...over,
  };
}

/** The catalog edge, answering from a fixed list and remembering what it was asked. */
class FakeCatalog implements DiscoverCatalog {
  queries: CandidateQuery[] = [];
  constructor(private readonly rows: Candidate[]) {}
  candidates(q: CandidateQuery) {
    this.queries.push(q);
    // Without a query vector nothing has a distance, as in the real query.
    return Promise.resolve(
      q.vector ? this.rows : this.rows.map((r) => ({ ...r, cosineDistance: null, fromVectorPass: false })),
    );
  }
}

/** A promise that knows whether anything has handled it yet. */
class Tracked<T> extends Promise<T> {
  static override get [Symbol.species]() {
    return Promise;
  }
  handled = false;
  override then<A = T, B = never>(
    onFulfilled?: ((v: T) => A | PromiseLike<A>) | null,
    onRejected?: ((e: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.handled = true;
    return super.then(onFulfilled, onRejected);
  }
}

const embedder = (fail = false): Embedder => ({
  model: 'test-model',
  dimensions: 3,
  embed: (texts: string[]) =>
    fail ? Promise.reject(new Error('down')) : Promise.resolve(texts.map(() => Float32Array.from([1, 0, 0]))),
});

/** Runs discover as the transport would: the tenant in the request context, the input in the payload. */
function discoverAs(
  svc: DiscoverService,
  input: Record<string, unknown>,
  environment: Environment = 'live',
): Promise<DiscoverResult> {
  const tenant = { org_id: 'org_1', project_id: 'proj_1', environment };
  return requestContext.run({ requestId: 'test', tenant }, () => svc.discover({ input }));
}

describe('DiscoverService', () => {
  describe('input', () => {
    it.each([{}, { use_case: '' }, { use_case: '   ', query: '' }, { query: '\n' }, { limit: 3 }])(
      'refuses %j with invalid_args before reading the catalog',
      async (input) => {
        const catalog = new FakeCatalog([row()]);
        const err = await discoverAs(new DiscoverService(catalog, embedder(), CONFIG), input).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe('invalid_args');
        expect((err as AppError).status).toBe(400);
        expect(catalog.queries).toHaveLength(0);
      },
    );

    it.each([{ limit: 0 }, { limit: 21 }, { limit: 2.5 }, { country: 'Brazil' }, { use_case: 42 }])(
      'refuses a malformed field %j with invalid_args',
      async (extra) => {
        const err = await discoverAs(new DiscoverService(new FakeCatalog([]), null, CONFIG), {
          query: 'refund a payment',
          ...extra,
        }).catch((e: unknown) => e);
        expect((err as AppError).code).toBe('invalid_args');
      },
    );

    it('reads query as an alias, prefers use_case, and normalises the filters', async () => {
      const catalog = new FakeCatalog([row()]);
      const svc = new DiscoverService(catalog, embedder(), CONFIG);
      const a = await discoverAs(svc, { query: '  refund a payment ' });
      expect(a.use_case).toBe('refund a payment');
      await discoverAs(svc, {
        use_case: 'create a payment',
        query: 'ignored',
        country: 'br',
        category: 'Payments',
        limit: 7,
      });
      expect(catalog.queries[1]).toMatchObject({
        text: 'create a payment',
        country: 'BR',
        category: 'payments',
        model: 'test-model',
        projectId: 'proj_1',
        environment: 'live',
      });
      await discoverAs(svc, { use_case: 'create a payment', country: '*' });
      expect(catalog.queries[2]!.country).toBeNull();
    });
  });

  it('recommends the best match, lists the rest as related up to limit, and fits the contract', async () => {
    const rows = [1, 2, 3, 4].map((i) => row({ toolName: `tool_${i}`, cosineDistance: 0.1 * i }));
    const res = await discoverAs(new DiscoverService(new FakeCatalog(rows), embedder(), CONFIG), {
      use_case: 'create a payment at acme',
      limit: 2,
    });
    expect(DiscoverResult.parse(res)).toEqual(res);
    expect(res.recommended?.tool).toBe('acme/tool_1');
    expect(res.related.map((m) => m.tool)).toEqual(['acme/tool_2', 'acme/tool_3']);
    expect(res.recommended_reason).toBeUndefined();
    expect(res.search_strategy).toBe('embedding');
    expect(res.meta_tools).toEqual([]);
    expect(res.next_steps[0]).toContain('acme/tool_1');
    expect(res.recommended!.known_pitfalls.join(' ')).toContain('no live connection to Acme');
    expect(res.recommended!.recommended_plan[0]).toContain('POST /v1/connections');
  });

  it('gives the recommended slot to a native meta-tool and keeps the catalog in related', async () => {
    const rows = [
      row({ serverId: 'zapi', toolName: 'send_text' }),
      row({ serverId: 'twilio', toolName: 'send_whatsapp', cosineDistance: 0.35 }),
    ];
    const res = await discoverAs(new DiscoverService(new FakeCatalog(rows), embedder(), CONFIG), {
      use_case: 'enviar uma mensagem no WhatsApp para o cliente',
    });
    expect(res.recommended).toBeNull();
    expect(res.recommended_reason).toBe('native_meta_tool');
    expect(res.meta_tools[0]).toBe('codespar_notify');
    expect(res.next_steps[0]).toMatch(/^Call codespar_notify/);
    expect(res.related.map((m) => m.tool)).toEqual(['zapi/send_text', 'twilio/send_whatsapp']);
    expect(DiscoverResult.safeParse(res).success).toBe(true);
  });

  it('fails the call, not the process, when the catalog fails before its rows are awaited', async () => {
    // Node reports a rejection as unhandled (and by default exits) when no
    // handler is on it by the end of the turn it happened in. The catalog
    // here rejects at once; at the start of the next turn a handler must be on
    // its promise, although the service is still busy with other work.
    const down = new Error('database down');
    let handledInTime: boolean | null = null;
    const failing: DiscoverCatalog = {
      candidates: () => Promise.reject(down),
      candidatesWhileEmbedding: () => {
        const p = new Tracked<Candidate[]>((_, reject) => reject(down));
        setImmediate(() => (handledInTime = p.handled));
        return p;
      },
    };
    const svc = new DiscoverService(failing, embedder(), CONFIG);
    await expect(discoverAs(svc, { use_case: 'create a pix charge' })).rejects.toBe(down);
    expect(handledInTime).toBe(true);
    // Without an embedder the one-statement path fails the call the same way.
    await expect(
      discoverAs(new DiscoverService(failing, null, CONFIG), { use_case: 'create a pix charge' }),
    ).rejects.toBe(down);
  });

  it('answers no_match and an empty strategy when nothing matched', async () => {
    const res = await discoverAs(new DiscoverService(new FakeCatalog([]), embedder(), CONFIG), {
      use_case: 'xyzzy plugh',
      category: 'fiscal',
    });
    expect(res).toMatchObject({
      search_strategy: 'empty',
      recommended: null,
      recommended_reason: 'no_match',
      related: [],
      meta_tools: [],
    });
    expect(res.next_steps.join(' ')).toContain('without the category or country filter');
  });

  it('answers blocked_in_test when every match is buried by the test penalty', async () => {
    const rows = [
      row({ serverId: 'stp', toolName: 'register_payment_order', authType: 'certificate', selfServeAuth: false }),
    ];
    const svc = new DiscoverService(new FakeCatalog(rows), embedder(), CONFIG);
    const test = await discoverAs(svc, { use_case: 'stp daily order reconciliation' }, 'test');
    expect(test.recommended).toBeNull();
    expect(test.recommended_reason).toBe('blocked_in_test');
    expect(test.related[0]!.known_pitfalls[0]).toMatch(/test environment/);
    const live = await discoverAs(svc, { use_case: 'stp daily order reconciliation' }, 'live');
    expect(live.recommended?.tool).toBe('stp/register_payment_order');
  });

  it('names the channels that ran, and hands the lexical channel a Portuguese request with its English rendering', async () => {
    const catalog = new FakeCatalog([row()]);
    const res = await discoverAs(new DiscoverService(catalog, embedder(), CONFIG), {
      use_case: 'estornar um pagamento aprovado',
    });
    expect(res.channels).toEqual(['lexical', 'vector']);
    expect(catalog.queries[0]!.lexical).toMatchObject({
      text: 'estornar um pagamento aprovado',
      expansionWeight: CONFIG.ROTA_DISCOVER_EXPANSION_WEIGHT,
    });
    expect(catalog.queries[0]!.lexical!.expansion).toMatch(/refund/);
    const lexicalOnly = new DiscoverService(
      catalog,
      embedder(),
      DiscoverConfig.parse({ ROTA_DISCOVER_CHANNELS: 'lexical' }),
    );
    const lex = await discoverAs(lexicalOnly, { use_case: 'create a payment at acme' });
    expect(lex.channels).toEqual(['lexical']);
    expect(catalog.queries[1]!.vector).toBeNull();
    const vectorOnly = new DiscoverService(
      catalog,
      embedder(),
      DiscoverConfig.parse({ ROTA_DISCOVER_CHANNELS: 'vector' }),
    );
    expect((await discoverAs(vectorOnly, { use_case: 'create a payment at acme' })).channels).toEqual(['vector']);
    expect(catalog.queries[2]!.lexical).toBeNull();
    expect(() => DiscoverConfig.parse({ ROTA_DISCOVER_CHANNELS: 'trigram' })).toThrow();
  });

  it('ranks by the lexical channel alone without an embedder, or when embedding fails', async () => {
    const rows = [row()];
    const none = await discoverAs(new DiscoverService(new FakeCatalog(rows), null, CONFIG), {
      use_case: 'create a payment at acme',
    });
    expect(none.search_strategy).toBe('trigram');
    expect(none.recommended?.cosine_distance).toBeNull();
    expect(none.recommended?.trigram_similarity).toBeCloseTo(0.2, 6);
    const warnings: string[] = [];
    const failing = new DiscoverService(new FakeCatalog(rows), embedder(true), CONFIG, {
      warn: (m) => warnings.push(m),
    });
    const res = await discoverAs(failing, { use_case: 'create a payment at acme' });
    expect(res.search_strategy).toBe('trigram');
    expect(warnings).toHaveLength(1);
  });

  it('stops calling a failing embedder for a while, then tries it again', async () => {
    let calls = 0;
    let down = true;
    const flaky: Embedder = {
      model: 'test-model',
      dimensions: 3,
      embed: (texts: string[]) => {
        calls++;
        return down
          ? Promise.reject(new Error('down'))
          : Promise.resolve(texts.map(() => Float32Array.from([1, 0, 0])));
      },
    };
    const warnings: string[] = [];
    const infos: string[] = [];
    // Open for a full second: the five calls below must all land while it is open, even on a busy machine.
    const config = DiscoverConfig.parse({
      ROTA_DISCOVER_EMBED_BREAKER_FAILURES: '2',
      ROTA_DISCOVER_EMBED_BREAKER_OPEN_MS: '1000',
    });
    const svc = new DiscoverService(new FakeCatalog([row()]), flaky, config, {
      warn: (m) => warnings.push(m),
      info: (m) => infos.push(m),
    });
    // Distinct use cases, so the query-embedding cache plays no part.
    for (let i = 0; i < 5; i++) {
      const res = await discoverAs(svc, { use_case: `create a payment at acme ${i}` });
      expect(res.search_strategy).toBe('trigram');
    }
    // Two failures open the breaker; the next three calls never reach the embedder.
    expect(calls).toBe(2);
    expect(warnings.filter((w) => /keep failing/.test(w))).toHaveLength(1);
    expect(warnings.filter((w) => /embedding failed/.test(w))).toHaveLength(2);

    down = false;
    await new Promise((r) => setTimeout(r, 1100));
    const back = await discoverAs(svc, { use_case: 'create a payment at acme again' });
    expect(back.search_strategy).toBe('embedding');
    expect(calls).toBe(3);
    expect(infos).toEqual(['discover: query embeddings answer again']);
  });

  it('embeds a repeated use case once, unless the query cache is turned off', async () => {
    const counting = (): Embedder & { calls: number } => {
      const e = {
        model: 'test-model',
        dimensions: 3,
        calls: 0,
        embed: (texts: string[]) => {
          e.calls++;
          return Promise.resolve(texts.map(() => Float32Array.from([1, 0, 0])));
        },
      };
      return e;
    };
    const cached = counting();
    const withCache = new DiscoverService(new FakeCatalog([row()]), cached, CONFIG);
    for (let i = 0; i < 3; i++) await discoverAs(withCache, { use_case: 'create a payment at acme' });
    expect(cached.calls).toBe(1);
    const uncached = counting();
    const noCache = new DiscoverService(
      new FakeCatalog([row()]),
      uncached,
      DiscoverConfig.parse({ ROTA_DISCOVER_EMBED_CACHE_SIZE: '0' }),
    );
    for (let i = 0; i < 3; i++)
      expect((await discoverAs(noCache, { use_case: 'create a payment at acme' })).search_strategy).toBe('embedding');
    expect(uncached.calls).toBe(3);
  });

  it('gives up on a query embedding that outlives its deadline', async () => {
    const hanging: Embedder = { model: 'test-model', dimensions: 3, embed: () => new Promise(() => undefined) };
    const warnings: string[] = [];
    const config = DiscoverConfig.parse({ ROTA_DISCOVER_EMBED_TIMEOUT_MS: '50' });
    const svc = new DiscoverService(new FakeCatalog([row()]), hanging, config, { warn: (m) => warnings.push(m) });
    const res = await discoverAs(svc, { use_case: 'create a payment at acme' });
    expect(res.search_strategy).toBe('trigram');
    expect(warnings).toEqual(['discover: query embedding failed; ranking by the lexical channel alone']);
  });

  it('says why the vector channel was skipped', async () => {
    const rows = [row()];
    const skipped = async (svc: DiscoverService) =>
      (await discoverAs(svc, { use_case: 'create a payment at acme' })).channels_skipped;
    expect(await skipped(new DiscoverService(new FakeCatalog(rows), embedder(), CONFIG))).toEqual([]);
    expect(await skipped(new DiscoverService(new FakeCatalog(rows), null, CONFIG))).toEqual([
      { channel: 'vector', reason: 'no_embedder' },
    ]);
    expect(await skipped(new DiscoverService(new FakeCatalog(rows), embedder(true), CONFIG))).toEqual([
      { channel: 'vector', reason: 'failed' },
    ]);
    const lexicalOnly = DiscoverConfig.parse({ ROTA_DISCOVER_CHANNELS: 'lexical' });
    expect(await skipped(new DiscoverService(new FakeCatalog(rows), embedder(), lexicalOnly))).toEqual([
      { channel: 'vector', reason: 'disabled' },
    ]);
  });

  /**
   * An embedder that queues like the local pool and never gets to a query:
   * it rejects a query abandoned while queued, as the pool does, and reports
   * how long the inference ahead of the queue has been running.
   */
  const queueing = (runningForMs: number) => {
    const e = {
      model: 'test-model',
      dimensions: 3,
      honoursSignal: true,
      calls: 0,
      runningForMs: () => runningForMs,
      embed: (_texts: string[], opts: EmbedOptions = {}) => {
        e.calls++;
        return new Promise<Float32Array[]>((_, reject) =>
          opts.signal?.addEventListener('abort', () => reject(new EmbeddingNotStartedError())),
        );
      },
    };
    return e;
  };

  it('does not count queries that waited out their deadline behind a busy encoder as failures', async () => {
    const busy = queueing(10);
    const config = DiscoverConfig.parse({
      ROTA_DISCOVER_EMBED_TIMEOUT_MS: '30',
      ROTA_DISCOVER_EMBED_BREAKER_FAILURES: '2',
      ROTA_DISCOVER_EMBED_BREAKER_OPEN_MS: '60000',
    });
    const svc = new DiscoverService(new FakeCatalog([row()]), busy, config);
    for (let i = 0; i < 4; i++) {
      const res = await discoverAs(svc, { use_case: `create a payment at acme ${i}` });
      expect(res.channels).toEqual(['lexical']);
      expect(res.channels_skipped).toEqual([{ channel: 'vector', reason: 'busy' }]);
    }
    // The breaker stayed closed: every call asked the encoder.
    expect(busy.calls).toBe(4);
  });

  it('counts queries stuck behind an inference that outlived the whole deadline, and opens the breaker', async () => {
    const stuck = queueing(5000);
    const config = DiscoverConfig.parse({
      ROTA_DISCOVER_EMBED_TIMEOUT_MS: '30',
      ROTA_DISCOVER_EMBED_BREAKER_FAILURES: '2',
      ROTA_DISCOVER_EMBED_BREAKER_OPEN_MS: '60000',
    });
    const svc = new DiscoverService(new FakeCatalog([row()]), stuck, config);
    const reasons: string[] = [];
    for (let i = 0; i < 4; i++)
      reasons.push((await discoverAs(svc, { use_case: `create a payment at acme ${i}` })).channels_skipped![0]!.reason);
    expect(reasons).toEqual(['timeout', 'timeout', 'breaker_open', 'breaker_open']);
    expect(stuck.calls).toBe(2);
  });
});
