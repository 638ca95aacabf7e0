import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeAnthropic, type FakeAnthropic } from '@rota/testing';
import { startFakeChatCompletions, type FakeChatCompletions } from './helpers/fake-chat-completions';
import { startStack, type Stack } from './helpers/stack';

jest.setTimeout(120_000);

const DISCOVER_ARGS = { use_case: 'send a whatsapp message', limit: 3 };

/** Runs one of test/adapters/*.mjs as its own Node program (ES modules, the built SDK) and parses what it printed. */
function program(name: string, env: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, 'adapters', `${name}.mjs`)], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${name}.mjs exited ${code}: ${err}`)),
    );
  });
}

/**
 * Each framework adapter end to end: the framework's own client sends the
 * session's meta-tools to a fake model server on 127.0.0.1 (its real wire
 * format), the model asks for `codespar_discover`, the adapter runs it
 * through the Rota session on a booted stack, and the result goes back to
 * the model.
 */
describe('@rota/sdk framework adapters, each through a fake model that calls codespar_discover', () => {
  let stack: Stack;
  let env: Record<string, string>;

  beforeAll(async () => {
    stack = await startStack({
      env: {
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        NL_EXTRACTOR: '',
        ROTA_RPC_TIMEOUT_MS: '30000',
        ROTA_DISCOVER_TIMEOUT_MS: '25000',
      },
    });
    await stack.db.prisma.provider.upsert({
      where: { id_owner: { id: 'asaas', owner: '' } },
      create: {
        id: 'asaas',
        name: 'Asaas',
        description: 'Pix, boleto and card payments in Brazil',
        category: 'payments',
        country: 'BR',
        countries: ['BR'],
        authType: 'api_key',
        selfServeAuth: true,
        baseUrls: { live: 'https://asaas.invalid' },
      },
      update: {},
    });
    const { key } = await stack.key(['servers:read', 'sessions:create', 'tools:execute']);
    env = { ROTA_URL: stack.url, ROTA_API_KEY: key };
  });
  afterAll(() => stack?.close());

  /** The discover result the adapter handed back, as the model received it. */
  const discovered = (text: string) => {
    const parsed = JSON.parse(text) as { success: boolean; data: { use_case: string; meta_tools: string[] } };
    expect(parsed.success).toBe(true);
    expect(parsed.data.use_case).toBe(DISCOVER_ARGS.use_case);
    expect(Array.isArray(parsed.data.meta_tools)).toBe(true);
  };

  it('docs/sdk.md shows lines of these programs, as they run', () => {
    const doc = readFileSync(join(__dirname, '..', 'docs', 'sdk.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Agent frameworks'));
    const snippets = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(snippets).toHaveLength(3);
    snippets.forEach((snippet, i) => {
      const source = readFileSync(join(__dirname, 'adapters', `${['openai', 'anthropic', 'ai'][i]}.mjs`), 'utf8');
      const lines = source.split('\n').map((l) => l.trim());
      for (const line of snippet
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean))
        expect(lines).toContain(line);
    });
  });

  it('the OpenAI SDK', async () => {
    const model: FakeChatCompletions = await startFakeChatCompletions('codespar_discover', DISCOVER_ARGS);
    try {
      const out = await program('openai', { ...env, MODEL_BASE_URL: model.baseURL });
      expect(out.tools).toBe(15);
      expect(model.calls).toHaveLength(2);
      expect(model.calls[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain(
        'codespar_discover',
      );
      expect(out.results).toHaveLength(1);
      expect(out.results[0].tool_call_id).toBe('call_1');
      discovered(out.results[0].content);
      // The second turn carried the tool's answer to the model, which then answered in words.
      expect(model.calls[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
      expect(out.final).toMatchObject({ role: 'assistant', content: expect.stringContaining('The tool answered') });
    } finally {
      await model.close();
    }
  });

  it('the Anthropic SDK', async () => {
    const model: FakeAnthropic = await startFakeAnthropic((call) => {
      const messages = (call.body as { messages: Array<{ role: string; content: unknown }> }).messages;
      const answered = messages.some(
        (m) => Array.isArray(m.content) && m.content.some((b: { type?: string }) => b.type === 'tool_result'),
      );
      if (answered) return { kind: 'text', text: 'The message is on its way.' };
      return {
        kind: 'raw',
        status: 200,
        body: JSON.stringify({
          id: 'msg_fake_tool',
          type: 'message',
          role: 'assistant',
          model: 'claude-fake',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'codespar_discover', input: DISCOVER_ARGS }],
          stop_reason: 'tool_use',
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 10 },
        }),
      };
    });
    try {
      const out = await program('anthropic', { ...env, MODEL_BASE_URL: model.url });
      expect(out.tools).toBe(15);
      expect(model.calls).toHaveLength(2);
      const sent = model.calls[0]!.body as { tools: Array<{ name: string; input_schema: { type: string } }> };
      expect(sent.tools.find((t) => t.name === 'codespar_discover')?.input_schema.type).toBe('object');
      expect(out.results).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_1' })]);
      discovered(out.results[0].content);
      expect(out.final).toMatchObject({
        role: 'assistant',
        content: [{ type: 'text', text: 'The message is on its way.' }],
      });
    } finally {
      await model.close();
    }
  });

  it('the Vercel AI SDK', async () => {
    const model = await startFakeChatCompletions('codespar_discover', DISCOVER_ARGS);
    try {
      const out = await program('ai', { ...env, MODEL_BASE_URL: model.baseURL });
      expect(out.tools).toBe(15);
      expect(model.calls).toHaveLength(2);
      expect(out.results).toHaveLength(1);
      expect(out.results[0].toolName).toBe('codespar_discover');
      discovered(JSON.stringify(out.results[0].output));
      expect(out.final).toContain('The tool answered');
    } finally {
      await model.close();
    }
  });
});
