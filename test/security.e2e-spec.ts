import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Controller, Get, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '@rota/service-kit';
import { Redis } from 'ioredis';
import { createGateway } from '../apps/gateway/src/app.factory';
import { Public } from '../apps/gateway/src/auth/decorators';
import { GatewayConfig } from '../apps/gateway/src/config';
import { PROVIDERS } from './helpers/session-fixtures';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(60_000);

const FAIL_LIMIT = 3;

/** A plain HTTP request with headers fetch() would not send as given (Host). */
function raw(url: string, opts: { method: string; path: string; headers: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; json: any }>((resolve, reject) => {
    const req = httpRequest(`${url}${opts.path}`, { method: opts.method, headers: opts.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('gateway hardening', () => {
  let stack: Stack;
  let key: string;
  const auth = (k: string) => ({ authorization: `Bearer ${k}` });

  beforeAll(async () => {
    stack = await startStack({
      // Every lookup goes to Postgres, so a valid key is never answered from this replica's cache.
      env: { ROTA_AUTH_FAIL_LIMIT: String(FAIL_LIMIT), ROTA_AUTH_FAIL_WINDOW_S: '600', ROTA_AUTH_CACHE_MS: '0' },
    });
    // One provider for the sessions below (created, not upserted, so it does not depend on how provider ids are keyed).
    const { country, ...zzpay } = PROVIDERS[0];
    await stack.db.prisma.provider.create({
      data: { ...zzpay, countries: [country], baseUrls: { live: 'https://zzpay.invalid' } },
    });
    ({ key } = await stack.key(['servers:read', 'sessions:create', 'tools:execute']));
  });

  afterAll(async () => {
    await stack?.close();
  });

  describe('session MCP URL', () => {
    it('never takes the host from the request', async () => {
      const headers = {
        ...auth(key),
        host: 'evil.example',
        'x-forwarded-host': 'evil.example',
        'content-type': 'application/json',
      };
      const created = await raw(stack.url, {
        method: 'POST',
        path: '/v1/sessions',
        headers,
        body: JSON.stringify({ servers: ['zzpay'] }),
      });
      expect(created.status).toBe(201);
      // The gateway listens on 127.0.0.1 and ROTA_PUBLIC_URL is unset: the URL is the listener's.
      expect(created.json.mcp.url).toBe(`${stack.url}/v1/sessions/${created.json.id}/mcp`);
      const read = await raw(stack.url, {
        method: 'GET',
        path: `/v1/sessions/${created.json.id}`,
        headers: { ...auth(key), host: 'evil.example' },
      });
      expect(read.status).toBe(200);
      expect(read.json.mcp.url).toBe(created.json.mcp.url);
      expect(JSON.stringify([created.json, read.json])).not.toContain('evil.example');
    });
  });

  describe('MCP batches', () => {
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'codespar_list_tools', arguments: {} },
    });

    it.each(['/mcp', 'session'])('are refused whole on %s, running nothing', async (which) => {
      let path = '/mcp';
      if (which === 'session') {
        const s = await http(`${stack.url}/v1/sessions`, {
          method: 'POST',
          headers: auth(key),
          json: { servers: ['zzpay'] },
        });
        path = `/v1/sessions/${s.json.id}/mcp`;
      }
      const before = await stack.db.prisma.sessionToolCall.count();
      const r = await http(`${stack.url}${path}`, {
        method: 'POST',
        headers: { ...auth(key), accept: 'application/json, text/event-stream' },
        json: [call(1), call(2), call(3)],
      });
      expect(r.status).toBe(400);
      expect(r.json).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: expect.stringContaining('batch') },
        id: null,
      });
      expect(await stack.db.prisma.sessionToolCall.count()).toBe(before);
    });
  });

  describe('refusals before any route', () => {
    it('answers an oversized header section 431 headers_too_large in the envelope', async () => {
      const r = await http(`${stack.url}/health/live`, { headers: { 'x-padding': 'a'.repeat(64 * 1024) } });
      expect(r.status).toBe(431);
      expect(r.json).toEqual({
        error: 'headers_too_large',
        message: expect.any(String),
        request_id: r.headers.get('x-request-id'),
      });
    });
  });

  describe('failed authentications per source address', () => {
    afterAll(async () => {
      // Leave no block behind in the shared Redis.
      const redis = new Redis(stack.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      const keys = await redis.keys(`${stack.env.ROTA_REDIS_PREFIX}:auth-fail*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    });

    it('counts only 401s, then answers guesses 429 on every replica until the window ends, and still serves a valid key', async () => {
      // Successes never count against the address.
      for (let i = 0; i < FAIL_LIMIT + 2; i++)
        expect((await http(`${stack.url}/v1/servers`, { headers: auth(key) })).status).toBe(200);
      // A 403 is not a failed authentication either.
      const { key: readOnly } = await stack.key(['servers:read']);
      expect(
        (
          await http(`${stack.url}/v1/sessions`, {
            method: 'POST',
            headers: auth(readOnly),
            json: { servers: ['zzpay'] },
          })
        ).status,
      ).toBe(403);

      const attempts: Record<string, string>[] = [
        {},
        { authorization: 'Bearer nonsense' },
        auth(`csk_live_${'x'.repeat(32)}`),
      ];
      for (const headers of attempts.slice(0, FAIL_LIMIT)) {
        const r = await http(`${stack.url}/v1/servers`, { headers });
        expect(r.status).toBe(401);
        expect(r.json).toEqual({ error: 'unauthorized' });
      }

      // Over the limit a valid key is still served: the back-off never locks a good key out (one NAT, many users).
      const served = await http(`${stack.url}/v1/servers`, { headers: { ...auth(key), 'x-request-id': 'served-1' } });
      expect(served.status).toBe(200);
      // Guesses from that address get 429 with its Retry-After, malformed or well formed.
      for (const headers of [
        {},
        { authorization: 'Bearer nonsense' },
        auth(`csk_live_${'y'.repeat(32)}`),
        auth(`csk_live_${'y'.repeat(32)}`),
      ]) {
        const limited = await http(`${stack.url}/v1/servers`, { headers: { ...headers, 'x-request-id': 'limited-1' } });
        expect(limited.status).toBe(429);
        expect(limited.json).toEqual({ error: 'rate_limited', message: expect.any(String), request_id: 'limited-1' });
        const retryAfter = Number(limited.headers.get('retry-after'));
        expect(Number.isInteger(retryAfter)).toBe(true);
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(600);
      }
      // A forwarded address counts for nothing when no proxy is trusted.
      const forged = await http(`${stack.url}/v1/servers`, {
        headers: { ...auth(`csk_live_${'z'.repeat(32)}`), 'x-forwarded-for': '198.51.100.7' },
      });
      expect(forged.status).toBe(429);

      // The count lives in Redis under the configured prefix, so another replica sees it.
      const other = await createGateway(loadConfig(GatewayConfig, { ...stack.env, PORT: '0' }));
      // A replica behind a trusted proxy (this machine) counts the forwarded address instead.
      const proxied = await createGateway(
        loadConfig(GatewayConfig, { ...stack.env, PORT: '0', ROTA_TRUSTED_PROXIES: '127.0.0.1/32,::1' }),
      );
      try {
        await other.listen(0, '127.0.0.1');
        await proxied.listen(0, '127.0.0.1');
        const port = (other.getHttpServer().address() as { port: number }).port;
        const r = await http(`http://127.0.0.1:${port}/v1/servers`, { headers: auth(`csk_live_${'w'.repeat(32)}`) });
        expect(r.status).toBe(429);
        expect(r.json.error).toBe('rate_limited');
        expect((await http(`http://127.0.0.1:${port}/v1/servers`, { headers: auth(key) })).status).toBe(200);
        const viaProxy = (proxied.getHttpServer().address() as { port: number }).port;
        const elsewhere = await http(`http://127.0.0.1:${viaProxy}/v1/servers`, {
          headers: { ...auth(`csk_live_${'v'.repeat(32)}`), 'x-forwarded-for': '198.51.100.8' },
        });
        expect(elsewhere.status).toBe(401);
        const fromHere = await http(`http://127.0.0.1:${viaProxy}/v1/servers`, {
          headers: { ...auth(`csk_live_${'v'.repeat(32)}`), 'x-forwarded-for': '127.0.0.1' },
        });
        expect(fromHere.status).toBe(429);
      } finally {
        await other.close();
        await proxied.close();
      }
      // Public routes stay open.
      expect((await http(`${stack.url}/health/live`)).status).toBe(200);
    });
  });
});

/** Lets a test hold one request in flight while the gateway starts to shut down. */
const hold = { entered: deferred(), release: deferred(), closing: deferred(), answered: deferred() };
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

@Controller()
class HoldController {
  @Get('/test/hold')
  @Public()
  async held() {
    hold.entered.resolve();
    await hold.release.promise;
    return { held: true };
  }
}

@Module({ controllers: [HoldController] })
class HoldModule {}

describe('gateway shutdown', () => {
  let stack: Stack;
  let gateway: NestFastifyApplication;

  beforeAll(async () => {
    stack = await startStack();
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('answers requests that arrive while it closes 503 unavailable in the envelope', async () => {
    gateway = await createGateway(loadConfig(GatewayConfig, { ...stack.env, PORT: '0' }), [HoldModule]);
    const fastify = gateway.getHttpAdapter().getInstance();
    // Added after the gateway's own preClose hook, so it runs once the flag is set.
    fastify.addHook('preClose', (done) => {
      hold.closing.resolve();
      done();
    });
    fastify.addHook('onSend', (req, _reply, payload, done) => {
      if (req.url === '/health/live') hold.answered.resolve();
      done(null, payload);
    });
    await gateway.listen(0, '127.0.0.1');
    const port = (gateway.getHttpServer().address() as { port: number }).port;

    // A second request arrives on a connection the gateway keeps open for a
    // request still in flight, after shutdown has begun.
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (received += c));
    const ended = new Promise<void>((r) => socket.on('close', () => r()));
    socket.write('GET /test/hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await hold.entered.promise;
    const closed = gateway.close();
    await hold.closing.promise;
    socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\nX-Request-Id: during-close\r\n\r\n');
    await hold.answered.promise;
    hold.release.resolve();
    await ended;
    await closed;

    const responses = received.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(responses[1]).toMatch(/^HTTP\/1\.1 503 /);
    const body = JSON.parse(responses[1]!.slice(responses[1]!.indexOf('\r\n\r\n') + 4));
    expect(body).toEqual({ error: 'unavailable', message: expect.any(String), request_id: 'during-close' });
  });
});
