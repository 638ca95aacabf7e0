import type { LogEntry } from '@rota/contracts';
import { formatLogLine, readEvents, type SseEvent } from './logs';

/** A body that arrives in the given chunks, as a socket delivers it. */
function body(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(enc.encode(chunk));
      c.close();
    },
  });
}

async function collect(chunks: string[]) {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  await readEvents(
    body(chunks),
    (e) => void events.push(e),
    (ms) => retries.push(ms),
  );
  return { events, retries };
}

describe('readEvents', () => {
  it('parses events split anywhere across chunks, with comments, retry and any line ending', async () => {
    const { events, retries } = await collect([
      'retry: 2000\n: connected\n\n',
      'id: 1-0\nevent: ca',
      'll\ndata: {"a":1}\n\n: heartbeat\n\n',
      'id: 2-0\r\nevent: call\r\ndata: line one\r',
      '\ndata: line two\r\n\r\n',
      'event: gap\ndata:{"after":"0-1"}\n\n',
      'data: no event name\n\n',
    ]);
    expect(retries).toEqual([2000]);
    expect(events).toEqual([
      { id: '1-0', event: 'call', data: '{"a":1}' },
      { id: '2-0', event: 'call', data: 'line one\nline two' },
      { id: null, event: 'gap', data: '{"after":"0-1"}' },
      { id: null, event: 'message', data: 'no event name' },
    ]);
  });

  it('ignores an unfinished event at the end and stops when told to', async () => {
    expect((await collect(['id: 1-0\nevent: call\ndata: half'])).events).toEqual([]);
    const seen: string[] = [];
    await readEvents(body(['data: a\n\ndata: b\n\ndata: c\n\n']), (e) => {
      seen.push(e.data);
      return seen.length < 2;
    });
    expect(seen).toEqual(['a', 'b']);
  });
});

describe('formatLogLine', () => {
  const entry: LogEntry = {
    id: 'tc_1',
    called_at: '2026-12-04T10:00:00.000Z',
    request_id: null,
    org_id: 'org_1',
    project_id: 'proj_1',
    environment: 'live',
    session_id: 'ses_1',
    user_id: 'user_1',
    connection_id: 'conn_1',
    tool: 'asaas/create_payment',
    server: 'asaas',
    endpoint: null,
    parameters: {},
    outcome: 'error',
    error_code: 'upstream_error',
    error: 'declined',
    upstream_status: 402,
    latency_ms: 41,
    bytes_in: 10,
    bytes_out: 20,
    attempts: 2,
    retries: 1,
    rail_id: null,
    attempt_log: null,
  };

  it('prints one line with what was called, how it ended and for whom', () => {
    const line = formatLogLine(entry);
    expect(line).not.toContain('\n');
    for (const part of [
      '2026-12-04T10:00:00.000Z',
      'error',
      'asaas/create_payment [402] upstream_error',
      '41ms',
      'attempts=2',
      'session=ses_1',
      'user=user_1',
      'tc_1',
    ]) {
      expect(line).toContain(part);
    }
    expect(
      formatLogLine({ ...entry, tool: 'proxy', endpoint: 'POST /v3/payments', session_id: null, user_id: null }),
    ).toContain('asaas POST /v3/payments [402]');
    expect(formatLogLine({ ...entry, session_id: null, user_id: null })).toContain('project');
  });
});
