import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '@rota/service-kit';
import { createGateway } from '../apps/gateway/src/app.factory';
import { GatewayConfig } from '../apps/gateway/src/config';
import { PolicyRepository } from '../apps/session/src/policy/policy.repository';
import { insertOtherProject, insertProviders } from './helpers/session-fixtures';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(90_000);

const CALLER = ['servers:read', 'sessions:create', 'tools:execute', 'policy:write', 'approvals:write'] as const;

describe('Governance: policy rules, approvals, rate limits, usage', () => {
  let stack: Stack;
  let key: string;
  let keyId: string;
  let approver: string;
  let session: string;
  let anonymousSession: string;

  const auth = (k: string) => ({ authorization: `Bearer ${k}` });
  const execute = (body: unknown, headers: Record<string, string> = {}, k = key, id = session) =>
    http(`${stack.url}/v1/sessions/${id}/execute`, { method: 'POST', headers: { ...auth(k), ...headers }, json: body });
  const pay = (amount: number, currency = 'BRL') => ({
    tool: 'codespar_pay',
    input: { action: 'pay', method: 'pix', amount, currency, recipient: 'pix-key-1' },
  });
  const setRules = (rules: unknown[]) =>
    http(`${stack.url}/v1/policy`, { method: 'PUT', headers: auth(key), json: { rules } });
  const rows = () => stack.db.prisma.sessionToolCall.count();
  const decisions = () => stack.db.prisma.policyDecision.count();
  const decide = (id: string, decision: 'approve' | 'deny', k = approver) =>
    http(`${stack.url}/v1/approvals/${id}/${decision}`, { method: 'POST', headers: auth(k) });

  beforeAll(async () => {
    // Rules and limits are read on every call, and a rate-limit window lasts
    // an hour: the counts below never depend on how fast the machine is. The
    // long transport deadline keeps a burst of 20 from timing out on a busy machine.
    stack = await startStack({
      env: {
        ROTA_POLICY_CACHE_MS: '0',
        ROTA_RATE_LIMIT_CACHE_MS: '0',
        ROTA_RATE_LIMIT_WINDOW_SCALE: '3600',
        ROTA_QUOTA_ENFORCE: 'true',
        ROTA_RPC_TIMEOUT_MS: '20000',
      },
    });
    await insertProviders(stack.db.prisma, await insertOtherProject(stack.db.prisma));
    ({ key, id: keyId } = await stack.key([...CALLER]));
    approver = (await stack.key(['servers:read', 'approvals:write'])).key;
    session = (
      await http(`${stack.url}/v1/sessions`, {
        method: 'POST',
        headers: auth(key),
        json: { servers: ['zzpay'], user_id: 'user-1' },
      })
    ).json.id;
    anonymousSession = (
      await http(`${stack.url}/v1/sessions`, { method: 'POST', headers: auth(key), json: { servers: ['zzpay'] } })
    ).json.id;
  });
  afterAll(() => stack.close());

  it('stores rules with ids, read back in order; PUT needs policy:write', async () => {
    const readOnly = (await stack.key(['servers:read'])).key;
    const refused = await http(`${stack.url}/v1/policy`, {
      method: 'PUT',
      headers: auth(readOnly),
      json: { rules: [] },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('forbidden');

    const put = await setRules([
      { type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 10_000 },
      { type: 'allow_providers', providers: ['zzpay'] },
    ]);
    expect(put.status).toBe(200);
    expect(put.json.rules).toEqual([
      {
        id: expect.stringMatching(/^pr_/),
        type: 'max_amount',
        tool: 'codespar_pay',
        currency: 'BRL',
        max_minor: 10_000,
      },
      { id: expect.stringMatching(/^pr_/), type: 'allow_providers', providers: ['zzpay'] },
    ]);
    const got = await http(`${stack.url}/v1/policy`, { headers: auth(readOnly) });
    expect(got.json.rules).toEqual(put.json.rules);

    const bad = await setRules([{ type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: -1 }]);
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('invalid_body');
  });

  it('max_amount: above it 403 {reason, ruleType, ruleId} without error and no call row; below it reaches dispatch', async () => {
    const put = await setRules([{ type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 10_000 }]);
    const ruleId = put.json.rules[0].id;
    const [before, decided] = [await rows(), await decisions()];

    const above = await execute(pay(10_001));
    expect(above.status).toBe(403);
    expect(above.json).toEqual({ reason: expect.any(String), ruleType: 'max_amount', ruleId });
    expect(above.json).not.toHaveProperty('error');
    expect(await rows()).toBe(before);
    expect(await decisions()).toBe(decided + 1);
    const record = await stack.db.prisma.policyDecision.findFirst({ orderBy: { createdAt: 'desc' } });
    expect(record).toMatchObject({
      decision: 'deny',
      ruleId,
      ruleType: 'max_amount',
      tool: 'codespar_pay',
      action: 'pay',
      userId: 'user-1',
      keyId,
    });

    // A currency no rule covers is refused too.
    expect((await execute(pay(100, 'USD'))).json).toMatchObject({ ruleType: 'max_amount', ruleId });

    const below = await execute(pay(10_000));
    expect(below.status).toBe(200);
    // Dispatch ran: no pay rail's provider is connected in this project, and the call has its row.
    expect(below.json.data.code).toBe('connection_required');
    expect(below.json.tool_call_id).toMatch(/^tc_/);
    expect(await rows()).toBe(before + 1);
  });

  it('the proxy is governed too: deny_tools names it by method, and the money guard refuses a non-GET to a payments provider', async () => {
    const proxy = (method: string) =>
      http(`${stack.url}/v1/sessions/${session}/proxy`, {
        method: 'POST',
        headers: auth(key),
        json: { server: 'zzpay', endpoint: '/v1/payments', method },
      });
    try {
      const deny = await setRules([{ type: 'deny_tools', tools: ['proxy'], actions: ['POST'] }]);
      const [before, decided] = [await rows(), await decisions()];
      const refused = await proxy('POST');
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual({
        reason: expect.any(String),
        ruleType: 'deny_tools',
        ruleId: deny.json.rules[0].id,
      });
      expect(await rows()).toBe(before);
      expect(await decisions()).toBe(decided + 1);
      // Another method is not named by the rule: it goes on to the provider (which this fixture cannot reach).
      expect((await proxy('GET')).status).not.toBe(403);

      const guard = await setRules([{ type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 10_000 }]);
      const guarded = await proxy('POST');
      expect(guarded.status).toBe(403);
      expect(guarded.json).toMatchObject({ ruleType: 'max_amount', ruleId: guard.json.rules[0].id });
    } finally {
      await setRules([]);
    }
  });

  it('approval_above: opens an approval; approved passes once; used, expired and denied ones are refused', async () => {
    const put = await setRules([
      { type: 'approval_above', tool: 'codespar_pay', currency: 'BRL', above_minor: 1000, ttl_seconds: 300 },
    ]);
    const ruleId = put.json.rules[0].id;

    const first = await execute(pay(5000));
    expect(first.status).toBe(403);
    expect(first.json).toEqual({
      reason: expect.any(String),
      ruleType: 'approval_above',
      ruleId,
      approval_id: expect.stringMatching(/^apr_/),
      expires_at: expect.any(String),
    });
    const id = first.json.approval_id;
    expect(new Date(first.json.expires_at).getTime()).toBeGreaterThan(Date.now());

    const listed = await http(`${stack.url}/v1/approvals?status=pending`, { headers: auth(approver) });
    expect(listed.json.approvals.map((a: { id: string }) => a.id)).toContain(id);

    // The key that made the call cannot approve it.
    const own = await decide(id, 'approve', key);
    expect(own.status).toBe(403);
    expect(own.json.error).toBe('forbidden');

    const approved = await decide(id, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({
      id,
      status: 'approved',
      decided_by_key: expect.any(String),
      decided_at: expect.any(String),
      amount_minor: 5000,
      currency: 'BRL',
    });
    expect((await decide(id, 'deny')).json.error).toBe('approval_not_pending');

    // Bound to the arguments: another amount is refused and spends nothing.
    const other = await execute(pay(5001), { 'rota-approval-id': id });
    expect(other.status).toBe(403);
    expect(other.json).toMatchObject({ ruleType: 'approval_above', ruleId });
    expect(other.json).not.toHaveProperty('approval_id');

    const before = await rows();
    const retried = await execute(pay(5000), { 'rota-approval-id': id });
    expect(retried.status).toBe(200);
    expect(retried.json.tool_call_id).toMatch(/^tc_/);
    expect(await rows()).toBe(before + 1);

    const again = await execute(pay(5000), { 'rota-approval-id': id });
    expect(again.status).toBe(403);
    expect(again.json.reason).toContain('used');

    // Expired: its time has passed before the retry.
    const second = (await execute(pay(5000))).json.approval_id;
    expect((await decide(second, 'approve')).status).toBe(200);
    await stack.db.prisma.approval.update({ where: { id: second }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await execute(pay(5000), { 'rota-approval-id': second })).status).toBe(403);
    const third = (await execute(pay(5000))).json.approval_id;
    await stack.db.prisma.approval.update({ where: { id: third }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const late = await decide(third, 'approve');
    expect(late.status).toBe(409);
    expect(late.json).toMatchObject({ error: 'approval_not_pending', status: 'expired' });

    // Denied.
    const fourth = (await execute(pay(5000))).json.approval_id;
    expect((await decide(fourth, 'deny')).json.status).toBe('denied');
    const denied = await execute(pay(5000), { 'rota-approval-id': fourth });
    expect(denied.status).toBe(403);
    expect(denied.json.reason).toContain('denied');

    expect((await decide('apr_nothing', 'approve')).status).toBe(404);
  });

  it('user_daily_limit: refuses a session without user_id and counts the day per user', async () => {
    await setRules([{ type: 'user_daily_limit', tool: 'codespar_pay', currency: 'BRL', max_minor: 1000 }]);
    const anonymous = await execute(pay(100), {}, key, anonymousSession);
    expect(anonymous.status).toBe(403);
    expect(anonymous.json.ruleType).toBe('user_daily_limit');
    // Calls with no executor yet give their reservation back; the limit itself still applies per call.
    expect((await execute(pay(1000))).status).toBe(200);
    expect((await execute(pay(1001))).status).toBe(403);
  });

  it('over MCP, the same refusal comes back as an isError tool result with the same fields', async () => {
    const put = await setRules([{ type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 10_000 }]);
    const call = (amount: number) =>
      http(`${stack.url}/v1/sessions/${session}/mcp`, {
        method: 'POST',
        headers: { ...auth(key), accept: 'application/json, text/event-stream' },
        json: {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'codespar_pay', arguments: pay(amount).input },
        },
      });
    const before = await rows();
    const r = await call(20_000);
    expect(r.status).toBe(200);
    expect(r.json.result.isError).toBe(true);
    expect(r.json.result.structuredContent).toEqual({
      reason: expect.any(String),
      ruleType: 'max_amount',
      ruleId: put.json.rules[0].id,
    });
    expect(JSON.parse(r.json.result.content[0].text)).toEqual(r.json.result.structuredContent);
    expect(await rows()).toBe(before);
  });

  it('rules store down: 503 {"error":"policy_engine_error"}; a quota refusal still carries error quota_exceeded', async () => {
    await setRules([{ type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 10_000 }]);
    const repo = stack.services.session.app.get(PolicyRepository);
    const spy = jest.spyOn(repo, 'rules').mockRejectedValue(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    try {
      const before = await rows();
      const down = await execute(pay(10));
      expect(down.status).toBe(503);
      expect(down.json.error).toBe('policy_engine_error');
      expect(await rows()).toBe(before);

      await stack.db.prisma.org.update({ where: { id: 'org_dev' }, data: { quotaMonthlyCalls: 0 } });
      const quota = await execute(pay(10));
      expect(quota.status).toBe(403);
      expect(quota.json).toMatchObject({ error: 'quota_exceeded', limit: 0 });
    } finally {
      spy.mockRestore();
      await stack.db.prisma.org.update({ where: { id: 'org_dev' }, data: { quotaMonthlyCalls: null } });
    }
    expect((await execute(pay(10))).status).toBe(200);
  });

  describe('rate limits', () => {
    let second: NestFastifyApplication;
    let secondUrl: string;

    beforeAll(async () => {
      second = await createGateway(loadConfig(GatewayConfig, { ...stack.env, PORT: '0' }));
      await second.listen(0, '127.0.0.1');
      secondUrl = `http://127.0.0.1:${(second.getHttpServer().address() as { port: number }).port}`;
      await setRules([]);
    });
    afterAll(async () => {
      await http(`${stack.url}/v1/rate-limits`, { method: 'PUT', headers: auth(key), json: { limits: [] } });
      await second.close();
    });

    const burst = (k: string) =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          http(`${i % 2 === 0 ? stack.url : secondUrl}/v1/sessions/${session}/execute`, {
            method: 'POST',
            headers: auth(k),
            json: { tool: 'codespar_list_tools' },
          }),
        ),
      );

    it('refuses nothing when nothing is configured', async () => {
      expect((await http(`${stack.url}/v1/rate-limits`, { headers: auth(approver) })).json).toMatchObject({
        limits: [],
      });
      const answers = await burst(key);
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      expect(answers[0]!.headers.get('ratelimit')).toBeNull();
    });

    it('5 per second per key across two replicas: exactly 5 of 20 pass, 15 are 429 with Retry-After', async () => {
      const { key: limited } = await stack.key(['tools:execute', 'sessions:create']);
      const put = await http(`${stack.url}/v1/rate-limits`, {
        method: 'PUT',
        headers: auth(key),
        json: { limits: [{ scope: 'key', per_second: 5 }] },
      });
      expect(put.status).toBe(200);
      expect(put.json.limits).toEqual([{ scope: 'key', per_second: 5 }]);

      const answers = await burst(limited);
      const passed = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 429);
      expect(passed).toHaveLength(5);
      expect(refused).toHaveLength(15);
      for (const r of refused) {
        expect(r.json.error).toBe('rate_limited');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(r.headers.get('ratelimit-policy')).toMatch(/^"key\/s";q=5;w=\d+$/);
        expect(r.headers.get('ratelimit')).toMatch(/^"key\/s";r=0;t=\d+$/);
      }
      // Every key has its own counter under a per-key limit.
      expect((await burst(key)).filter((a) => a.status === 200)).toHaveLength(5);
    });

    it('over MCP, a call over a limit is an isError result with code rate_limited and retry_after, counted with execute', async () => {
      const { key: caller } = await stack.key(['tools:execute', 'sessions:create']);
      const put = await http(`${stack.url}/v1/rate-limits`, {
        method: 'PUT',
        headers: auth(key),
        json: { limits: [{ scope: 'tool', target: 'codespar_list_tools', per_minute: 2 }] },
      });
      expect(put.status).toBe(200);
      const mcp = (url: string) =>
        http(`${url}/v1/sessions/${session}/mcp`, {
          method: 'POST',
          headers: { ...auth(caller), accept: 'application/json, text/event-stream' },
          json: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'codespar_list_tools', arguments: {} } },
        });
      // One call over HTTP and one over MCP on the other replica spend the limit together.
      const viaHttp = await http(`${stack.url}/v1/sessions/${session}/execute`, {
        method: 'POST',
        headers: auth(caller),
        json: { tool: 'codespar_list_tools' },
      });
      expect(viaHttp.status).toBe(200);
      const passed = await mcp(secondUrl);
      expect(passed.json.result.isError).toBeFalsy();
      const limited = await mcp(stack.url);
      expect(limited.status).toBe(200);
      expect(limited.json.result.isError).toBe(true);
      expect(limited.json.result.structuredContent).toMatchObject({
        code: 'rate_limited',
        retry_after: expect.any(Number),
      });
      expect(limited.json.result.structuredContent.retry_after).toBeGreaterThan(0);
    });

    it('a repeat of an idempotency key counts toward no limit: it is replayed, on either replica, never refused 429', async () => {
      const { key: caller } = await stack.key(['tools:execute', 'sessions:create']);
      const put = await http(`${stack.url}/v1/rate-limits`, {
        method: 'PUT',
        headers: auth(key),
        json: { limits: [{ scope: 'key', per_minute: 3 }] },
      });
      expect(put.status).toBe(200);
      const call = (url: string, idempotencyKey: string) =>
        http(`${url}/v1/sessions/${session}/execute`, {
          method: 'POST',
          headers: { ...auth(caller), 'idempotency-key': idempotencyKey },
          json: { tool: 'codespar_list_tools', input: {} },
        });
      const before = await rows();
      const firsts = [
        await call(stack.url, 'rl-idem-1'),
        await call(secondUrl, 'rl-idem-2'),
        await call(stack.url, 'rl-idem-3'),
      ];
      expect(firsts.map((r) => [r.status, r.headers.get('idempotent-replayed')])).toEqual(Array(3).fill([200, null]));
      // The limit is spent; repeats of a key already run get the first answer, however many.
      for (const [i, url] of [stack.url, secondUrl, stack.url, secondUrl].entries()) {
        const again = await call(url, 'rl-idem-2');
        expect({ i, status: again.status, replayed: again.headers.get('idempotent-replayed') }).toEqual({
          i,
          status: 200,
          replayed: 'true',
        });
        expect(again.json).toEqual(firsts[1]!.json);
      }
      expect(await rows()).toBe(before + 3);
      // A new key is a new call: counted, and refused.
      const fresh = await call(secondUrl, 'rl-idem-4');
      expect(fresh.status).toBe(429);
      expect(fresh.json.error).toBe('rate_limited');
      // Refused before the session service saw it, the key was never claimed: once the limit allows, it runs.
      expect(await stack.db.prisma.idempotencyKey.count({ where: { key: 'rl-idem-4' } })).toBe(0);
      // Over MCP the same: `_meta.idempotency_key` of a held key is answered from the first call, a new one is refused.
      const mcp = (idempotencyKey: string) =>
        http(`${secondUrl}/v1/sessions/${session}/mcp`, {
          method: 'POST',
          headers: { ...auth(caller), accept: 'application/json, text/event-stream' },
          json: {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'codespar_list_tools', arguments: {}, _meta: { idempotency_key: idempotencyKey } },
          },
        });
      const repeated = await mcp('rl-idem-3');
      expect(repeated.json.result.isError).toBeFalsy();
      expect(repeated.json.result.structuredContent).toEqual(firsts[2]!.json);
      expect((await mcp('rl-idem-mcp')).json.result.structuredContent).toMatchObject({ code: 'rate_limited' });
      expect(await rows()).toBe(before + 3);
    });

    it('the proxy counts against a provider limit, on either replica; execute of another provider does not', async () => {
      const { key: caller } = await stack.key(['tools:execute', 'sessions:create']);
      const ses = (
        await http(`${stack.url}/v1/sessions`, { method: 'POST', headers: auth(caller), json: { servers: ['zzpay'] } })
      ).json.id as string;
      const put = await http(`${stack.url}/v1/rate-limits`, {
        method: 'PUT',
        headers: auth(key),
        json: { limits: [{ scope: 'provider', target: 'zzpay', per_minute: 2 }] },
      });
      expect(put.status).toBe(200);
      const proxy = (url: string) =>
        http(`${url}/v1/sessions/${ses}/proxy`, {
          method: 'POST',
          headers: auth(caller),
          json: { server: 'zzpay', endpoint: '/v1/payments', method: 'GET' },
        });
      // Whatever the provider answers, the two calls the limit allows get through the gateway.
      const first = await proxy(stack.url);
      const second = await proxy(secondUrl);
      for (const r of [first, second]) {
        expect(r.status).not.toBe(429);
        expect(r.headers.get('ratelimit-policy')).toBe('"provider:zzpay/min";q=2;w=216000');
      }
      const third = await proxy(stack.url);
      expect(third.status).toBe(429);
      expect(third.json.error).toBe('rate_limited');
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(third.headers.get('ratelimit')).toMatch(/^"provider:zzpay\/min";r=0;t=\d+$/);
      // A meta-tool names no provider before routing: the provider limit does not count it.
      const listed = await http(`${stack.url}/v1/sessions/${ses}/execute`, {
        method: 'POST',
        headers: auth(caller),
        json: { tool: 'codespar_list_tools' },
      });
      expect(listed.status).toBe(200);
      expect(listed.headers.get('ratelimit')).toBeNull();
    });
  });

  it('GET /v1/usage: this month by tool for the project and environment, and the org quota', async () => {
    const usage = await http(`${stack.url}/v1/usage`, { headers: auth(approver) });
    expect(usage.status).toBe(200);
    const pays = usage.json.calls.find((c: { tool: string }) => c.tool === 'codespar_pay');
    expect(pays.calls).toBeGreaterThan(0);
    expect(usage.json.total).toBe(usage.json.calls.reduce((n: number, c: { calls: number }) => n + c.calls, 0));
    expect(usage.json.quota).toMatchObject({ plan: expect.any(String), limit: expect.any(Number), enforced: true });
    expect(usage.json.quota.used).toBeGreaterThanOrEqual(usage.json.total);
  });
});
