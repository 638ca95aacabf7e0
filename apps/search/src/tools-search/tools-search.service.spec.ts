import { ToolSearchResponse } from '@rota/contracts/tools-search';
import { llmFromEnv, searchTools } from './tools-search.service';
import type { IntentClassifier, LlmOutcome } from './llm';

const stub = (outcome: LlmOutcome): IntentClassifier & { classify: jest.Mock } => ({
  classify: jest.fn().mockResolvedValue(outcome),
});

describe('searchTools', () => {
  it('uses the lexical ranking with no_model_key when no model is configured', async () => {
    const res = await searchTools(
      { intent: 'Gera um boleto de R$ 500 com vencimento dia 10', limit: 2 },
      { llm: null },
    );
    expect(res.source).toBe('fallback');
    expect(res.fallback_reason).toBe('no_model_key');
    expect(res.intent).toBe('Gera um boleto de R$ 500 com vencimento dia 10');
    expect(res.hits[0]!.tool_name).toBe('codespar_charge');
    expect(res.hits.length).toBeLessThanOrEqual(2);
    expect(ToolSearchResponse.parse(res)).toEqual(res);
  });

  it('passes the model hits through with source llm and no fallback_reason', async () => {
    const llm = stub({
      ok: true,
      hits: [{ tool_name: 'codespar_ship', confidence: 'high', rationale: 'tracks a parcel' }],
    });
    const res = await searchTools({ intent: 'where is my parcel', limit: 4 }, { llm });
    expect(llm.classify).toHaveBeenCalledWith('where is my parcel', 4);
    expect(res).toEqual({
      intent: 'where is my parcel',
      hits: [{ tool_name: 'codespar_ship', confidence: 'high', rationale: 'tracks a parcel' }],
      elapsed_ms: expect.any(Number),
      source: 'llm',
    });
    expect('fallback_reason' in res).toBe(false);
  });

  it.each(['model_error', 'model_timeout', 'unparseable_output'] as const)(
    'falls back to the lexical ranking on %s and logs it',
    async (reason) => {
      const warn = jest.fn();
      const res = await searchTools(
        { intent: 'Manda um WhatsApp pro cliente avisando que o pedido saiu' },
        { llm: stub({ ok: false, reason }), logger: { warn } },
      );
      expect(res).toMatchObject({ source: 'fallback', fallback_reason: reason });
      expect(res.hits[0]!.tool_name).toBe('codespar_notify');
      expect(warn).toHaveBeenCalledWith(expect.any(String), { reason });
    },
  );

  it('defaults the limit to 3', async () => {
    const llm = stub({ ok: true, hits: [] });
    await searchTools({ intent: 'x' }, { llm });
    expect(llm.classify).toHaveBeenCalledWith('x', 3);
  });

  it('measures elapsed_ms with the injected clock', async () => {
    let t = 1000;
    const llm: IntentClassifier = {
      classify: async () => {
        t += 412;
        return { ok: true, hits: [] };
      },
    };
    const res = await searchTools({ intent: 'x' }, { llm, now: () => t });
    expect(res.elapsed_ms).toBe(412);
  });

  it('gives the same answer to every caller for the same body', async () => {
    const body = { intent: 'Valida esse CPF pra mim', limit: 3 };
    const a = await searchTools(body, { llm: null, now: () => 0 });
    const b = await searchTools(body, { llm: null, now: () => 0 });
    expect(a).toEqual(b);
  });
});

describe('llmFromEnv', () => {
  it('returns null without a key and a classifier with one', () => {
    expect(llmFromEnv({})).toBeNull();
    expect(llmFromEnv({ ANTHROPIC_API_KEY: '' })).toBeNull();
    expect(llmFromEnv({ ANTHROPIC_API_KEY: 'k' })).not.toBeNull();
  });
});
