import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AddressRefusedError, checkedLookup, literalAddressRefused } from '@rota/providers/address';

export interface SendResult {
  /** The receiver's status; null when no answer came. */
  status: number | null;
  error: string | null;
  ms: number;
}

/** Largest answer read back from a receiver (only its status matters). */
const MAX_ANSWER = 64 * 1024;

/**
 * POSTs one delivery under a deadline. The receiver's address is checked
 * with the classifier of provider calls and the socket is pinned to the
 * address that was checked; redirects are not followed.
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  // One client span per attempt, a child of the deliver job's span. Like a
  // provider call's, it names the call, never its content: no URL (a
  // receiver's query may carry a token), header or body.
  const span = trace.getTracer('rota.webhooks').startSpan('POST webhook', { kind: SpanKind.CLIENT });
  return attempt(url, headers, body, opts).then((r) => {
    if (span.isRecording()) {
      span.setAttribute('http.request.method', 'POST');
      try {
        const target = new URL(url);
        span.setAttributes({
          'server.address': target.hostname,
          'server.port': Number(target.port) || (target.protocol === 'https:' ? 443 : 80),
        });
      } catch {
        // An invalid URL fails the attempt; the span says so through its error.
      }
      if (r.status !== null) span.setAttribute('http.response.status_code', r.status);
      if (r.status === null || r.status >= 300) {
        span.setAttribute('error.type', r.status === null ? 'no_answer' : String(r.status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    span.end();
    return r;
  });
}

function attempt(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const started = performance.now();
  const done = (status: number | null, error: string | null): SendResult => ({
    status,
    error,
    ms: Math.round(performance.now() - started),
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done(null, 'the URL is not valid'));
  }
  const refused = literalAddressRefused(target.hostname, opts.allowPrivate);
  if (refused) return Promise.resolve(done(null, refused.message));
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Rota-Webhooks/1',
          ...headers,
        },
        lookup: checkedLookup(opts.allowPrivate),
        timeout: opts.timeoutMs,
        signal: AbortSignal.timeout(opts.timeoutMs),
      },
      (res: IncomingMessage) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER) res.destroy();
        });
        res.on('close', () => resolve(done(res.statusCode ?? null, null)));
        res.on('error', () => undefined);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.on('error', (err: Error) => {
      const message =
        err instanceof AddressRefusedError
          ? err.message
          : err.name === 'AbortError'
            ? `no answer within ${opts.timeoutMs} ms`
            : err.message;
      resolve(done(null, message));
    });
    req.end(body);
  });
}

/** Whether a URL's host is one a delivery may reach, judged now (a host name that resolves later is checked again at each attempt). */
export async function webhookUrlRefusal(url: string, allowPrivate: boolean): Promise<string | undefined> {
  const target = new URL(url);
  const literal = literalAddressRefused(target.hostname, allowPrivate);
  if (literal) return literal.message;
  if (allowPrivate) return undefined;
  const lookup = checkedLookup(false);
  return new Promise((resolve) => {
    lookup(target.hostname.replace(/^\[|\]$/g, ''), { all: true }, (err: Error | null) => {
      if (err instanceof AddressRefusedError) resolve(err.message);
      // A host that does not resolve now may later; only a refused address is final.
      else resolve(undefined);
    });
  });
}
