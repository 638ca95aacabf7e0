import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic';

describe('startFakeAnthropic', () => {
  let fake: FakeAnthropic;
  afterEach(async () => {
    await fake.close();
  });

  const post = (body: unknown, signal?: AbortSignal) =>
    fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify(body),
      signal,
    });

  it('answers a Messages API response and records the call', async () => {
    fake = await startFakeAnthropic({ kind: 'text', text: 'hello' });
    const res = await post({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    const json = (await res.json()) as Record<string, unknown>;
    expect(json).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'text', text: 'hello' }],
      stop_reason: 'end_turn',
    });
    expect(json['usage']).toEqual({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.apiKey).toBe('k');
    expect(fake.calls[0]!.body).toMatchObject({ model: 'm' });
  });

  it('answers errors in the Anthropic shape and can change behaviour between requests', async () => {
    fake = await startFakeAnthropic({ kind: 'error', status: 429 });
    const limited = await post({});
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'fake error' } });
    fake.setBehaviour({ kind: 'error', status: 500, message: 'boom' });
    const broken = await post({});
    expect(broken.status).toBe(500);
    expect(await broken.json()).toEqual({ type: 'error', error: { type: 'api_error', message: 'boom' } });
  });

  it('can hang until the client gives up, and still closes', async () => {
    fake = await startFakeAnthropic({ kind: 'hang' });
    const client = new AbortController();
    const pending = post({}, client.signal);
    // Give up only once the fake has the request, however busy the machine is.
    while (fake.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    client.abort();
    await expect(pending).rejects.toThrow();
    expect(fake.calls).toHaveLength(1);
  });

  it('reads a bearer credential too', async () => {
    fake = await startFakeAnthropic();
    await fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { authorization: 'Bearer tok' }, body: '{}' });
    expect(fake.calls[0]!.apiKey).toBe('tok');
  });

  it('answers 404 outside POST /v1/messages', async () => {
    fake = await startFakeAnthropic();
    const res = await fetch(`${fake.url}/v1/other`);
    expect(res.status).toBe(404);
  });
});
