import { BOARD_PATH } from '../apps/gateway/src/dashboard/queue-board';
import { REGISTERED_ROUTES } from '../apps/gateway/src/app.factory';
import createClient from 'openapi-fetch';
// The SDK's types, generated from the same document (kept current by openapi-lint).
import type { paths } from '../packages/sdk/src/generated/rota-api';
import { insertOtherProject, insertProviders } from './helpers/session-fixtures';
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
      // The queue board is a UI mounted by its library (documented in docs/health.md), not part of the API.
      .filter((x) => !x.url.startsWith(BOARD_PATH))
      .map((x) => ({ method: x.method.toLowerCase(), path: x.url.replace(/:([A-Za-z_]+)/g, '{$1}') }))
      .filter((x) => !r.json.paths[x.path]?.[x.method])
      .map((x) => `${x.method.toUpperCase()} ${x.path}`);
    expect(missing).toEqual([]);
  });

  it('describes path A from the contract schemas, with its scope and refusals', async () => {
    const doc = (await http(`${stack.url}/openapi.json`)).json;
    const op = doc.paths['/v1/tools/search'].post;
    expect(op['x-required-scope']).toBe('servers:read');
    const ref: string = op.requestBody.content['application/json'].schema.$ref;
    const req = doc.components.schemas[ref.replace('#/components/schemas/', '')];
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

describe('the document as a client generator reads it', () => {
  let stack: Stack;
  let doc: any;
  beforeAll(async () => {
    stack = await startStack();
    await insertProviders(stack.db.prisma, await insertOtherProject(stack.db.prisma));
    doc = (await http(`${stack.url}/openapi.json`)).json;
  });
  afterAll(async () => {
    // Every response this suite received was held to the document.
    expect(stack.contract.checked).toBeGreaterThan(0);
    await stack.close();
  });

  const operations = () =>
    Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
      Object.entries<any>(ops).map(([method, op]) => ({ path, method, op })),
    );

  it('gives every operation a unique operationId and declares every path parameter', () => {
    const ids = operations().map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, op } of operations()) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = (op.parameters ?? [])
        .filter((p: any) => p.in === 'path')
        .map((p: any) => p.name)
        .sort();
      expect({ path, params: declared }).toEqual({ path, params: inPath });
    }
  });

  it('declares the query filters of the listings', () => {
    const names = (path: string, method = 'get') =>
      (doc.paths[path][method].parameters ?? [])
        .filter((p: any) => p.in === 'query')
        .map((p: any) => p.name)
        .sort();
    expect(names('/v1/providers')).toEqual(['category', 'country', 'cursor', 'limit', 'q']);
    expect(names('/v1/servers/{id}/tools')).toEqual(['cursor', 'limit']);
    expect(names('/v1/router/metrics')).toEqual(['provider_id', 'tool']);
    expect(names('/v1/catalog/import', 'post')).toEqual(['owner', 'prune', 'server']);
  });

  it('marks /v1/servers deprecated and documents the statuses the server really answers', () => {
    expect(doc.paths['/v1/servers'].get.deprecated).toBe(true);
    expect(Object.keys(doc.paths['/v1/connections'].post.responses)).toEqual(
      expect.arrayContaining(['200', '201', '413', '415']),
    );
    expect(Object.keys(doc.paths['/mcp'].post.responses)).toEqual(expect.arrayContaining(['200', '202', '400', '406']));
    expect(doc.paths['/health/ready'].get.responses['503'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/Readiness',
    );
    const execute = Object.keys(doc.paths['/v1/sessions/{id}/execute'].post.responses);
    expect(execute).toEqual(expect.arrayContaining(['503']));
    expect(execute).not.toContain('504');
  });

  it('answers 401 with WWW-Authenticate: Bearer, before reading any body', async () => {
    const r = await http(`${stack.url}/v1/catalog/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"not json',
    });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(r.text).toBe('{"error":"unauthorized"}');
    const big = await http(`${stack.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big.status).toBe(401);
  });

  it('refuses a text/plain body with 415 in the envelope', async () => {
    const { key } = await stack.key(['servers:read']);
    const r = await http(`${stack.url}/v1/tools/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain', 'x-request-id': 'txt-1' },
      body: 'charge a customer',
    });
    expect(r.status).toBe(415);
    expect(r.json).toMatchObject({ error: 'unsupported_media_type', request_id: 'txt-1' });
  });

  it('lets a client generated from the document call a session route and a filtered listing', async () => {
    const { key } = await stack.key(['servers:read', 'sessions:create']);
    const client = createClient<paths>({ baseUrl: stack.url, headers: { authorization: `Bearer ${key}` } });
    const providers = await client.GET('/v1/providers', { params: { query: { country: 'BR', limit: 2 } } });
    expect(providers.response.status).toBe(200);
    expect(providers.data!.servers.length).toBeGreaterThan(0);
    expect(providers.data!.servers.length).toBeLessThanOrEqual(2);
    expect(
      providers.data!.servers.every((p) => p.countries.includes('BR') || p.country === 'BR' || p.country === '*'),
    ).toBe(true);
    const servers = providers.data!.servers.map((p) => p.id).slice(0, 1);
    const created = await client.POST('/v1/sessions', { body: { servers } });
    expect({ status: created.response.status, error: created.error }).toEqual({ status: 201, error: undefined });
    const read = await client.GET('/v1/sessions/{id}', { params: { path: { id: created.data!.id } } });
    expect(read.data!.id).toBe(created.data!.id);
    const missing = await client.GET('/v1/sessions/{id}', { params: { path: { id: 'ses_nope' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ error: 'session_not_found' });
  });
});
