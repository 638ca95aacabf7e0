import { LOG_EVENT_PARAMETERS_MAX_BYTES, LogEntry } from '@rota/contracts';
import { streamedEntry } from './call-log.publisher';
import { outcomeOf, toLogEntry, type CallLogRow } from './call-log';

const row = (over: Partial<CallLogRow> = {}): CallLogRow => ({
  id: 'tc_1',
  called_at: new Date('2026-12-04T10:00:00.123Z'),
  request_id: 'req-1',
  org_id: 'org_1',
  project_id: 'proj_1',
  environment: 'live',
  session_id: 'ses_1',
  user_id: 'user_1',
  connection_id: 'conn_1',
  tool: 'asaas/create_payment',
  server: 'asaas',
  input: { value: 10, cpfCnpj: '52998224725' },
  state: 'done',
  success: true,
  error: null,
  error_code: null,
  upstream_status: 200,
  duration_ms: 12.6,
  bytes_in: 300,
  bytes_out: 120,
  attempts: 1,
  rail_id: null,
  attempt_log: null,
  ...over,
});

describe('toLogEntry', () => {
  it('builds a record the contract accepts, masking parameters again on the way out', () => {
    const e = toLogEntry(row());
    expect(LogEntry.parse(e)).toEqual(e);
    expect(e).toMatchObject({
      called_at: '2026-12-04T10:00:00.123Z',
      outcome: 'success',
      error_code: null,
      latency_ms: 13,
      retries: 0,
      endpoint: null,
    });
    expect(e.parameters).toEqual({ value: 10, cpfCnpj: '*********25' });
  });

  it('maps the row state to an outcome and explains failures', () => {
    expect([
      outcomeOf('pending', false),
      outcomeOf('outcome_unknown', false),
      outcomeOf('done', true),
      outcomeOf('done', false),
    ]).toEqual(['pending', 'outcome_unknown', 'success', 'error']);
    // A provider that answered 4xx: upstream_error unless the row names its own code.
    expect(toLogEntry(row({ success: false, upstream_status: 422 })).error_code).toBe('upstream_error');
    expect(toLogEntry(row({ success: false, upstream_status: null, error_code: 'not_implemented' })).error_code).toBe(
      'not_implemented',
    );
    expect(toLogEntry(row({ state: 'outcome_unknown', success: false, upstream_status: null })).error_code).toBe(
      'outcome_unknown',
    );
    expect(toLogEntry(row({ attempts: 3 })).retries).toBe(2);
    expect(toLogEntry(row({ attempts: 0, upstream_status: null })).retries).toBe(0);
  });

  it('names the endpoint of a proxy call from its recorded input', () => {
    expect(
      toLogEntry(row({ tool: 'proxy', input: { method: 'POST', endpoint: '/v3/payments', body: {} } })).endpoint,
    ).toBe('POST /v3/payments');
    expect(toLogEntry(row({ tool: 'proxy', input: { endpoint: '/v3/customers' } })).endpoint).toBe('GET /v3/customers');
    expect(
      toLogEntry(row({ tool: 'asaas/x', input: { method: 'POST', endpoint: '/v3/payments' } })).endpoint,
    ).toBeNull();
  });

  it('keeps an attempt log only when it is a list', () => {
    expect(toLogEntry(row({ attempt_log: [{ rail_id: 'asaas.pix.in', outcome: 'answered' }] })).attempt_log).toEqual([
      { rail_id: 'asaas.pix.in', outcome: 'answered' },
    ]);
    expect(toLogEntry(row({ attempt_log: { broken: true } })).attempt_log).toBeNull();
  });
});

describe('streamedEntry', () => {
  it('replaces parameters over the cap by their size, and leaves smaller ones', () => {
    const small = toLogEntry(row());
    expect(streamedEntry(small)).toBe(small);
    const big = toLogEntry(row({ input: { text: 'x'.repeat(LOG_EVENT_PARAMETERS_MAX_BYTES) } }));
    const streamed = streamedEntry(big);
    expect(streamed.parameters).toEqual({ omitted: true, bytes: Buffer.byteLength(JSON.stringify(big.parameters)) });
    expect({ ...streamed, parameters: big.parameters }).toEqual(big);
  });
});
