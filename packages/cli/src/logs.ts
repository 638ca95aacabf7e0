/**
 * `rota logs tail`: follows the call records of the key's project and
 * environment live, over `GET /v1/logs/stream` (Server-Sent Events), with an
 * API key like every HTTP command. A dropped stream is reopened with
 * `Last-Event-ID`, so nothing is missed or printed twice while the position
 * is within the stream's retention.
 */
import type { LogEntry } from '@rota/contracts';
import type { Command } from 'commander';
import { resolveConnection, RotaError } from './http';
import { CliError, type CliIo } from './io';

/** One Server-Sent Event. */
export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

/**
 * Parses a `text/event-stream` body (the WHATWG rules: `field: value`
 * lines, a blank line ends an event, `:` starts a comment) and calls
 * `onEvent` for each event; `onRetry` gets the server's reconnection delay.
 * Resolves when the body ends, or when `onEvent` returns `false`.
 */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (e: SseEvent) => boolean | void,
  onRetry: (ms: number) => void = () => undefined,
): Promise<void> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let id: string | null = null;
  let event = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.search(/\r\n|\n|\r/)) >= 0) {
        // A CR that ends the chunk may be the first half of a CRLF: wait for the next chunk.
        if (nl === buffer.length - 1 && buffer.endsWith('\r')) break;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (data.length > 0 && onEvent({ id, event: event || 'message', data: data.join('\n') }) === false) return;
          event = '';
          data = [];
          id = null;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const v = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(v);
        else if (field === 'event') event = v;
        else if (field === 'id') id = v;
        else if (field === 'retry' && /^\d+$/.test(v)) onRetry(Number(v));
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** One human line per call: when, how it ended, what was called, for whom. */
export function formatLogLine(e: LogEntry): string {
  const what = e.endpoint ? `${e.server ?? ''} ${e.endpoint}`.trim() : e.tool;
  const status = e.upstream_status === null ? '' : ` [${e.upstream_status}]`;
  const code = e.error_code ? ` ${e.error_code}` : '';
  const who = [e.session_id ? `session=${e.session_id}` : 'project', e.user_id ? `user=${e.user_id}` : '']
    .filter(Boolean)
    .join(' ');
  const attempts = e.attempts > 1 ? ` attempts=${e.attempts}` : '';
  return `${e.called_at}  ${e.outcome.padEnd(15)} ${what}${status}${code}  ${e.latency_ms}ms${attempts}  ${who}  ${e.id}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface TailOptions {
  session?: string;
  json?: boolean;
  since?: string;
  limit?: number;
}

/**
 * Opens the stream and prints until `--limit` events (or forever). A refusal
 * when opening (a bad key, a missing scope) ends the command; a stream that
 * drops after it opened is reopened from the last event printed.
 */
async function tail(io: CliIo, o: TailOptions): Promise<void> {
  const c = resolveConnection(io);
  const url = new URL('/v1/logs/stream', c.url);
  if (o.session) url.searchParams.set('session_id', o.session);
  let lastId = o.since ?? null;
  let printed = 0;
  let retryMs = 2000;
  let opened = false;
  for (;;) {
    let res: Response;
    try {
      res = await fetch(url, {
        headers: {
          authorization: `Bearer ${c.api_key}`,
          accept: 'text/event-stream',
          ...(lastId ? { 'last-event-id': lastId } : {}),
        },
      });
    } catch (err) {
      // Never reached the gateway: a failure at once, a pause once the stream has worked.
      if (!opened)
        throw new RotaError({
          status: 0,
          code: 'unreachable',
          message: `could not reach ${c.url}: ${(err as Error).message}`,
          cause: err,
        });
      await sleep(retryMs);
      continue;
    }
    if (res.status !== 200 || !res.body) {
      const text = await res.text().catch(() => '');
      let body: { error?: string; message?: string; request_id?: string } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // Not JSON: reported by status alone.
      }
      // A replica shutting down or busy: another try, once the stream has worked.
      if (opened && res.status === 503) {
        await sleep(retryMs);
        continue;
      }
      throw new RotaError({
        status: res.status,
        code: body.error ?? 'http_error',
        message: body.message ?? `the gateway answered ${res.status}`,
        requestId: body.request_id ?? res.headers.get('x-request-id'),
        body,
      });
    }
    opened = true;
    let done = false;
    await readEvents(
      res.body,
      (e) => {
        if (e.event === 'gap') {
          if (o.json) io.stdout(`${JSON.stringify({ event: 'gap', data: JSON.parse(e.data) as unknown })}\n`);
          else
            io.stderr(
              `note: calls after ${lastId ?? 'the start'} were trimmed from the stream; GET /v1/logs lists them\n`,
            );
          return;
        }
        if (e.event !== 'call') return;
        if (e.id) lastId = e.id;
        const entry = JSON.parse(e.data) as LogEntry;
        io.stdout(
          o.json ? `${JSON.stringify({ id: e.id, event: e.event, data: entry })}\n` : `${formatLogLine(entry)}\n`,
        );
        printed++;
        if (o.limit !== undefined && printed >= o.limit) {
          done = true;
          return false;
        }
      },
      (ms) => (retryMs = ms),
    ).catch(() => undefined);
    if (done) return;
    await sleep(retryMs);
  }
}

export function registerLogsCommands(program: Command, io: CliIo): void {
  const logs = program.command('logs').description('Call records of the key’s project and environment');
  logs
    .command('tail')
    .description(
      'Follow calls live as they finish (GET /v1/logs/stream, scope logs:read); reconnects by itself and resumes where it stopped',
    )
    .option('--session <id>', 'only calls of this session')
    .option('--json', 'one JSON object per line: {id, event, data} with the call record as data')
    .option('--since <event-id>', 'start right after this event id (an `id` printed with --json) instead of now')
    .option('--limit <n>', 'stop after this many calls', (raw: string) => {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1) throw new CliError(`--limit must be a whole number above 0, got ${raw}`);
      return n;
    })
    .action(async (o: TailOptions) => {
      if (o.since !== undefined && !/^\d{1,20}-\d{1,20}$/.test(o.since))
        throw new CliError(`--since expects an event id such as 1733300000000-0, got ${o.since}`);
      await tail(io, o);
    });
}
