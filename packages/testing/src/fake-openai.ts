import { createHash } from 'node:crypto';
import { listenOnLoopback } from './listen';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * A stand-in for the OpenAI embeddings API on 127.0.0.1, speaking the real
 * wire format (`POST /v1/embeddings`, float or base64 vectors per
 * `encoding_format`) so the official SDK can be pointed at it with `baseURL`.
 * Vectors are derived from each input's text, so a test can check that the
 * right vector landed on the right row.
 */

/** What the fake answers to the next `POST /v1/embeddings`. */
export type FakeOpenAIReply =
  /** Vectors for every input (the default). */
  | { kind: 'ok' }
  /** An error in OpenAI's shape, e.g. 429 `rate_limit_exceeded` or 500 `server_error`. */
  | { kind: 'error'; status: number; message?: string }
  /** Accept the request and never answer (until the fake is closed). */
  | { kind: 'hang' }
  /** Any status and body, for malformed answers (too few vectors, wrong sizes). */
  | { kind: 'raw'; status: number; body: string };

export type FakeOpenAIBehaviour = FakeOpenAIReply | ((call: FakeOpenAICall) => FakeOpenAIReply);

/** One embeddings request the fake received. */
export interface FakeOpenAICall {
  path: string;
  model: string;
  inputs: string[];
  encodingFormat: 'float' | 'base64';
  dimensions?: number;
  apiKey: string | undefined;
}

export interface FakeOpenAI {
  /** Root URL, e.g. `http://127.0.0.1:54321`. */
  url: string;
  /** What to hand to the SDK as `baseURL` (or OPENAI_BASE_URL): the root plus `/v1`. */
  baseURL: string;
  /** Every embeddings request received, in order (including refused and hanging ones). */
  calls: FakeOpenAICall[];
  setBehaviour(behaviour: FakeOpenAIBehaviour): void;
  close(): Promise<void>;
}

/**
 * The vector the fake returns for a text: pseudo-random from sha256 of the
 * text, unit length, float32. Exported so tests can compute what they expect.
 */
export function fakeEmbedding(text: string, dimensions = 1536): Float32Array {
  const out = new Float32Array(dimensions);
  let block = Buffer.alloc(0);
  let counter = 0;
  for (let i = 0; i < dimensions; i++) {
    if ((i * 2) % 32 === 0) block = createHash('sha256').update(`${counter++}\0${text}`).digest();
    const v = block.readUInt16LE((i * 2) % 32);
    out[i] = v / 32768 - 1;
  }
  let sum = 0;
  for (const x of out) sum += x * x;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < dimensions; i++) out[i] = out[i]! * inv;
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': `req_fake_${Date.now()}`,
  });
  res.end(text);
}

const ERROR_CODE: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
};

/** Starts the fake on a random port of 127.0.0.1. */
export async function startFakeOpenAI(behaviour: FakeOpenAIBehaviour = { kind: 'ok' }): Promise<FakeOpenAI> {
  let current = behaviour;
  const calls: FakeOpenAICall[] = [];

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.method !== 'POST' || path !== '/v1/embeddings') {
        sendJson(res, 404, {
          error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error', param: null, code: null },
        });
        return;
      }
      let body: { model?: unknown; input?: unknown; encoding_format?: unknown; dimensions?: unknown };
      try {
        body = JSON.parse(raw);
      } catch {
        sendJson(res, 400, {
          error: { message: 'body is not JSON', type: 'invalid_request_error', param: null, code: null },
        });
        return;
      }
      const inputs =
        typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input.map(String) : [];
      const auth = req.headers.authorization;
      const call: FakeOpenAICall = {
        path,
        model: String(body.model ?? ''),
        inputs,
        encodingFormat: body.encoding_format === 'base64' ? 'base64' : 'float',
        dimensions: typeof body.dimensions === 'number' ? body.dimensions : undefined,
        apiKey: typeof auth === 'string' ? auth.replace(/^bearer\s+/i, '') : undefined,
      };
      calls.push(call);
      const reply = typeof current === 'function' ? current(call) : current;
      switch (reply.kind) {
        case 'hang':
          return;
        case 'raw':
          res.writeHead(reply.status, { 'content-type': 'application/json' });
          res.end(reply.body);
          return;
        case 'error': {
          const e = ERROR_CODE[reply.status] ?? { type: 'server_error', code: null };
          sendJson(res, reply.status, {
            error: { message: reply.message ?? 'fake error', type: e.type, param: null, code: e.code },
          });
          return;
        }
        case 'ok': {
          if (inputs.length === 0) {
            sendJson(res, 400, {
              error: { message: "'input' is required", type: 'invalid_request_error', param: 'input', code: null },
            });
            return;
          }
          const dims = call.dimensions ?? 1536;
          sendJson(res, 200, {
            object: 'list',
            data: inputs.map((text, index) => {
              const v = fakeEmbedding(text, dims);
              return {
                object: 'embedding',
                index,
                embedding:
                  call.encodingFormat === 'base64'
                    ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')
                    : Array.from(v),
              };
            }),
            model: call.model,
            usage: {
              prompt_tokens: inputs.reduce((n, t) => n + Math.ceil(t.length / 4), 0),
              total_tokens: inputs.reduce((n, t) => n + Math.ceil(t.length / 4), 0),
            },
          });
          return;
        }
      }
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  const listening = await listenOnLoopback(server);
  const url = listening.url;
  return {
    url,
    baseURL: `${url}/v1`,
    calls,
    setBehaviour(next) {
      current = next;
    },
    close: listening.close,
  };
}
