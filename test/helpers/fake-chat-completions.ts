import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for OpenAI's Chat Completions API (`POST /v1/chat/completions`,
 * not streamed) on 127.0.0.1, speaking the real wire format so the official
 * SDK and the Vercel AI SDK's OpenAI provider can be pointed at it. It plays
 * a model that calls one tool, then answers in words once it has the result.
 */
export interface FakeChatCompletions {
  /** What to hand to an SDK as `baseURL`: the root plus `/v1`. */
  baseURL: string;
  /** Every request body received, in order. */
  calls: Array<{ path: string; body: any; authorization: string | undefined }>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Starts the fake. The first turn of a conversation (no `tool` message yet)
 * asks for `tool` with `args`; a later turn answers text quoting the start
 * of the last tool result.
 */
export async function startFakeChatCompletions(
  tool: string,
  args: Record<string, unknown>,
): Promise<FakeChatCompletions> {
  const calls: FakeChatCompletions['calls'] = [];
  let n = 0;
  const server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const body = raw ? JSON.parse(raw) : undefined;
      calls.push({ path: req.url ?? '', body, authorization: req.headers.authorization });
      const send = (status: number, payload: unknown) => {
        const text = JSON.stringify(payload);
        res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_fake_${n}` });
        res.end(text);
      };
      if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/chat/completions')
        return send(404, {
          error: {
            message: `no route ${req.method} ${req.url}`,
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        });
      n++;
      const messages = (body?.messages ?? []) as Array<{ role: string; content: unknown }>;
      const toolMessages = messages.filter((m) => m.role === 'tool');
      const usage = {
        prompt_tokens: Math.ceil(raw.length / 4),
        completion_tokens: 12,
        total_tokens: Math.ceil(raw.length / 4) + 12,
      };
      const base = {
        id: `chatcmpl-fake${n}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body?.model ?? 'fake',
        usage,
      };
      if (toolMessages.length === 0) {
        return send(200, {
          ...base,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: null,
                refusal: null,
                tool_calls: [
                  { id: `call_${n}`, type: 'function', function: { name: tool, arguments: JSON.stringify(args) } },
                ],
              },
              finish_reason: 'tool_calls',
              logprobs: null,
            },
          ],
        });
      }
      const last = toolMessages[toolMessages.length - 1]!.content;
      const text = typeof last === 'string' ? last : JSON.stringify(last);
      send(200, {
        ...base,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: `The tool answered: ${text.slice(0, 80)}`, refusal: null },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
