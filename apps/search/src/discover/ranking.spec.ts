import { connectionStatusOf, rankCandidates, scoreCandidate, trigramScore, type Candidate, type RankingSettings } from './ranking';

const SETTINGS: RankingSettings = {
  bonusVector: 0.02,
  bonusTrigram: 0.05,
  testPenalty: 1000,
  trigramThreshold: 0.1,
  providerWeight: 0.7,
  weightVector: 1,
  weightTrigram: 1,
  maxDistance: 0.85,
};

function candidate(over: Partial<Candidate> = {}): Candidate {
  return {
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
    const c = candidate({ nameSimilarity: 0.2, descriptionSimilarity: 0.35, providerNameSimilarity: 0.5, providerDescriptionSimilarity: 0.3 });
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

describe('scoreCandidate', () => {
  it('drops a row neither pass matched', () => {
    expect(scoreCandidate(candidate({ cosineDistance: 0.95, descriptionSimilarity: 0.05 }), 'live', SETTINGS)).toBeNull();
  });

  it('fuses 1 - distance and the trigram score', () => {
    const r = scoreCandidate(candidate({ cosineDistance: 0.4, fromVectorPass: true, descriptionSimilarity: 0.3 }), 'live', SETTINGS)!;
    expect(r.score).toBeCloseTo(0.6 + 0.3, 10);
    expect(r.cosineDistance).toBe(0.4);
    expect(r.trigramSimilarity).toBeCloseTo(0.3, 10);
  });

  it('adds 0.02 on the cosine score and 0.05 on the trigram score for a connected rail', () => {
    const base = { cosineDistance: 0.4, fromVectorPass: true, descriptionSimilarity: 0.3 };
    const off = scoreCandidate(candidate(base), 'live', SETTINGS)!;
    const on = scoreCandidate(candidate({ ...base, connectionRowStatus: 'connected' }), 'live', SETTINGS)!;
    expect(on.score - off.score).toBeCloseTo(0.07, 10);
    expect(on.connectionStatus).toBe('connected');
  });

  it('gives the cosine bonus alone when the trigram pass did not score the row', () => {
    const off = scoreCandidate(candidate({ cosineDistance: 0.4 }), 'live', SETTINGS)!;
    const on = scoreCandidate(candidate({ cosineDistance: 0.4, authType: 'none' }), 'live', SETTINGS)!;
    expect(on.connectionStatus).toBe('not_required');
    expect(on.score - off.score).toBeCloseTo(0.02, 10);
  });

  it('follows the configured bonus and weights', () => {
    const s = { ...SETTINGS, bonusVector: 0.1, bonusTrigram: 0, weightVector: 2, weightTrigram: 0.5 };
    const r = scoreCandidate(candidate({ cosineDistance: 0.5, descriptionSimilarity: 0.4, connectionRowStatus: 'connected' }), 'live', s)!;
    expect(r.score).toBeCloseTo(2 * (0.5 + 0.1) + 0.5 * 0.4, 10);
  });

  it.each(['certificate', 'hmac', 'jwt', 'two_header'])('buries a disconnected %s rail in the test environment', (authType) => {
    const c = candidate({ authType, selfServeAuth: false, cosineDistance: 0.2 });
    const test = scoreCandidate(c, 'test', SETTINGS)!;
    const live = scoreCandidate(c, 'live', SETTINGS)!;
    expect(test.blocked).toBe(true);
    expect(live.score - test.score).toBeCloseTo(1000, 10);
    expect(live.blocked).toBe(false);
  });

  it('does not penalise a connected certificate rail, nor a disconnected self-serve one', () => {
    expect(
      scoreCandidate(candidate({ authType: 'certificate', selfServeAuth: false, connectionRowStatus: 'connected', cosineDistance: 0.2 }), 'test', SETTINGS)!
        .blocked,
    ).toBe(false);
    for (const authType of ['api_key', 'basic', 'oauth2', 'none']) {
      expect(scoreCandidate(candidate({ authType, cosineDistance: 0.2 }), 'test', SETTINGS)!.blocked).toBe(false);
    }
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
    const a = candidate({ serverId: 'alpha', cosineDistance: 0.4, descriptionSimilarity: 0.3 });
    const b = candidate({ serverId: 'beta', cosineDistance: 0.43, descriptionSimilarity: 0.3 });
    expect(rankCandidates([a, b], 'live', SETTINGS).map((r) => r.candidate.serverId)).toEqual(['alpha', 'beta']);
    const bConnected = { ...b, connectionRowStatus: 'connected' };
    expect(rankCandidates([a, bConnected], 'live', SETTINGS).map((r) => r.candidate.serverId)).toEqual(['beta', 'alpha']);
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
    expect(rankCandidates([x, y, z], 'live', SETTINGS).map((r) => `${r.candidate.serverId}/${r.candidate.toolName}`)).toEqual(['a/b', 'a/z', 'b/a']);
  });
});
