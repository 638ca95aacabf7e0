import { startFakeAnthropic, type FakeAnthropic } from '@rota/testing';
import { AnthropicExtractor, readModelAnswer } from './anthropic-extractor';

describe('readModelAnswer', () => {
  it('reads a JSON intent, tolerating text around it and nulls for absent fields', () => {
    expect(
      readModelAnswer(
        'Here: {"operation":"charge","currency":"brl","country":"BR","amount_minor":4990,"urgency":null}',
      ),
    ).toEqual({
      kind: 'intent',
      intent: { operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 4990 },
    });
  });

  it('answers unmappable for an operation outside the six', () => {
    expect(readModelAnswer('{"operation":"none"}').kind).toBe('unmappable');
    expect(readModelAnswer('{"operation":"book_flight","currency":"EUR","country":"PT"}').kind).toBe('unmappable');
  });

  it.each([
    ['no json at all'],
    ['[1,2]'],
    ['{"currency":"BRL"}'],
    ['{"operation":"charge","currency":"XYZ","country":"BR"}'],
    ['{"operation":"charge","currency":"BRL","country":"BR","amount_minor":-5}'],
  ])('fails on unusable output: %s', (text) => {
    expect(readModelAnswer(text).kind).toBe('failed');
  });
});

describe('AnthropicExtractor against a fake Messages API', () => {
  let fake: FakeAnthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
  });
  afterAll(() => fake.close());

  it('sends the description and reads the answer', async () => {
    fake.setBehaviour({
      kind: 'text',
      text: '{"operation":"payout","currency":"MXN","country":"MX","amount_minor":300000,"method":"spei"}',
    });
    const x = new AnthropicExtractor({ apiKey: 'k', baseURL: fake.url, timeoutMs: 2000 });
    expect(await x.extract('pagar 3000 MXN por SPEI')).toEqual({
      kind: 'intent',
      intent: { operation: 'payout', currency: 'MXN', country: 'MX', amount_minor: 300000, method: 'spei' },
    });
    const body = fake.calls.at(-1)!.body as { temperature: number; messages: Array<{ content: string }> };
    expect(body.temperature).toBe(0);
    expect(body.messages[0]!.content).toContain('pagar 3000 MXN por SPEI');
  });

  it('fails, without throwing, on model errors', async () => {
    fake.setBehaviour({ kind: 'error', status: 500 });
    const x = new AnthropicExtractor({ apiKey: 'k', baseURL: fake.url, timeoutMs: 2000 });
    expect((await x.extract('cobrar 10 reais')).kind).toBe('failed');
  });
});
