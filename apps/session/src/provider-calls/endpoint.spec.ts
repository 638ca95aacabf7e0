import { injectedSecrets } from '@rota/providers';
import { endpointProblem, sameOrigin } from './provider-calls.service';
import { maskEndpointQuery } from '../calls/redact';

/** `escape` percent-encoded `levels` more times. */
const stacked = (escape: string, levels: number): string =>
  levels === 0 ? escape : stacked(escape.replace(/%/g, '%25'), levels - 1);

describe('the proxy endpoint filter', () => {
  it.each([
    '/v3/payments',
    '/v3/payments/pay_123',
    '/v3/payments?status=PENDING&offset=10',
    '/v1/search?q=a%20b&sort=-created',
    '/v1/files/report.2026.pdf',
    '/v1/a..b/c',
    '/v1/%41BC',
  ])('passes %s', (endpoint) => {
    expect(endpointProblem(endpoint)).toBeNull();
  });

  it.each([
    ['/a/..%5c..%5cadmin', 'backslashes'],
    ['/%2e%2e%5cadmin', 'backslashes'],
    ['/a\\b', 'backslashes'],
    ['/a/%255c/b', 'backslashes'],
    ['/a/%25255C/b', 'backslashes'],
    ['/a/..;/admin', '";"'],
    ['/a;x=1/b', '";"'],
    ['/a/%3b/b', '";"'],
    ['/a/%253B/b', '";"'],
    ['/a/../b', '".."'],
    ['/a/./b', '".."'],
    ['/a/%2e%2e/b', '".."'],
    ['/a/%2E/b', '".."'],
    ['/a/.%2e/b', '".."'],
    ['/a/%252e%252e/admin', '".."'],
    ['/a/%25252e%25252e/admin', '".."'],
    ['/..', '".."'],
    ['/a/%00/b', 'control'],
    ['//evil.example/x', 'single "/"'],
    ['/%2fevil.example/x', 'another host'],
    ['/http://evil.example', 'another host'],
    ['relative', 'single "/"'],
    ['/a/%zz', 'percent-encoded'],
    ['/a?x=%5c', 'query'],
    [`/a/${stacked('%2e', 11)}`, 'levels'],
  ])('refuses %s', (endpoint, why) => {
    expect(endpointProblem(endpoint)).toContain(why);
  });
});

describe('the endpoint as a call record keeps it', () => {
  it('masks the values of its query string as params are, keeping names, order and the rest', () => {
    expect(maskEndpointQuery('/v1/x?api_key=sk_live_abc123&page=2&cpf=529.982.247-25&token=t%20x')).toBe(
      '/v1/x?api_key=%5Bredacted%5D&page=2&cpf=***.***.***-25&token=%5Bredacted%5D'.replace(
        '***.***.***-25',
        encodeURIComponent('***.***.***-25'),
      ),
    );
    expect(maskEndpointQuery('/v1/x')).toBe('/v1/x');
    expect(maskEndpointQuery('/v1/x?flag&page=2')).toBe('/v1/x?flag&page=2');
    // A Rota key pasted into any value is masked too.
    expect(maskEndpointQuery(`/v1/x?q=csk_live_${'a'.repeat(32)}`)).not.toContain('csk_live_a');
  });
});

describe('credentials and their origin', () => {
  it('go only to the origin they were stored for', () => {
    expect(sameOrigin('https://api.asaas.com', 'https://api.asaas.com/v3')).toBe(true);
    expect(sameOrigin('https://api.asaas.com', 'https://API.asaas.com:443/v3')).toBe(true);
    expect(sameOrigin('https://api.asaas.com', 'https://api.asaas.com.evil.example/v3')).toBe(false);
    expect(sameOrigin('https://api.asaas.com', 'http://api.asaas.com/v3')).toBe(false);
    expect(sameOrigin('https://api.asaas.com', 'https://api.asaas.com:8443/v3')).toBe(false);
    expect(sameOrigin(null, 'https://api.asaas.com/v3')).toBe(false);
  });

  it('names every value that authenticates a request, to cut them out of answers', () => {
    const before = { url: 'https://p.example/x', method: 'GET' as const, headers: { accept: 'application/json' } };
    const after = {
      ...before,
      headers: { ...before.headers, authorization: `Basic ${Buffer.from('user:pa ss/word').toString('base64')}` },
    };
    const secrets = injectedSecrets({ username: 'user', password: 'pa ss/word' }, before, after);
    expect(secrets).toContain('pa ss/word');
    expect(secrets).toContain(encodeURIComponent('pa ss/word'));
    expect(secrets).toContain(Buffer.from('user:pa ss/word').toString('base64'));
    // Too short to cut without mangling ordinary data.
    expect(secrets).not.toContain('user');
    expect(secrets).not.toContain('application/json');
  });
});
