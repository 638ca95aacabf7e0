import { startFakeAnthropic, type FakeAnthropic } from '@rota/testing';
import { META_TOOLS } from '@rota/contracts/meta-tools';
import { searchTools, llmFromEnv } from './tools-search.service';
import { AnthropicClassifier, buildSystemPrompt, parseModelHits } from './llm';

const goodAnswer = JSON.stringify({
  hits: [
    { tool_name: 'codespar_charge', confidence: 'high', rationale: 'collects money from a customer with Pix' },
    { tool_name: 'codespar_checkout', confidence: 'low', rationale: 'a payment page could also work' },
  ],
});

describe('AnthropicClassifier against the fake Messages API', () => {
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic({ kind: 'text', text: goodAnswer });
  });
  afterEach(async () => {
    await fake.close();
  });

  const classifier = (timeoutMs = 3000) =>
    new AnthropicClassifier({ apiKey: 'test-key', baseURL: fake.url, timeoutMs });

  it('sends the documented request and returns the model hits (source llm)', async () => {
    const res = await searchTools({ intent: 'charge a customer in BRL with pix', limit: 3 }, { llm: classifier() });
    expect(res.source).toBe('llm');
    expect(res.fallback_reason).toBeUndefined();
    expect(res.hits.map((h) => h.tool_name)).toEqual(['codespar_charge', 'codespar_checkout']);
    expect(res.hits[0]).toEqual({
      tool_name: 'codespar_charge',
      confidence: 'high',
      rationale: 'collects money from a customer with Pix',
    });
    expect(fake.calls).toHaveLength(1);
    const call = fake.calls[0]!;
    expect(call.path).toBe('/v1/messages');
    expect(call.apiKey).toBe('test-key');
    expect(call.body).toMatchObject({ model: 'claude-haiku-4-5-20251001', max_tokens: 512, temperature: 0 });
    const body = call.body as { system: string; messages: Array<{ role: string; content: string }> };
    expect(body.messages[0]!.content).toContain('charge a customer in BRL with pix');
    for (const tool of META_TOOLS) {
      expect(body.system).toContain(tool.name);
      expect(body.system).toContain(tool.description);
    }
    // Only names and descriptions: no input schema leaks into the prompt.
    expect(body.system).not.toContain('inputSchema');
    expect(body.system).not.toContain('linha_digitavel');
  });

  it('drops tool names outside the 15 and honours the limit', async () => {
    fake.setBehaviour({
      kind: 'text',
      text: JSON.stringify({
        hits: [
          { tool_name: 'codespar_cart', confidence: 'high', rationale: 'unpublished' },
          { tool_name: 'stripe/create_charge', confidence: 'high', rationale: 'raw rail' },
          { tool_name: 'codespar_charge', confidence: 'certain', rationale: 'ok' },
          { tool_name: 'codespar_charge', confidence: 'high', rationale: 'duplicate' },
          { tool_name: 'codespar_pay', confidence: 'medium', rationale: 'second' },
          { tool_name: 'codespar_ship', confidence: 'low', rationale: 'third' },
        ],
      }),
    });
    const out = await classifier().classify('cobrar via pix', 2);
    expect(out).toEqual({
      ok: true,
      hits: [
        { tool_name: 'codespar_charge', confidence: 'low', rationale: 'ok' },
        { tool_name: 'codespar_pay', confidence: 'medium', rationale: 'second' },
      ],
    });
  });

  it('reads JSON wrapped in a code fence', async () => {
    fake.setBehaviour({ kind: 'text', text: 'Here you go:\n```json\n' + goodAnswer + '\n```' });
    const out = await classifier().classify('x', 3);
    expect(out.ok && out.hits[0]!.tool_name).toBe('codespar_charge');
  });

  it('treats an honest empty list as a model answer', async () => {
    fake.setBehaviour({ kind: 'text', text: '{"hits":[]}' });
    const res = await searchTools({ intent: 'tell me a joke', limit: 3 }, { llm: classifier() });
    expect(res).toMatchObject({ source: 'llm', hits: [] });
  });

  it('falls back with unparseable_output on garbage text', async () => {
    fake.setBehaviour({ kind: 'text', text: 'I think you want the charge tool, probably.' });
    const res = await searchTools({ intent: 'Cobra R$ 150 do cliente no Pix', limit: 3 }, { llm: classifier() });
    expect(res.source).toBe('fallback');
    expect(res.fallback_reason).toBe('unparseable_output');
    expect(res.hits[0]!.tool_name).toBe('codespar_charge');
  });

  it.each([
    [429, 'rate_limit_error'],
    [500, 'api_error'],
  ])('falls back with model_error on %i at once, without retrying', async (status, type) => {
    fake.setBehaviour({ kind: 'error', status, type, message: 'nope' });
    const warn = jest.fn();
    const res = await searchTools(
      { intent: 'Rastreia a encomenda OJ123456789BR', limit: 3 },
      { llm: classifier(), logger: { warn } },
    );
    expect(res).toMatchObject({ source: 'fallback', fallback_reason: 'model_error' });
    expect(res.hits[0]!.tool_name).toBe('codespar_ship');
    expect(fake.calls).toHaveLength(1);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('falls back with model_error on a malformed 200 body', async () => {
    fake.setBehaviour({ kind: 'raw', status: 200, body: 'not json at all', contentType: 'text/plain' });
    const out = await classifier().classify('x', 3);
    expect(out.ok).toBe(false);
  });

  it('falls back with model_timeout when the model hangs past the deadline', async () => {
    fake.setBehaviour({ kind: 'hang' });
    const started = Date.now();
    const res = await searchTools({ intent: 'Manda um WhatsApp pro cliente', limit: 3 }, { llm: classifier(150) });
    expect(res).toMatchObject({ source: 'fallback', fallback_reason: 'model_timeout' });
    expect(res.hits[0]!.tool_name).toBe('codespar_notify');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('makes no network call without ANTHROPIC_API_KEY', async () => {
    const llm = llmFromEnv({ ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: '  ' });
    expect(llm).toBeNull();
    const res = await searchTools({ intent: 'Emite a nota fiscal dessa venda' }, { llm });
    expect(res).toMatchObject({ source: 'fallback', fallback_reason: 'no_model_key' });
    expect(res.hits[0]!.tool_name).toBe('codespar_invoice');
    expect(fake.calls).toHaveLength(0);
  });

  it('builds a working classifier from the environment when a key is set', async () => {
    const llm = llmFromEnv({ ANTHROPIC_API_KEY: 'env-key', ANTHROPIC_BASE_URL: fake.url });
    const res = await searchTools({ intent: 'x' }, { llm });
    expect(res.source).toBe('llm');
    expect(fake.calls[0]!.apiKey).toBe('env-key');
  });
});

describe('parseModelHits', () => {
  it('returns undefined when there is no hits array', () => {
    expect(parseModelHits('', 3)).toBeUndefined();
    expect(parseModelHits('{"tools":[]}', 3)).toBeUndefined();
    expect(parseModelHits('{"hits":"codespar_pay"}', 3)).toBeUndefined();
  });

  it('finds the object inside surrounding prose', () => {
    expect(
      parseModelHits(
        'Sure! {"hits":[{"tool_name":"codespar_kyc","confidence":"medium","rationale":"checks a CPF"}]} Hope it helps',
        3,
      ),
    ).toEqual([{ tool_name: 'codespar_kyc', confidence: 'medium', rationale: 'checks a CPF' }]);
  });

  it('skips entries that are not objects and fills a missing rationale', () => {
    expect(parseModelHits('{"hits":[null, 3, {"tool_name":"codespar_ship"}]}', 3)).toEqual([
      { tool_name: 'codespar_ship', confidence: 'low', rationale: '' },
    ]);
  });
});

describe('buildSystemPrompt', () => {
  it('is stable, so the same body gets the same request', () => {
    expect(buildSystemPrompt()).toBe(buildSystemPrompt());
  });
});
