import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen';

/**
 * A stand-in for the Anthropic Messages API on 127.0.0.1, speaking the real
 * wire format so the official SDK can be pointed at it with `baseURL`.
 * Tests choose what it answers and read back what it was sent.
 */

/** What the fake answers to the next `POST /v1/messages`. */
export type FakeAnthropicReply =
  /** A normal assistant message whose only content block is this text. */
  | { kind: 'text'; text: string }
  /** An error in Anthropic's shape, e.g. 429 `rate_limit_error` or 500 `api_error`. */
  | { kind: 'error'; status: number; type?: string; message?: string }
  /** Accept the request and never answer (until the fake is closed). */
  | { kind: 'hang' }
  /** Any status and body, for malformed responses. */
  | { kind: 'raw'; status: number; body: string; contentType?: string };

/** A fixed reply, or one computed from the request. */
export type FakeAnthropicBehaviour = FakeAnthropicReply | ((call: FakeAnthropicCall) => FakeAnthropicReply);

/** One request the fake received. */
export interface FakeAnthropicCall {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** The credential sent, from `x-api-key` or a bearer `authorization` header (SDKs use either). */
  apiKey: string | undefined;
}

function credentialOf(headers: IncomingMessage['headers']): string | undefined {
  const key = headers['x-api-key'];
  if (typeof key === 'string' && key) return key;
  const auth = headers.authorization;
  return typeof auth === 'string' && /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, '') : undefined;
}

export interface FakeAnthropic {
  /** Base URL to hand to the SDK, e.g. `http://127.0.0.1:54321`. */
  url: string;
  /** Every request received, in order. */
  calls: FakeAnthropicCall[];
  /** Replaces the behaviour for the requests that follow. */
  setBehaviour(behaviour: FakeAnthropicBehaviour): void;
  /** Stops the server, dropping any request left hanging. */
  close(): Promise<void>;
}

const ERROR_TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, requestId: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'request-id': requestId,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Starts the fake on a random port of 127.0.0.1. */
export async function startFakeAnthropic(
  behaviour: FakeAnthropicBehaviour = { kind: 'text', text: '{"hits":[]}' },
): Promise<FakeAnthropic> {
  let current = behaviour;
  let counter = 0;
  const calls: FakeAnthropicCall[] = [];

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // keep the raw text
      }
      const call: FakeAnthropicCall = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        apiKey: credentialOf(req.headers),
      };
      calls.push(call);
      counter++;
      const requestId = `req_fake_${counter}`;
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || path !== '/v1/messages') {
        sendJson(
          res,
          404,
          { type: 'error', error: { type: 'not_found_error', message: `no route ${req.method} ${path}` } },
          requestId,
        );
        return;
      }
      const reply = typeof current === 'function' ? current(call) : current;
      switch (reply.kind) {
        case 'hang':
          return;
        case 'raw':
          res.writeHead(reply.status, {
            'content-type': reply.contentType ?? 'application/json',
            'request-id': requestId,
          });
          res.end(reply.body);
          return;
        case 'error':
          sendJson(
            res,
            reply.status,
            {
              type: 'error',
              error: {
                type: reply.type ?? ERROR_TYPE_BY_STATUS[reply.status] ?? 'api_error',
                message: reply.message ?? 'fake error',
              },
            },
            requestId,
          );
          return;
        case 'text': {
          const model =
            typeof body === 'object' && body !== null && 'model' in body
              ? String((body as { model: unknown }).model)
              : 'unknown';
          sendJson(
            res,
            200,
            {
              id: `msg_fake_${counter}`,
              type: 'message',
              role: 'assistant',
              model,
              content: [{ type: 'text', text: reply.text }],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: Math.ceil(raw.length / 4), output_tokens: Math.ceil(reply.text.length / 4) },
            },
            requestId,
          );
          return;
        }
      }
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  const listening = await listenOnLoopback(server);

  return {
    url: listening.url,
    calls,
    setBehaviour(next) {
      current = next;
    },
    close: listening.close,
  };
}
