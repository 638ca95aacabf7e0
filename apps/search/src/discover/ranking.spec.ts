import {
  connectionStatusOf,
  namedProviders,
  rankCandidates,
  requestAct,
  toolAct,
  trigramScore,
  type Candidate,
  type RankingSettings,
} from './ranking';

const SETTINGS: RankingSettings = {
  bonusVector: 0.02,
  bonusLexical: 0.05,
  testPenalty: 1000,
  trigramThreshold: 0.1,
  providerWeight: 0.7,
  weightVector: 1,
  weightLexical: 1,
  maxDistance: 0.85,
  fusion: 'blend',
  rrfK: 60,
  bonusNamed: 0.05,
  bonusAct: 0.03,
};

/** The one ranked row of a single candidate, or undefined when it is not a match. */
function score(c: Candidate, environment: 'live' | 'test' = 'live', s: RankingSettings = SETTINGS) {
  return rankCandidates([c], environment, s)[0];
}

function candidate(over: Partial<Candidate> = {}): Candidate {
  return {
    id: `${over.serverId ?? 'acme'}/${over.toolName ?? 'x'}`,
    serverId: 'acme',
    toolName: 'do_thing',
    description: 'Does the thing.',
    httpMethod: 'GET',
    endpointTemplate: '/thing',
    projectId: null,
    providerName: 'Acme',
    category: 'payments',
    providerCountry: 'BR',
    providerCountries: ['BR'],
    authType: 'api_key',
    selfServeAuth: true,
    sandboxAvailable: true,
    providerStatus: 'stable',
    cosineDistance: null,
    fromVectorPass: false,
    lexicalScore: null,
    fromLexicalPass: false,
    nameSimilarity: 0,
    descriptionSimilarity: 0,
    providerNameSimilarity: 0,
    providerDescriptionSimilarity: 0,
    connectionRowStatus: null,
    ...over,
  };
}

describe('trigramScore', () => {
  it("adds the provider's best part, weighted, to the tool's best part", () => {
    const c = candidate({
      nameSimilarity: 0.2,
      descriptionSimilarity: 0.35,
      providerNameSimilarity: 0.5,
      providerDescriptionSimilarity: 0.3,
    });
    expect(trigramScore(c, SETTINGS)).toBeCloseTo(0.35 + 0.7 * 0.5, 10);
  });

  it('counts a part only from the threshold on, so 0.1 matches and 0.09 does not', () => {
    expect(trigramScore(candidate({ descriptionSimilarity: 0.1 }), SETTINGS)).toBeCloseTo(0.1, 10);
    expect(trigramScore(candidate({ descriptionSimilarity: 0.09 }), SETTINGS)).toBeNull();
    // A provider-only match still counts, at its weight.
    expect(trigramScore(candidate({ providerNameSimilarity: 0.2 }), SETTINGS)).toBeCloseTo(0.14, 10);
  });

  it("keeps matches that pg_trgm's default threshold of 0.3 would drop", () => {
    expect(trigramScore(candidate({ descriptionSimilarity: 0.18 }), SETTINGS)).toBeCloseTo(0.18, 10);
  });
});

describe('channel scores and fusion', () => {
  it('drops a row neither channel matched: too far in the vector space and holding no query term', () => {
    expect(score(candidate({ cosineDistance: 0.95, descriptionSimilarity: 0.5 }))).toBeUndefined();
    expect(score(candidate({ cosineDistance: null, lexicalScore: 0 }))).toBeUndefined();
  });

  it('blends 1 - distance with BM25 divided by the best BM25 among the candidates', () => {
    const best = candidate({ serverId: 'best', cosineDistance: 0.5, lexicalScore: 8 });
    const half = candidate({ serverId: 'half', cosineDistance: 0.4, lexicalScore: 4 });
    const [a, b] = rankCandidates([best, half], 'live', SETTINGS);
    expect(a!.candidate.serverId).toBe('best');
    expect(a!.score).toBeCloseTo(0.5 + 1, 10);
    expect(b!.score).toBeCloseTo(0.6 + 0.5, 10);
    expect(b!.lexicalScore).toBe(4);
    expect(b!.cosineDistance).toBe(0.4);
  });

  it('scores a lexical-only row without a vector term, and a vector-only row without a lexical term', () => {
    const lex = score(candidate({ lexicalScore: 3 }))!;
    expect(lex.score).toBeCloseTo(1, 10);
    const vec = score(candidate({ cosineDistance: 0.3 }))!;
    expect(vec.score).toBeCloseTo(0.7, 10);
    expect(vec.lexicalScore).toBeNull();
  });

  it("adds each channel's bonus to that channel's own score for a connected rail", () => {
    const other = candidate({ serverId: 'other', lexicalScore: 10 });
    const base = { cosineDistance: 0.4, lexicalScore: 5 };
    const off = rankCandidates([other, candidate(base)], 'live', SETTINGS).find(
      (r) => r.candidate.serverId === 'acme',
    )!;
    const on = rankCandidates([other, candidate({ ...base, connectionRowStatus: 'connected' })], 'live', SETTINGS).find(
      (r) => r.candidate.serverId === 'acme',
    )!;
    expect(on.score - off.score).toBeCloseTo(0.02 + 0.05, 10);
    expect(on.connectionStatus).toBe('connected');
  });

  it('gives the vector bonus alone when the row holds no query term', () => {
    const off = score(candidate({ cosineDistance: 0.4 }))!;
    const on = score(candidate({ cosineDistance: 0.4, authType: 'none' }))!;
    expect(on.connectionStatus).toBe('not_required');
    expect(on.score - off.score).toBeCloseTo(0.02, 10);
  });

  it('follows the configured bonus and weights', () => {
    const s = { ...SETTINGS, bonusVector: 0.1, bonusLexical: 0, weightVector: 2, weightLexical: 0.5 };
    const r = score(candidate({ cosineDistance: 0.5, lexicalScore: 2, connectionRowStatus: 'connected' }), 'live', s)!;
    expect(r.score).toBeCloseTo(2 * (0.5 + 0.1) + 0.5 * 1, 10);
  });

  it('fuses by reciprocal rank when asked: each channel ranks the candidates by its own score', () => {
    const s = { ...SETTINGS, fusion: 'rrf' as const, rrfK: 10 };
    // a: first by vector, third by BM25; b: second by both; c: third by vector, first by BM25.
    const a = candidate({ serverId: 'a', cosineDistance: 0.1, lexicalScore: 1 });
    const b = candidate({ serverId: 'b', cosineDistance: 0.2, lexicalScore: 5 });
    const c = candidate({ serverId: 'c', cosineDistance: 0.3, lexicalScore: 9 });
    const ranked = rankCandidates([a, b, c], 'live', s);
    // a and c tie on 1/11 + 1/13 (the callable name breaks it); b's 2/12 is just under.
    expect(ranked.map((r) => r.candidate.serverId)).toEqual(['a', 'c', 'b']);
    expect(ranked[0]!.score).toBeCloseTo(1 / 11 + 1 / 13, 10);
    expect(ranked[1]!.score).toBeCloseTo(ranked[0]!.score, 10);
    expect(ranked[2]!.score).toBeCloseTo(2 / 12, 10);
    // A row only one channel scored gets that channel's term alone.
    const d = candidate({ serverId: 'd', lexicalScore: 20 });
    expect(rankCandidates([a, d], 'live', s).find((r) => r.candidate.serverId === 'd')!.score).toBeCloseTo(1 / 11, 10);
  });

  it("lets the bonus change a rail's rank inside its channel under reciprocal rank fusion", () => {
    const s = { ...SETTINGS, fusion: 'rrf' as const };
    const a = candidate({ serverId: 'alpha', cosineDistance: 0.4, lexicalScore: 5 });
    const b = candidate({ serverId: 'beta', cosineDistance: 0.41, lexicalScore: 4.9 });
    expect(rankCandidates([a, b], 'live', s)[0]!.candidate.serverId).toBe('alpha');
    expect(rankCandidates([a, { ...b, connectionRowStatus: 'connected' }], 'live', s)[0]!.candidate.serverId).toBe(
      'beta',
    );
  });

  it.each(['certificate', 'hmac', 'jwt', 'two_header'])(
    'buries a disconnected %s rail in the test environment',
    (authType) => {
      const c = candidate({ authType, selfServeAuth: false, cosineDistance: 0.2, lexicalScore: 3 });
      const test = score(c, 'test')!;
      const live = score(c, 'live')!;
      expect(test.blocked).toBe(true);
      expect(live.score - test.score).toBeCloseTo(1000, 10);
      expect(live.blocked).toBe(false);
    },
  );

  it('does not penalise a connected certificate rail, nor a disconnected self-serve one', () => {
    expect(
      score(
        candidate({
          authType: 'certificate',
          selfServeAuth: false,
          connectionRowStatus: 'connected',
          cosineDistance: 0.2,
        }),
        'test',
      )!.blocked,
    ).toBe(false);
    for (const authType of ['api_key', 'basic', 'oauth2', 'none']) {
      expect(score(candidate({ authType, cosineDistance: 0.2 }), 'test')!.blocked).toBe(false);
    }
  });

  it('still shows the trigram similarity of each match', () => {
    expect(score(candidate({ lexicalScore: 2, descriptionSimilarity: 0.3 }))!.trigramSimilarity).toBeCloseTo(0.3, 10);
  });
});

describe('connectionStatusOf', () => {
  it('reads the connection row, with auth none never needing one', () => {
    expect(connectionStatusOf('none', null)).toBe('not_required');
    expect(connectionStatusOf('api_key', 'connected')).toBe('connected');
    expect(connectionStatusOf('api_key', 'revoked')).toBe('disconnected');
    expect(connectionStatusOf('api_key', null)).toBe('disconnected');
  });
});

describe('rankCandidates', () => {
  it('lets the connection bonus decide between two close matches', () => {
    const a = candidate({ serverId: 'alpha', cosineDistance: 0.4, lexicalScore: 3 });
    const b = candidate({ serverId: 'beta', cosineDistance: 0.43, lexicalScore: 3 });
    expect(rankCandidates([a, b], 'live', SETTINGS).map((r) => r.candidate.serverId)).toEqual(['alpha', 'beta']);
    const bConnected = { ...b, connectionRowStatus: 'connected' };
    expect(rankCandidates([a, bConnected], 'live', SETTINGS).map((r) => r.candidate.serverId)).toEqual([
      'beta',
      'alpha',
    ]);
  });

  it('sorts a buried rail after every other match in test', () => {
    const best = candidate({ serverId: 'bank', authType: 'certificate', selfServeAuth: false, cosineDistance: 0.05 });
    const weak = candidate({ serverId: 'weak', cosineDistance: 0.8 });
    expect(rankCandidates([best, weak], 'test', SETTINGS).map((r) => r.candidate.serverId)).toEqual(['weak', 'bank']);
    expect(rankCandidates([best, weak], 'live', SETTINGS).map((r) => r.candidate.serverId)).toEqual(['bank', 'weak']);
  });

  it('breaks ties on the callable name', () => {
    const x = candidate({ serverId: 'b', toolName: 'a', cosineDistance: 0.5 });
    const y = candidate({ serverId: 'a', toolName: 'z', cosineDistance: 0.5 });
    const z = candidate({ serverId: 'a', toolName: 'b', cosineDistance: 0.5 });
    expect(
      rankCandidates([x, y, z], 'live', SETTINGS).map((r) => `${r.candidate.serverId}/${r.candidate.toolName}`),
    ).toEqual(['a/b', 'a/z', 'b/a']);
  });
});

describe('namedProviders', () => {
  const providers = [
    { serverId: 'epayco', providerName: 'ePayco' },
    { serverId: 'payu', providerName: 'PayU' },
    { serverId: 'envia', providerName: 'Envia' },
    { serverId: 'inter', providerName: 'Banco Inter' },
    { serverId: 'mercadopago', providerName: 'Mercado Pago' },
  ];

  it('finds a provider written as a name, by its name or its id', () => {
    expect([...namedProviders('pagar por PSE con ePayco', providers)]).toEqual(['epayco']);
    expect([...namedProviders('emitir boleto no Banco Inter', providers)]).toEqual(['inter']);
    expect([...namedProviders('cobrar com Inter', providers)]).toEqual(['inter']);
    expect([...namedProviders('charge with mercado pago', providers)]).toEqual(['mercadopago']);
    expect([...namedProviders('PayU card payment', providers)]).toEqual(['payu']);
  });

  it('does not take an ordinary word, or a capitalised first word, for a name', () => {
    // "envia" is Spanish and Portuguese for "sends".
    expect(namedProviders('el comercio envia un paquete', providers).size).toBe(0);
    expect(namedProviders('Envia un paquete a Lima', providers).size).toBe(0);
    // A name the lexicon reads as something else (a verb, a channel, a rail) never counts.
    expect(namedProviders('programar una recolección con Envia', providers).size).toBe(0);
    expect(namedProviders('send a WhatsApp message', [{ serverId: 'whatsapp', providerName: 'WhatsApp' }]).size).toBe(
      0,
    );
    expect(namedProviders('pay an invoice', providers).size).toBe(0);
  });

  it('lifts the named provider’s tools over a closer tool of another provider', () => {
    const payu = candidate({ serverId: 'payu', toolName: 'create_pse_payment', cosineDistance: 0.3 });
    const epayco = candidate({ serverId: 'epayco', toolName: 'create_pse_payment', cosineDistance: 0.32 });
    expect(rankCandidates([payu, epayco], 'live', SETTINGS).map((r) => r.candidate.serverId)).toEqual([
      'payu',
      'epayco',
    ]);
    expect(
      rankCandidates([payu, epayco], 'live', SETTINGS, new Set(['epayco'])).map((r) => r.candidate.serverId),
    ).toEqual(['epayco', 'payu']);
    const rrf = { ...SETTINGS, fusion: 'rrf' as const };
    expect(rankCandidates([payu, epayco], 'live', rrf, new Set(['epayco'])).map((r) => r.candidate.serverId)).toEqual([
      'epayco',
      'payu',
    ]);
  });
});

describe('requestAct and toolAct', () => {
  it('reads the kind of act a request opens with, past a lead-in', () => {
    expect(requestAct('create a Correios pre-posting')).toBe('make');
    expect(requestAct('I want to look up the street address of a CEP')).toBe('read');
    expect(requestAct('please cancel the boleto')).toBe('cancel');
    expect(requestAct('charge a customer by pix')).toBeNull();
    expect(requestAct('')).toBeNull();
  });

  it('reads the kind of act a tool name opens with, in any casing', () => {
    expect(toolAct('create_prepost')).toBe('make');
    expect(toolAct('lookup_cep')).toBe('read');
    expect(toolAct('getReport')).toBe('read');
    expect(toolAct('list-reports')).toBe('list');
    expect(toolAct('print_label')).toBeNull();
    expect(toolAct('WeatherTool')).toBeNull();
  });

  it('tips a close call toward the tool whose name does what the request asks', () => {
    const print = candidate({ serverId: 'correios', toolName: 'print_label', cosineDistance: 0.3 });
    const prepost = candidate({ serverId: 'correios', toolName: 'create_prepost', cosineDistance: 0.31 });
    expect(rankCandidates([print, prepost], 'live', SETTINGS).map((r) => r.candidate.toolName)).toEqual([
      'print_label',
      'create_prepost',
    ]);
    expect(
      rankCandidates([print, prepost], 'live', SETTINGS, new Set(), 'make').map((r) => r.candidate.toolName),
    ).toEqual(['create_prepost', 'print_label']);
  });
});
