import { fakeEmbedding, startFakeOpenAI, type FakeOpenAI } from '@rota/testing';
import { createEmbedder, currentEmbeddingModel, embedderKind } from './config';
import { cosine, EmbeddingError } from './embedder';
import { LOCAL_EMBEDDING_MODEL, LocalEmbedder } from './local-embedder';
import { LocalEmbedderPool } from './local-embedder-pool';
import { HYBRID_EMBEDDING_MODEL } from './hybrid-embedder';
import { NEURAL_EMBEDDING_MODEL } from './neural-embedder';
import { OPENAI_EMBEDDING_MODEL, OpenAIEmbedder } from './openai-embedder';

describe('OpenAIEmbedder against a fake embeddings server', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.calls.length = 0;
    fake.setBehaviour({ kind: 'ok' });
  });

  it('sends many inputs per request, asks for floats at 1536 dimensions, and returns them in order', async () => {
    const e = new OpenAIEmbedder({ apiKey: 'sk-x', baseURL: fake.baseURL, maxInputsPerRequest: 3 });
    const texts = ['a', 'b', 'c', 'd', 'e'];
    const out = await e.embed(texts);
    expect(fake.calls.map((c) => c.inputs)).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
    expect(fake.calls[0]).toMatchObject({
      model: OPENAI_EMBEDDING_MODEL,
      encodingFormat: 'float',
      dimensions: 1536,
      apiKey: 'sk-x',
    });
    out.forEach((v, i) => expect(cosine(v, fakeEmbedding(texts[i]!))).toBeCloseTo(1, 6));
    expect(e.requests).toBe(2);
  });

  it('decodes base64 answers too', async () => {
    fake.setBehaviour((call) => {
      call.encodingFormat = 'base64';
      return { kind: 'ok' };
    });
    const [v] = await new OpenAIEmbedder({ apiKey: 'sk-x', baseURL: fake.baseURL }).embed(['hola']);
    expect(cosine(v!, fakeEmbedding('hola'))).toBeCloseTo(1, 6);
  });

  it.each([
    [{ kind: 'error', status: 500 } as const, true],
    [{ kind: 'error', status: 429 } as const, true],
    [{ kind: 'error', status: 401 } as const, false],
    [{ kind: 'error', status: 400 } as const, false],
    [{ kind: 'raw', status: 200, body: '{"object":"list","data":[],"model":"m"}' } as const, true],
  ])('turns %j into an EmbeddingError (retryable: %s), one request, no SDK retries', async (reply, retryable) => {
    fake.setBehaviour(reply);
    const err = await new OpenAIEmbedder({ apiKey: 'sk-x', baseURL: fake.baseURL })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingError);
    expect((err as EmbeddingError).retryable).toBe(retryable);
    expect(fake.calls).toHaveLength(1);
  });

  it('gives up on a hanging server at its deadline', async () => {
    fake.setBehaviour({ kind: 'hang' });
    const err = await new OpenAIEmbedder({ apiKey: 'sk-x', baseURL: fake.baseURL, timeoutMs: 200 })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingError);
    expect((err as Error).message).toMatch(/did not answer within 200 ms/);
  });

  it('refuses vectors of the wrong size', async () => {
    fake.setBehaviour({
      kind: 'raw',
      status: 200,
      body: JSON.stringify({
        object: 'list',
        data: [{ object: 'embedding', index: 0, embedding: [1, 0, 0] }],
        model: 'm',
      }),
    });
    await expect(new OpenAIEmbedder({ apiKey: 'sk-x', baseURL: fake.baseURL }).embed(['x'])).rejects.toThrow(
      /3 dimensions/,
    );
  });
});

describe('createEmbedder', () => {
  it('defaults to the local embedder without a key, and to OpenAI with one', () => {
    expect(embedderKind({})).toBe('local');
    // The local default is the sentence encoder with the hashing features, on
    // worker threads; the encoder alone and the hashing model are selectable.
    const hybrid = createEmbedder({});
    expect(hybrid).toBeInstanceOf(LocalEmbedderPool);
    expect(hybrid.model).toBe(HYBRID_EMBEDDING_MODEL);
    expect(currentEmbeddingModel({ OPENAI_API_KEY: '' })).toBe(HYBRID_EMBEDDING_MODEL);
    expect(currentEmbeddingModel({ ROTA_LOCAL_EMBEDDER: '' })).toBe(HYBRID_EMBEDDING_MODEL);
    expect(createEmbedder({ ROTA_LOCAL_EMBEDDER: 'hybrid' }).model).toBe(HYBRID_EMBEDDING_MODEL);
    const neural = createEmbedder({ ROTA_LOCAL_EMBEDDER: 'neural' });
    expect(neural).toBeInstanceOf(LocalEmbedderPool);
    expect(neural.model).toBe(NEURAL_EMBEDDING_MODEL);
    expect(createEmbedder({ ROTA_LOCAL_EMBEDDER: 'hash' })).toBeInstanceOf(LocalEmbedder);
    expect(currentEmbeddingModel({ ROTA_LOCAL_EMBEDDER: 'hash' })).toBe(LOCAL_EMBEDDING_MODEL);
    expect(() => createEmbedder({ ROTA_LOCAL_EMBEDDER: 'bert' })).toThrow(/ROTA_LOCAL_EMBEDDER/);
    expect(createEmbedder({ OPENAI_API_KEY: 'sk-1' })).toBeInstanceOf(OpenAIEmbedder);
    expect(currentEmbeddingModel({ OPENAI_API_KEY: 'sk-1' })).toBe(OPENAI_EMBEDDING_MODEL);
    expect(currentEmbeddingModel({ OPENAI_API_KEY: 'sk-1', ROTA_EMBEDDER: 'local', ROTA_LOCAL_EMBEDDER: 'hash' })).toBe(
      LOCAL_EMBEDDING_MODEL,
    );
    expect(
      currentEmbeddingModel({ OPENAI_API_KEY: 'sk-1', ROTA_OPENAI_EMBEDDING_MODEL: 'text-embedding-3-large' }),
    ).toBe('text-embedding-3-large');
    expect(() => createEmbedder({ ROTA_EMBEDDER: 'openai' })).toThrow(/needs OPENAI_API_KEY/);
    expect(() => createEmbedder({ ROTA_EMBEDDER: 'magic' })).toThrow(/ROTA_EMBEDDER/);
  });
});
