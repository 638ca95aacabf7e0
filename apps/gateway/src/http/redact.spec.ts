import { redactUrl } from './redact';

describe('redactUrl', () => {
  it.each([
    ['/v1/servers?api_key=csk_live_abc123', '/v1/servers?api_key=[REDACTED]'],
    ['/v1/servers?key=hunter2&limit=5', '/v1/servers?key=[REDACTED]&limit=5'],
    ['/v1/servers?limit=5&TOKEN=t0k', '/v1/servers?limit=5&TOKEN=[REDACTED]'],
    [
      '/x?access_token=a&password=b&secret=c&authorization=Bearer%20d',
      '/x?access_token=[REDACTED]&password=[REDACTED]&secret=[REDACTED]&authorization=[REDACTED]',
    ],
    ['/x?Api-Key=abc', '/x?Api-Key=[REDACTED]'],
    ['/x?api%5Fkey=abc', '/x?api%5Fkey=[REDACTED]'],
    [
      '/v1/connections/oauth/callback?code=c0de&state=s.t',
      '/v1/connections/oauth/callback?code=[REDACTED]&state=[REDACTED]',
    ],
  ])('hides the value of a credential parameter: %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('hides anything shaped like an API key, whatever carries it', () => {
    const out = redactUrl('/v1/sessions/csk_test_Zz9-_q?q=see%20csk_live_AbC&note=csk_test_x');
    expect(out).not.toMatch(/csk_(live|test)_[A-Za-z0-9]/);
    expect(out).toBe('/v1/sessions/[REDACTED]?q=see%20[REDACTED]&note=[REDACTED]');
  });

  it('leaves ordinary URLs alone', () => {
    for (const url of [
      '/v1/servers',
      '/v1/servers?limit=5&cursor=abc',
      '/health/live?',
      '/x?flag&monkey=1',
      '/x?keys=1',
    ])
      expect(redactUrl(url)).toBe(url);
  });

  it('copes with malformed percent-encoding in a parameter name', () => {
    expect(redactUrl('/x?%E0%A4%A=1&token=t')).toBe('/x?%E0%A4%A=1&token=[REDACTED]');
  });
});
