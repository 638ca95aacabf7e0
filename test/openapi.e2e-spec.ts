import { REGISTERED_ROUTES } from '../apps/gateway/src/app.factory';
import { http, startStack, type Stack } from './helpers/stack';

describe('GET /openapi.json and /docs', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('is an OpenAPI 3.1 document that covers every route the gateway registered', async () => {
    const r = await http(`${stack.url}/openapi.json`);
    expect(r.status).toBe(200);
    expect(r.json.openapi).toBe('3.1.0');
    const registered = REGISTERED_ROUTES.get(stack.gateway)!;
    expect(registered.length).toBeGreaterThan(0);
    const missing = registered
      .filter((x) => x.method !== 'HEAD' && x.method !== 'OPTIONS')
      .map((x) => ({ method: x.method.toLowerCase(), path: x.url.replace(/:([A-Za-z_]+)/g, '{$1}') }))
      .filter((x) => !r.json.paths[x.path]?.[x.method])
      .map((x) => `${x.method.toUpperCase()} ${x.path}`);
    expect(missing).toEqual([]);
  });

  it('describes path A from the contract schemas, with its scope and refusals', async () => {
    const doc = (await http(`${stack.url}/openapi.json`)).json;
    const op = doc.paths['/v1/tools/search'].post;
    expect(op['x-required-scope']).toBe('servers:read');
    const req = op.requestBody.content['application/json'].schema;
    expect(req.required).toEqual(['intent']);
    expect(req.properties.limit).toMatchObject({ minimum: 1, maximum: 5 });
    expect(req.additionalProperties).toBe(false);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
  });

  it('serves a readable page at /docs without a credential', async () => {
    const r = await http(`${stack.url}/docs`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(r.text).toContain('/openapi.json');
  });
});
