import { afterSendReason, isProviderFailure, notSentReason } from './outcome';

const err = (code: string) => Object.assign(new Error(code), { code });

describe('error classification', () => {
  it.each([
    ['ECONNREFUSED', 'connect_refused'],
    ['UND_ERR_CONNECT_TIMEOUT', 'connect_timeout'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['ROTA_ADDRESS_REFUSED', 'address_refused'],
    ['UND_ERR_INVALID_ARG', 'invalid_request'],
    ['EHOSTUNREACH', 'connect_failed'],
    ['', 'connect_failed'],
  ])('before the request was written, %s is not_sent %s', (code, reason) => {
    expect(notSentReason(err(code))).toBe(reason);
  });

  it.each([
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout_after_send'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout_after_send'],
    ['ROTA_RESPONSE_TIMEOUT', 'timeout_after_send'],
    ['ROTA_RESPONSE_TOO_LARGE', 'response_too_large'],
    ['UND_ERR_SOCKET', 'connection_reset_after_send'],
    ['ECONNRESET', 'connection_reset_after_send'],
    // Even an error that usually happens while connecting counts as unknown once writing began.
    ['ECONNREFUSED', 'connection_reset_after_send'],
  ])('after the request was written, %s is outcome_unknown %s', (code, reason) => {
    expect(afterSendReason(err(code))).toBe(reason);
  });

  it('counts only provider-side failures toward the circuit', () => {
    const response = (status: number) => ({
      kind: 'response' as const,
      status,
      headers: {},
      body: '',
      bytesIn: 0,
      bytesOut: 0,
      durationMs: 0,
    });
    expect(isProviderFailure(response(503))).toBe(true);
    expect(isProviderFailure(response(429))).toBe(true);
    expect(isProviderFailure(response(404))).toBe(false);
    expect(isProviderFailure(response(401))).toBe(false);
    expect(isProviderFailure({ kind: 'not_sent', reason: 'connect_refused', durationMs: 0 })).toBe(true);
    expect(isProviderFailure({ kind: 'not_sent', reason: 'address_refused', durationMs: 0 })).toBe(false);
    expect(isProviderFailure({ kind: 'not_sent', reason: 'bulkhead_full', durationMs: 0 })).toBe(false);
    expect(isProviderFailure({ kind: 'outcome_unknown', reason: 'timeout_after_send', durationMs: 0 })).toBe(true);
    expect(isProviderFailure({ kind: 'outcome_unknown', reason: 'response_too_large', durationMs: 0 })).toBe(false);
  });
});
