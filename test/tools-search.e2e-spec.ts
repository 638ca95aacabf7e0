import { META_TOOL_NAMES } from '@rota/contracts';
import { startFakeAnthropic, type FakeAnthropic } from '@rota/testing';
import { http, startStack, type Stack } from './helpers/stack';

const post = (stack: Stack, key: string, body: unknown, headers: Record<string, string> = {}) =>
  http(`${stack.url}/v1/tools/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, ...headers },
    json: body,
  });

describe('path A: POST /v1/tools/search and /meta-tools.json', () => {
  describe('without a model key (lexical fallback)', () => {
    let stack: Stack;
    let key: string;
    beforeAll(async () => {
      stack = await startStack({ env: { ANTHROPIC_API_KEY: '' } });
      key = (await stack.key(['servers:read'])).key;
    });
    afterAll(() => stack.close());

    it('answers a Portuguese intent with the right meta-tool, marked fallback with its reason', async () => {
      const r = await post(stack, key, { intent: 'quero cobrar um cliente via pix em reais' });
      expect(r.status).toBe(200);
      expect(r.json.source).toBe('fallback');
      expect(r.json.fallback_reason).toBe('no_model_key');
      expect(r.json.intent).toBe('quero cobrar um cliente via pix em reais');
      expect(r.json.hits[0].tool_name).toBe('codespar_charge');
      expect(r.json.hits.length).toBeLessThanOrEqual(3);
      expect(typeof r.json.elapsed_ms).toBe('number');
      for (const h of r.json.hits) expect(META_TOOL_NAMES).toContain(h.tool_name);
    });

    it('gives the same bytes for every caller (apart from timing)', async () => {
      const other = (await stack.key(['servers:read'], { environment: 'test' })).key;
      const body = { intent: 'emitir nota fiscal de serviço', limit: 2 };
      const a = await post(stack, key, body);
      const b = await post(stack, other, body);
      expect({ ...a.json, elapsed_ms: 0 }).toEqual({ ...b.json, elapsed_ms: 0 });
      expect(a.json.hits.length).toBeLessThanOrEqual(2);
    });

    it('answers [] or only low for an intent no meta-tool serves', async () => {
      const r = await post(stack, key, { intent: 'book me a flight to Lisbon next friday' });
      expect(r.status).toBe(200);
      expect(r.json.hits.every((h: { confidence: string }) => h.confidence === 'low')).toBe(true);
    });

    it.each([
      ['empty intent', { intent: '' }],
      ['intent of 2001 characters', { intent: 'a'.repeat(2001) }],
      ['limit 0', { intent: 'pix', limit: 0 }],
      ['limit 6', { intent: 'pix', limit: 6 }],
      ['limit 1000', { intent: 'pix', limit: 1000 }],
      ['limit as a string', { intent: 'pix', limit: '3' }],
      ['extra fields', { intent: 'pix', junk: true }],
      ['missing intent', { limit: 2 }],
      ['not an object', ['pix']],
    ])('400 invalid_body with issues for %s', async (_label, body) => {
      const r = await post(stack, key, body, { 'x-request-id': 'val-1' });
      expect(r.status).toBe(400);
      expect(r.json.error).toBe('invalid_body');
      expect(r.json.request_id).toBe('val-1');
      expect(Array.isArray(r.json.issues)).toBe(true);
      expect(r.json.issues.length).toBeGreaterThan(0);
    });

    it('accepts 2000 characters exactly', async () => {
      const r = await post(stack, key, { intent: 'pix '.repeat(500) });
      expect(r.status).toBe(200);
    });

    it('401 raw body without a key, 403 scope message without servers:read', async () => {
      const none = await http(`${stack.url}/v1/tools/search`, { method: 'POST', json: { intent: 'pix' } });
      expect(none.status).toBe(401);
      expect(none.text).toBe('{"error":"unauthorized"}');
      const narrow = (await stack.key(['tools:execute'])).key;
      const r = await post(stack, narrow, { intent: 'pix' });
      expect(r.status).toBe(403);
      expect(r.json).toMatchObject({ error: 'forbidden', message: "API key does not have the 'servers:read' scope." });
    });

    it('serves /meta-tools.json and /v1/meta-tools.json: same bytes, 15 tools, cache headers, 304', async () => {
      const a = await http(`${stack.url}/meta-tools.json`);
      const b = await http(`${stack.url}/v1/meta-tools.json`);
      expect(a.status).toBe(200);
      expect(a.text).toBe(b.text);
      expect(a.json.generated_from).toBe('tools/list');
      expect(a.json.tools.map((t: { name: string }) => t.name)).toEqual([...META_TOOL_NAMES]);
      for (const t of a.json.tools) {
        expect(Object.keys(t).sort()).toEqual(['description', 'inputSchema', 'name']);
        expect(t.inputSchema.type).toBe('object');
      }
      expect(a.headers.get('access-control-allow-origin')).toBe('*');
      expect(a.headers.get('cache-control')).toBe('public, max-age=300');
      const etag = a.headers.get('etag')!;
      expect(etag).toMatch(/^"[^"]+"$/);
      expect(b.headers.get('etag')).toBe(etag);
      const again = await http(`${stack.url}/meta-tools.json`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
    });
  });

  describe('with a model behind a fake Anthropic server', () => {
    let stack: Stack;
    let fake: FakeAnthropic;
    let key: string;
    beforeAll(async () => {
      fake = await startFakeAnthropic();
      stack = await startStack({
        env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: fake.url, ROTA_TOOL_SEARCH_TIMEOUT_MS: '500' },
      });
      key = (await stack.key(['servers:read'])).key;
    });
    afterAll(async () => {
      await stack.close();
      await fake.close();
    });

    it('uses the model answer, dropping invented names', async () => {
      fake.setBehaviour({
        kind: 'text',
        text: JSON.stringify({
          hits: [
            { tool_name: 'codespar_charge', confidence: 'high', rationale: 'collects money' },
            { tool_name: 'codespar_teleport', confidence: 'high', rationale: 'invented' },
          ],
        }),
      });
      const r = await post(stack, key, { intent: 'charge a customer in BRL with pix' });
      expect(r.status).toBe(200);
      expect(r.json.source).toBe('llm');
      expect(r.json.fallback_reason).toBeUndefined();
      expect(r.json.hits.map((h: { tool_name: string }) => h.tool_name)).toEqual(['codespar_charge']);
      const sent = fake.calls.at(-1)!.body as { model: string; max_tokens: number; temperature: number };
      expect(sent).toMatchObject({ model: 'claude-haiku-4-5-20251001', max_tokens: 512, temperature: 0 });
    });

    it('falls back with unparseable_output on garbage', async () => {
      fake.setBehaviour({ kind: 'text', text: 'I think you want to charge, probably.' });
      const r = await post(stack, key, { intent: 'charge a customer in BRL with pix' });
      expect(r.json).toMatchObject({ source: 'fallback', fallback_reason: 'unparseable_output' });
      expect(r.json.hits[0].tool_name).toBe('codespar_charge');
    });
  });
});
