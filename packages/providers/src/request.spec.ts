import { buildRequest, type BuildRequestArgs } from './request';
import { RequestBuildError } from './errors';

const base = (over: Partial<BuildRequestArgs>): BuildRequestArgs => ({
  baseUrl: 'https://api.example.com/v3',
  method: 'POST',
  endpointTemplate: '/payments',
  input: {},
  ...over,
});

function refused(args: BuildRequestArgs): RequestBuildError {
  try {
    buildRequest(args);
  } catch (err) {
    expect(err).toBeInstanceOf(RequestBuildError);
    return err as RequestBuildError;
  }
  throw new Error('expected buildRequest to refuse');
}

describe('buildRequest', () => {
  it('fills path placeholders, encoded, under the base path, and sends the rest as the JSON body', () => {
    const r = buildRequest(
      base({
        endpointTemplate: '/customers/{customer_id}/payments',
        input: { customer_id: 'cus 42é', value: 10, billing_type: 'PIX' },
      }),
    );
    expect(r.url).toBe('https://api.example.com/v3/customers/cus%2042%C3%A9/payments');
    expect(r.method).toBe('POST');
    expect(JSON.parse(r.body!)).toEqual({ value: 10, billing_type: 'PIX' });
    expect(r.headers['content-type']).toBe('application/json');
  });

  it('sends query and header inputs where the map says, and only listed body inputs', () => {
    const r = buildRequest(
      base({
        method: 'put',
        endpointTemplate: '/orders/{id}?expand=items',
        parameters: { query: ['tags', 'page'], headers: { tenant: 'X-Tenant-Id' }, body: ['status'] },
        input: { id: 7, tags: ['a', 'b'], page: 2, tenant: 't-1', status: 'paid', ignored: true },
      }),
    );
    const url = new URL(r.url);
    expect(url.pathname).toBe('/v3/orders/7');
    expect(url.searchParams.get('expand')).toBe('items');
    expect(url.searchParams.getAll('tags')).toEqual(['a', 'b']);
    expect(url.searchParams.get('page')).toBe('2');
    expect(r.headers['x-tenant-id']).toBe('t-1');
    expect(JSON.parse(r.body!)).toEqual({ status: 'paid' });
  });

  it('puts what the body would hold in the query for GET, and sends no body', () => {
    const r = buildRequest(
      base({
        method: 'GET',
        endpointTemplate: '/payments',
        input: { status: 'PENDING', limit: 10, absent: undefined },
      }),
    );
    expect(r.body).toBeUndefined();
    expect(r.headers['content-type']).toBeUndefined();
    expect(new URL(r.url).search).toBe('?status=PENDING&limit=10');
  });

  it('sends no body with body "none"', () => {
    const r = buildRequest(base({ parameters: { body: 'none' }, input: { x: 1 } }));
    expect(r.body).toBeUndefined();
  });

  it('refuses a missing path input with a typed error naming it', () => {
    const err = refused(base({ endpointTemplate: '/payments/{id}', input: {} }));
    expect(err.code).toBe('missing_path_parameter');
    expect(err.details.parameter).toBe('id');
  });

  it.each([
    ['a slash', '../admin'],
    ['a plain slash', 'a/b'],
    ['a dot-dot segment', '..'],
    ['a dot segment', '.'],
    ['an encoded slash', 'a%2Fb'],
    ['an encoded dot-dot', '%2e%2e'],
    ['a double-encoded slash', 'a%252Fb'],
    ['a backslash', 'a\\b'],
    ['a line break', 'a\r\nb'],
  ])('refuses a placeholder value with %s', (_, id) => {
    expect(refused(base({ endpointTemplate: '/payments/{id}', input: { id } })).code).toBe('unsafe_request');
  });

  it('refuses a placeholder value that is not a scalar', () => {
    expect(refused(base({ endpointTemplate: '/payments/{id}', input: { id: { a: 1 } } })).code).toBe('unsafe_request');
  });

  it.each(['https://evil.example/x', '//evil.example/x', '/../admin', '/a/%2e%2e/b', '/a\\b'])(
    'refuses the template %s',
    (endpointTemplate) => {
      expect(refused(base({ endpointTemplate })).code).toBe('unsafe_request');
    },
  );

  it('refuses unsupported methods and header values with line breaks', () => {
    expect(refused(base({ method: 'TRACE' })).code).toBe('unsafe_request');
    expect(refused(base({ parameters: { headers: { h: 'X-H' } }, input: { h: 'a\r\nInjected: 1' } })).code).toBe(
      'unsafe_request',
    );
  });

  it('keeps a base URL without a path prefix', () => {
    expect(buildRequest(base({ baseUrl: 'http://127.0.0.1:8080/', endpointTemplate: 'v1/x', method: 'GET' })).url).toBe(
      'http://127.0.0.1:8080/v1/x',
    );
  });
});
