import type { ArgumentsHost } from '@nestjs/common';
import type { Logger } from 'pino';
import { EnvelopeFilter } from './envelope.filter';

/** Runs the filter on `exception` for a request to `url`; returns what was logged and sent. */
function render(exception: unknown, url: string) {
  const logged: { level: string; fields: Record<string, unknown> }[] = [];
  const log = {
    error: (fields: Record<string, unknown>) => logged.push({ level: 'error', fields }),
    warn: (fields: Record<string, unknown>) => logged.push({ level: 'warn', fields }),
  } as unknown as Logger;
  const sent: { status?: number; body?: string } = {};
  const reply = {
    status(code: number) {
      sent.status = code;
      return reply;
    },
    header() {
      return reply;
    },
    send(body: string) {
      sent.body = body;
      return reply;
    },
  };
  const req = { id: 'req-1', url, routeOptions: { config: undefined } };
  const host = {
    switchToHttp: () => ({ getRequest: () => req, getResponse: () => reply }),
  } as unknown as ArgumentsHost;
  new EnvelopeFilter(log).catch(exception, host);
  return { logged, sent };
}

describe('EnvelopeFilter', () => {
  it('logs an unexpected 500 with the URL masked, as the access log does', () => {
    const { logged, sent } = render(new TypeError('bug'), '/v1/servers?api_key=csk_live_abc123&limit=5');
    expect(sent.status).toBe(500);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 'error',
      fields: { request_id: 'req-1', route: '/v1/servers?api_key=[REDACTED]&limit=5' },
    });
    expect(JSON.stringify(logged[0]?.fields)).not.toContain('csk_live_abc123');
  });

  it('answers a lost dependency 503 and logs it as a warning, the URL masked too', () => {
    const { logged, sent } = render(new Error('Connection is closed.'), '/dashboard?token=secret-value');
    expect(sent.status).toBe(503);
    expect(JSON.parse(sent.body ?? '{}')).toMatchObject({ error: 'unavailable', request_id: 'req-1' });
    expect(logged).toEqual([
      { level: 'warn', fields: expect.objectContaining({ route: '/dashboard?token=[REDACTED]' }) },
    ]);
  });
});
