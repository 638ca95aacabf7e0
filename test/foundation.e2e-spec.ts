import { Controller, Get, Module, Post, Body } from '@nestjs/common';
import { RequireScope, Auth } from '../apps/gateway/src/auth/decorators';
import type { ProjectPrincipal as Principal } from '../apps/gateway/src/auth/principal';
import { ApiKeyRepository } from '@rota/db';
import { currentRequestId } from '@rota/service-kit';
import { http, startStack, type Stack } from './helpers/stack';

// Routes mounted only in this test, to exercise the gateway's pipeline
// (auth, scopes, body parsing, envelope) independently of product routes.
@Controller('__test')
class ProbeController {
  @Get('scoped')
  @RequireScope('sessions:create')
  scoped(@Auth() p: Principal) {
    return { project: p.projectId, environment: p.environment };
  }

  @Post('echo')
  @RequireScope('servers:read')
  echo(@Body() body: unknown) {
    return { body };
  }

  @Get('whoami')
  @RequireScope('servers:read')
  async whoami() {
    // Seen after an await, as a service call would see it.
    await new Promise((r) => setTimeout(r, 5));
    return { request_id: currentRequestId() };
  }

  @Get('boom')
  @RequireScope('servers:read')
  boom() {
    throw new Error('database password is hunter2');
  }
}
@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('foundation: gateway pipeline over the running stack', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await startStack({ extraGatewayModules: [ProbeModule] });
    key = (await stack.key(['servers:read', 'sessions:create'])).key;
  });
  afterAll(() => stack.close());

  const auth = (k: string) => ({ authorization: `Bearer ${k}` });

  describe('health', () => {
    it('live answers without a credential', async () => {
      const r = await http(`${stack.url}/health/live`);
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ status: 'ok' });
    });

    it('ready checks Postgres, Redis and every service over the transport', async () => {
      const r = await http(`${stack.url}/health/ready`);
      expect(r.status).toBe(200);
      expect(r.json.status).toBe('ready');
      expect(Object.keys(r.json.checks.services).sort()).toEqual(['router', 'search', 'session', 'worker']);
      for (const c of Object.values<{ ok: boolean }>(r.json.checks.services)) expect(c.ok).toBe(true);
      expect(r.json.checks.postgres.ok).toBe(true);
      expect(r.json.checks.redis.ok).toBe(true);
    });
  });

  describe('authentication and scopes', () => {
    it('401 with the exact raw body when no key is sent', async () => {
      const r = await http(`${stack.url}/__test/scoped`);
      expect(r.status).toBe(401);
      expect(r.text).toBe('{"error":"unauthorized"}');
    });

    it('401 for a well-formed key nobody issued, and for garbage', async () => {
      for (const k of ['csk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'not-a-key']) {
        const r = await http(`${stack.url}/__test/scoped`, { headers: auth(k) });
        expect(r.status).toBe(401);
        expect(r.text).toBe('{"error":"unauthorized"}');
      }
    });

    // How soon a revocation takes effect is a figure `pnpm reliability`
    // reports; here only that it does, with the exact 401.
    it('401 once a key is revoked', async () => {
      const k = await stack.key(['sessions:create']);
      expect((await http(`${stack.url}/__test/scoped`, { headers: auth(k.key) })).status).toBe(200);
      await new ApiKeyRepository(stack.db.prisma).revoke(k.id);
      // A cap far above any propagation delay, so a slow machine cannot fail it.
      const giveUp = Date.now() + 30_000;
      let r = await http(`${stack.url}/__test/scoped`, { headers: auth(k.key) });
      while (r.status === 200 && Date.now() < giveUp) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        r = await http(`${stack.url}/__test/scoped`, { headers: auth(k.key) });
      }
      expect(r.status).toBe(401);
      expect(r.text).toBe('{"error":"unauthorized"}');
    });

    it('403 in the envelope naming the missing scope', async () => {
      const k = await stack.key(['servers:read']);
      const r = await http(`${stack.url}/__test/scoped`, { headers: { ...auth(k.key), 'x-request-id': 'req-403' } });
      expect(r.status).toBe(403);
      expect(r.json).toEqual({
        error: 'forbidden',
        message: "API key does not have the 'sessions:create' scope.",
        request_id: 'req-403',
      });
    });

    it('passes the key tenant to the handler', async () => {
      const k = await stack.key(['sessions:create'], { environment: 'test' });
      const r = await http(`${stack.url}/__test/scoped`, { headers: auth(k.key) });
      expect(r.json).toEqual({ project: 'proj_dev', environment: 'test' });
    });
  });

  describe('error envelope and request ids', () => {
    it('echoes X-Request-Id on every response, and mints one when absent', async () => {
      const given = await http(`${stack.url}/health/live`, { headers: { 'x-request-id': 'abc-123' } });
      expect(given.headers.get('x-request-id')).toBe('abc-123');
      const minted = await http(`${stack.url}/health/live`);
      expect(minted.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('carries the request id into handlers and across awaits, without mixing concurrent requests', async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `ctx-${i}`);
      const answers = await Promise.all(
        ids.map((id) => http(`${stack.url}/__test/whoami`, { headers: { ...auth(key), 'x-request-id': id } })),
      );
      expect(answers.map((a) => a.json.request_id)).toEqual(ids);
    });

    it('unknown routes are 404 not_found in the envelope', async () => {
      const r = await http(`${stack.url}/v1/nothing-here`, { headers: { 'x-request-id': 'nf-1' } });
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ error: 'not_found', request_id: 'nf-1' });
      expect(typeof r.json.message).toBe('string');
    });

    it('an unknown route is 404 whatever body or media type it is sent with; the body is never parsed', async () => {
      // `/v1/sessions/../mcp` is normalised by the client to `/v1/mcp`, which no route serves.
      for (const [ct, body] of [
        ['', '{"jsonrpc":"2.0"}'],
        ['text/plain', 'x'],
        ['application/x-www-form-urlencoded', 'a=1'],
        ['application/json', '{"a":'],
        ['application/json; charset=latin1', '{}'],
      ] as const) {
        const r = await http(`${stack.url}/v1/sessions/../mcp`, {
          method: 'POST',
          headers: { ...auth(key), 'content-type': ct },
          body,
        });
        expect([ct, r.status, r.json.error]).toEqual([ct, 404, 'not_found']);
      }
    });

    it('malformed JSON is 400 invalid_body', async () => {
      const r = await http(`${stack.url}/__test/echo`, {
        method: 'POST',
        headers: { ...auth(key), 'content-type': 'application/json', 'x-request-id': 'bad-json' },
        body: '{"intent": ',
      });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: 'invalid_body', request_id: 'bad-json' });
    });

    it('bodies over 1 MiB are 413 in the envelope', async () => {
      const big = JSON.stringify({ x: 'a'.repeat(1024 * 1024 + 10) });
      const r = await http(`${stack.url}/__test/echo`, {
        method: 'POST',
        headers: { ...auth(key), 'content-type': 'application/json' },
        body: big,
      });
      expect(r.status).toBe(413);
      expect(r.json.error).toBe('payload_too_large');
      expect(r.json.request_id).toBeTruthy();
    });

    it('refuses NUL characters in the body or the URL with a 400, never a database 5xx', async () => {
      const body = await http(`${stack.url}/__test/echo`, {
        method: 'POST',
        headers: auth(key),
        json: { nested: [{ text: 'a\u0000b' }] },
      });
      expect(body.status).toBe(400);
      expect(body.json.error).toBe('invalid_body');
      // However deep it sits.
      let deep: unknown = 'a\u0000b';
      for (let i = 0; i < 100; i++) deep = { a: deep };
      const nested = await http(`${stack.url}/__test/echo`, { method: 'POST', headers: auth(key), json: { deep } });
      expect(nested.status).toBe(400);
      expect(nested.json.error).toBe('invalid_body');
      // Nesting deep enough to overflow a serialiser is refused the same way, not a 5xx.
      const tower = `${'{"a":'.repeat(20_000)}"x"${'}'.repeat(20_000)}`;
      const tooDeep = await http(`${stack.url}/__test/echo`, {
        method: 'POST',
        headers: { ...auth(key), 'content-type': 'application/json' },
        body: `{"tower":${tower}}`,
      });
      expect(tooDeep.status).toBe(400);
      expect(tooDeep.json).toMatchObject({ error: 'invalid_body', message: expect.stringMatching(/128 levels/) });
      const url = await http(`${stack.url}/__test/scoped%00`, { headers: auth(key) });
      expect(url.status).toBe(400);
      expect(url.json.error).toBe('invalid_query');
      const clean = await http(`${stack.url}/__test/echo`, {
        method: 'POST',
        headers: auth(key),
        json: { text: 'ok' },
      });
      expect(clean.status).toBe(201);
    });

    it('a non-JSON media type is a 4xx, never a 5xx', async () => {
      const r = await http(`${stack.url}/__test/echo`, {
        method: 'POST',
        headers: { ...auth(key), 'content-type': 'application/x-thing' },
        body: 'hello',
      });
      expect(r.status).toBe(415);
      expect(r.json.error).toBe('unsupported_media_type');
      // Only JSON bodies are parsed: a form body is refused the same way.
      const form = await http(`${stack.url}/__test/echo`, {
        method: 'POST',
        headers: { ...auth(key), 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a=1',
      });
      expect(form.status).toBe(415);
      const charset = await http(`${stack.url}/__test/echo`, {
        method: 'POST',
        headers: { ...auth(key), 'content-type': 'application/json; charset=utf-8' },
        body: '{"text":"ok"}',
      });
      expect(charset.status).toBe(201);
    });

    it('a 5xx carries only the request id and a generic message', async () => {
      const r = await http(`${stack.url}/__test/boom`, { headers: { ...auth(key), 'x-request-id': 'boom-1' } });
      expect(r.status).toBe(500);
      expect(r.json).toEqual({ error: 'internal', message: expect.any(String), request_id: 'boom-1' });
      expect(r.text).not.toContain('hunter2');
    });
  });

  it('answers an overlong path parameter 414 and a non-JSON body on a DELETE 415, both in the envelope', async () => {
    const long = await http(`${stack.url}/v1/servers/${'a'.repeat(101)}/tools`, {
      headers: { ...auth(key), 'x-request-id': 'long-1' },
    });
    expect(long.status).toBe(414);
    expect(long.json).toEqual({ error: 'uri_too_long', message: expect.any(String), request_id: 'long-1' });
    const del = await http(`${stack.url}/v1/sessions/ses_x`, {
      method: 'DELETE',
      headers: { ...auth(key), 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(del.status).toBe(415);
    expect(del.json.error).toBe('unsupported_media_type');
  });

  it('ready turns 503 when a service stops answering', async () => {
    await stack.services.router.app.close();
    const r = await http(`${stack.url}/health/ready`);
    expect(r.status).toBe(503);
    expect(r.json.status).toBe('not_ready');
    expect(r.json.checks.services.router.ok).toBe(false);
  });
});
