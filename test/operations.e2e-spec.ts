import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '@rota/cli';
import { ApiKeyRepository } from '@rota/db';
import { loadConfig, RpcClient, startMetricsListener, startService, type StartedService } from '@rota/service-kit';
import { parsePrometheusText } from '@rota/service-kit/testing/prometheus-text';
import { WorkerConfig } from '../apps/worker/src/config';
import { HealthService } from '../apps/worker/src/health/health.service';
import { verifyWebhook } from '../apps/worker/src/webhooks/signing';
import { WorkerModule } from '../apps/worker/src/worker.module';
import { http, startStack, type Stack } from './helpers/stack';

/** A webhook receiver on 127.0.0.1 that records every request and answers `status()`. */
async function receiver(status: () => number) {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(status()).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();

describe('operations: metrics, the health rollup, and health events through signed webhooks', () => {
  let stack: Stack;
  let worker2: StartedService;
  let operator: string;
  let project: string;

  beforeAll(async () => {
    stack = await startStack({
      demoCatalog: true,
      env: {
        // Receivers here listen on loopback; production refuses it.
        ROTA_WEBHOOK_ALLOW_PRIVATE: 'true',
        ROTA_WEBHOOK_ATTEMPTS: '3',
        ROTA_WEBHOOK_BACKOFF_MS: '50',
        // Evaluations are driven by the test, not the clock.
        ROTA_HEALTH_INTERVAL_S: '3600',
        ROTA_EVENTS_DISPATCH_EVERY_MS: '60000',
      },
    });
    // A second worker replica on the same database and Redis prefix.
    worker2 = await startService(
      'worker',
      WorkerModule.forConfig(loadConfig(WorkerConfig, stack.env)),
      loadConfig(WorkerConfig, stack.env),
    );
    operator = (await stack.operatorKey(['admin', 'servers:read', 'webhooks:write'])).key;
    project = (await stack.key(['servers:read', 'webhooks:write'])).key;
  }, 120_000);

  afterAll(async () => {
    await worker2?.app.close();
    await stack?.close();
  });

  const get = (path: string, key: string) =>
    http(`${stack.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const post = (path: string, key: string, json: unknown) =>
    http(`${stack.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, json });

  it('serves /metrics to operator keys only, as valid exposition text with HTTP and transport series', async () => {
    await get('/v1/health', operator);
    expect((await get('/metrics', project)).status).toBe(403);
    const res = await get('/metrics', operator);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusText(res.text);
    const http = families.find((f) => f.name === 'rota_http_requests_total')!;
    expect(http.samples).toContainEqual(
      expect.objectContaining({ labels: { method: 'GET', route: '/v1/health', status: '200' } }),
    );
    const transport = families.find((f) => f.name === 'rota_transport_client_duration_seconds')!;
    expect(transport.samples.some((s) => s.labels.pattern === 'worker.health' && s.labels.outcome === 'ok')).toBe(true);
    // No raw URL or id ever becomes a label value.
    expect(res.text).not.toMatch(/proj_dev|csk_/);
  });

  it('publishes router attempts, job outcomes and embedding coverage', async () => {
    const rpc = stack.gateway.get(RpcClient);
    const tenant = { org_id: 'org_dev', project_id: 'proj_dev', environment: 'live' as const };
    await rpc.send(
      'router.record',
      { provider_id: 'asaas', tool: 'codespar_pay', success: true, latency_ms: 120 },
      { tenant },
    );
    await rpc.send(
      'router.record',
      { provider_id: 'asaas', tool: 'codespar_pay', success: false, latency_ms: 900, error_code: 'upstream_5xx' },
      { tenant },
    );
    await stack.services.worker.app.get(HealthService).evaluateAll();
    const families = parsePrometheusText((await get('/metrics', operator)).text);
    const attempts = families.find((f) => f.name === 'rota_router_attempts_total')!;
    expect(attempts.samples).toEqual(
      expect.arrayContaining([
        {
          name: 'rota_router_attempts_total',
          labels: { provider: 'asaas', tool: 'codespar_pay', outcome: 'success' },
          value: 1,
        },
        {
          name: 'rota_router_attempts_total',
          labels: { provider: 'asaas', tool: 'codespar_pay', outcome: 'failure' },
          value: 1,
        },
      ]),
    );
    const coverage = families.find((f) => f.name === 'rota_embedding_coverage_ratio')!;
    expect(coverage.samples[0]!.value).toBeGreaterThanOrEqual(0);
    expect(families.find((f) => f.name === 'rota_health_status')!.samples).toHaveLength(3);
    const jobs = families.find((f) => f.name === 'rota_jobs_total')!;
    expect(jobs.samples.some((s) => s.labels.queue === 'catalog' && s.labels.outcome === 'completed')).toBe(true);
  });

  it('serves the same registry on a service’s own metrics listener, with queue depths', async () => {
    const listener = await startMetricsListener(0);
    try {
      const res = await http(`http://127.0.0.1:${listener.port}/metrics`);
      const families = parsePrometheusText(res.text);
      const queues = families.find((f) => f.name === 'rota_queue_jobs')!;
      expect(new Set(queues.samples.map((s) => s.labels.queue))).toEqual(
        new Set(['maintenance', 'catalog', 'webhooks']),
      );
      expect((await http(`http://127.0.0.1:${listener.port}/other`)).status).toBe(404);
    } finally {
      await listener.close();
    }
  });

  it('answers the six checks for a project key and the four deployment-wide ones for an operator', async () => {
    const mine = await get('/v1/health', project);
    expect(mine.status).toBe(200);
    expect(Object.keys(mine.json.checks).sort()).toEqual([
      'connections',
      'credentials',
      'database',
      'embeddings',
      'fx',
      'telemetry',
    ]);
    expect(mine.json.checks.credentials).toMatchObject({ ok: true, status: 'up' });
    // No connection in this project: `none` is off nominal.
    expect(mine.json.checks.connections).toMatchObject({ ok: false, status: 'none', count: 0 });
    expect(mine.json.checks.telemetry).toMatchObject({ ok: true, status: 'no_connections' });
    expect(mine.json.status).toBe('degraded');
    const ops = await get('/v1/health', operator);
    expect(Object.keys(ops.json.checks).sort()).toEqual(['credentials', 'database', 'embeddings', 'fx']);
    // No FX source and no rate: not configured, which is nominal.
    expect(ops.json.checks.fx).toMatchObject({ ok: true, status: 'not_configured' });
  });

  it('pages one signed degraded and one recovered event per cycle with two worker replicas, retries a failing receiver and replays its dead delivery', async () => {
    const ok = await receiver(() => 200);
    let failing = 500;
    const bad = await receiver(() => failing);
    try {
      // The deployment must be healthy first: the worker embeds the demo catalog.
      await until(
        'full embedding coverage',
        async () => (await get('/v1/health', operator)).json.checks.embeddings.status === 'ok',
      );
      await post('/v1/fx/rates', operator, { rates: [{ base: 'USD', quote: 'BRL', rate: '5.4321' }] });
      expect((await get('/v1/health', operator)).json.status).toBe('healthy');
      // Earlier transitions (the catalog filling up) are fanned out before anyone subscribes.
      await until('the outbox drained', async () => {
        const [row] = await stack.db.prisma.$queryRaw<
          { n: number }[]
        >`SELECT count(*)::int AS n FROM events WHERE dispatched_at IS NULL`;
        return row!.n === 0;
      });

      const sub = await post('/v1/webhooks', operator, { url: ok.url, events: ['system.health.*'] });
      expect(sub.status).toBe(201);
      expect(sub.json).toMatchObject({ scope: 'deployment', events: ['system.health.*'] });
      expect(sub.json.secret).toMatch(/^whsec_/);
      const deadSub = await post('/v1/webhooks', operator, { url: bad.url, events: ['system.health.degraded'] });
      // A project's subscription never sees deployment-wide events.
      const projectSub = await post('/v1/webhooks', project, { url: ok.url, events: ['system.health.recovered'] });
      expect(projectSub.json.scope).toBe('project');
      const listed = await get('/v1/webhooks', operator);
      expect(listed.json.webhooks.map((w: { id: string }) => w.id).sort()).toEqual(
        [sub.json.id, deadSub.json.id].sort(),
      );
      expect(JSON.stringify(listed.json)).not.toContain('whsec_');

      const replicas = [stack.services.worker.app.get(HealthService), worker2.app.get(HealthService)];
      const evaluateEverywhere = () =>
        Promise.all([...replicas.flatMap((h) => [h.evaluateAll(), h.evaluateAll()]), get('/v1/health', operator)]);

      // Stale FX: one pair observed 100 hours ago.
      await post('/v1/fx/rates', operator, {
        rates: [{ base: 'EUR', quote: 'BRL', rate: '6.1', fetched_at: hoursAgo(100) }],
      });
      await evaluateEverywhere();
      const stale = await get('/v1/health', operator);
      expect(stale.json).toMatchObject({
        status: 'degraded',
        checks: { fx: { ok: false, status: 'stale', stale_pairs: 1 } },
      });
      await until('the degraded event', async () => ok.received.length >= 1);

      await post('/v1/fx/rates', operator, { rates: [{ base: 'EUR', quote: 'BRL', rate: '6.2' }] });
      await evaluateEverywhere();
      expect((await get('/v1/health', operator)).json.status).toBe('healthy');
      await until('the recovered event', async () => ok.received.length >= 2);
      // Give any duplicate time to show up: there must be none.
      await evaluateEverywhere();
      await new Promise((r) => setTimeout(r, 500));
      const bodies = ok.received.map((r) => JSON.parse(r.body));
      expect(bodies.map((b) => b.type)).toEqual(['system.health.degraded', 'system.health.recovered']);
      expect(bodies[0].data).toMatchObject({
        scope: 'deployment',
        project_id: null,
        status: 'degraded',
        previous_status: 'healthy',
      });
      expect(bodies[0].data.checks).toEqual([expect.objectContaining({ name: 'fx', status: 'stale' })]);
      expect(bodies[1].data).toMatchObject({ status: 'healthy', previous_status: 'degraded', checks: [] });
      for (const r of ok.received) {
        const headers = {
          id: String(r.headers['webhook-id']),
          timestamp: String(r.headers['webhook-timestamp']),
          signature: String(r.headers['webhook-signature']),
        };
        expect(headers.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
        expect(verifyWebhook(sub.json.secret, headers, r.body)).toBe(true);
        expect(verifyWebhook(deadSub.json.secret, headers, r.body)).toBe(false);
        expect(headers.id).toBe(JSON.parse(r.body).id);
      }
      const history = await get('/v1/health/history?scope=deployment&transitions=true', operator);
      // Newest first: this cycle's two transitions (earlier ones, while the catalog filled up, follow).
      expect(
        history.json.snapshots
          .slice(0, 2)
          .map((s: { status: string; previous_status: string }) => [s.previous_status, s.status]),
      ).toEqual([
        ['degraded', 'healthy'],
        ['healthy', 'degraded'],
      ]);

      // The failing receiver: tried three times, then dead.
      const dead = await until('a dead delivery', async () => {
        const r = await get(`/v1/webhooks/${deadSub.json.id}/deliveries?status=dead`, operator);
        return r.json.deliveries.length === 1 && r.json.deliveries[0];
      });
      expect(bad.received).toHaveLength(3);
      expect(dead.attempts.map((a: { n: number; status_code: number }) => [a.n, a.status_code])).toEqual([
        [1, 500],
        [2, 500],
        [3, 500],
      ]);
      failing = 204;
      const replayed = await post(`/v1/webhooks/${deadSub.json.id}/deliveries/${dead.id}/replay`, operator, {});
      expect(replayed.status).toBe(202);
      expect(replayed.json.status).toBe('pending');
      await until('the replayed delivery', async () => {
        const r = await get(`/v1/webhooks/${deadSub.json.id}/deliveries`, operator);
        return r.json.deliveries[0].status === 'delivered';
      });
      expect(bad.received).toHaveLength(4);
      expect(bad.received[3]!.headers['webhook-id']).toBe(bad.received[0]!.headers['webhook-id']);
      expect(
        verifyWebhook(
          deadSub.json.secret,
          {
            id: String(bad.received[3]!.headers['webhook-id']),
            timestamp: String(bad.received[3]!.headers['webhook-timestamp']),
            signature: String(bad.received[3]!.headers['webhook-signature']),
          },
          bad.received[3]!.body,
        ),
      ).toBe(true);

      // Another tenant's key cannot see or touch the operator's subscription.
      expect((await get(`/v1/webhooks/${deadSub.json.id}/deliveries`, project)).status).toBe(404);
      expect(
        (
          await http(`${stack.url}/v1/webhooks/${sub.json.id}`, {
            method: 'DELETE',
            headers: { authorization: `Bearer ${project}` },
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await http(`${stack.url}/v1/webhooks/${sub.json.id}`, {
            method: 'DELETE',
            headers: { authorization: `Bearer ${operator}` },
          })
        ).json,
      ).toEqual({
        id: sub.json.id,
        deleted: true,
      });
    } finally {
      await ok.close();
      await bad.close();
    }
  }, 90_000);

  describe('dashboards', () => {
    const cookieFor = async (key: string) => {
      const res = await http(`${stack.url}/dashboard/session`, { method: 'POST', json: { key } });
      expect(res.status).toBe(204);
      const setCookie = res.headers.get('set-cookie')!;
      expect(setCookie).toMatch(
        /^rota_dashboard=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict; Max-Age=900$/,
      );
      // The key is not in the cookie.
      expect(setCookie).not.toContain(key);
      return setCookie.split(';')[0]!;
    };
    const view = (name: string, cookie?: string) =>
      http(`${stack.url}/dashboard/data/${name}`, { headers: cookie ? { cookie } : {} });

    it('serves each page as self-contained HTML under a CSP that allows only its own script', async () => {
      for (const page of ['health', 'triggers', 'router', 'router-candidates', 'queues']) {
        const res = await http(`${stack.url}/dashboard/${page}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        const csp = res.headers.get('content-security-policy')!;
        const script = /<script>([\s\S]*)<\/script>/.exec(res.text)![1]!;
        const hash = createHash('sha256').update(script).digest('base64');
        expect(csp).toContain(`script-src 'sha256-${hash}'`);
        expect(res.text).not.toMatch(/<script src=|<link /);
      }
      const health = await http(`${stack.url}/dashboard/health`);
      expect(health.text).toContain('href="/dashboard/triggers?event=system.health.degraded"');
    });

    it('trades a key for a cookie, answers data for that key only, and stops when the key is revoked', async () => {
      expect((await view('health')).status).toBe(401);
      expect(
        (
          await http(`${stack.url}/dashboard/session`, {
            method: 'POST',
            json: { key: 'csk_live_notakeyatallnotakeyatall00' },
          })
        ).status,
      ).toBe(401);
      const created = await stack.key(['servers:read', 'webhooks:write']);
      const cookie = await cookieFor(created.key);
      const health = await view('health', cookie);
      expect(health.status).toBe(200);
      expect(health.json).toMatchObject({ project_id: 'proj_dev', checks: { connections: { status: 'none' } } });
      const router = await view('router', cookie);
      expect(router.status).toBe(200);
      const api = await get('/v1/router/metrics', created.key);
      expect(router.json.rows).toEqual(api.json.rows);
      expect((await view('triggers', cookie)).json).toEqual({ webhooks: expect.any(Array) });
      expect((await view('queues', cookie)).status).toBe(403);
      const ops = await cookieFor(operator);
      const queues = await view('queues', ops);
      expect(queues.json.queues.map((q: { name: string }) => q.name).sort()).toEqual([
        'catalog',
        'maintenance',
        'webhooks',
      ]);
      expect((await view('router', ops)).status).toBe(403);
      await new ApiKeyRepository(stack.db.prisma).revoke(created.id);
      expect((await view('health', cookie)).status).toBe(401);
      expect((await view('nonsense', ops)).status).toBe(404);
      // A view needs the scope of the route it mirrors.
      const hooksOnly = await cookieFor((await stack.key(['webhooks:write'])).key);
      expect((await view('health', hooksOnly)).status).toBe(403);
      expect((await view('triggers', hooksOnly)).status).toBe(200);
    });
  });

  it('sends a project’s own transitions to that project and environment’s subscribers only', async () => {
    const hook = await receiver(() => 200);
    try {
      const testKey = (await stack.key(['servers:read', 'webhooks:write'], { environment: 'test' })).key;
      const mine = await post('/v1/webhooks', testKey, { url: hook.url, events: ['system.health.*'] });
      const other = await post('/v1/webhooks', project, { url: `${hook.url}?live`, events: ['*'] });
      expect([mine.status, other.status]).toEqual([201, 201]);
      // First evaluation of proj_dev in `test`: no connection, so degraded, and paged.
      expect((await get('/v1/health', testKey)).json.status).toBe('degraded');
      await until('the project event', async () => hook.received.length >= 1);
      await new Promise((r) => setTimeout(r, 300));
      expect(hook.received.map((r) => r.headers['webhook-id'] && JSON.parse(r.body).data)).toEqual([
        expect.objectContaining({
          scope: 'project',
          project_id: 'proj_dev',
          environment: 'test',
          status: 'degraded',
          previous_status: null,
        }),
      ]);
      const deliveries = await get(`/v1/webhooks/${other.json.id}/deliveries`, project);
      expect(deliveries.json.deliveries).toEqual([]);
    } finally {
      await hook.close();
    }
  });

  it('drives health, fx, webhooks and router candidates from the CLI', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rota-ops-cli-'));
    const rota = async (key: string, argv: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await run(argv, {
        stdout: (t) => void (stdout += t),
        stderr: (t) => void (stderr += t),
        env: { ROTA_URL: stack.url, ROTA_API_KEY: key, ROTA_CONFIG_DIR: dir },
      });
      return { code, stdout, stderr };
    };
    const health = await rota(project, ['health', '--json']);
    expect(health.code).toBe(0);
    expect(Object.keys(JSON.parse(health.stdout).checks)).toHaveLength(6);

    writeFileSync(
      join(dir, 'rates.json'),
      JSON.stringify({ base: 'USD', date: '2026-11-30', rates: { MXN: 17.05, COP: '3950.25' } }),
    );
    const imported = await rota(operator, ['fx', 'import', join(dir, 'rates.json')]);
    expect(imported).toMatchObject({ code: 0, stdout: 'imported 2 pair(s); 0 kept a newer stored rate\n' });
    const rates = JSON.parse((await rota(operator, ['fx', 'list', '--json'])).stdout).rates;
    expect(rates).toContainEqual(
      expect.objectContaining({
        base: 'USD',
        quote: 'COP',
        rate: '3950.25',
        source: 'import',
        fetched_at: '2026-11-30T00:00:00.000Z',
      }),
    );
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ base: 'USD', rates: { BRL: -1 } }));
    const bad = await rota(operator, ['fx', 'import', join(dir, 'bad.json')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/rates\.BRL: the rate must be a positive number/);

    const created = await rota(project, [
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:9/cli',
      '--events',
      'system.health.*,call.failed',
    ]);
    expect(created.code).toBe(0);
    const id = /^(whk_\w+)$/m.exec(created.stdout)![1]!;
    expect(created.stdout).toMatch(/secret: whsec_/);
    expect((await rota(project, ['webhooks', 'list'])).stdout).toContain(id);
    expect((await rota(project, ['webhooks', 'deliveries', id, '--dead', '--json'])).stdout).toContain(
      '"deliveries": []',
    );
    expect((await rota(project, ['webhooks', 'delete', id])).stdout).toBe(`deleted ${id}\n`);

    const out = join(dir, 'candidates.json');
    const candidates = await rota(project, ['router', 'candidates', '--out', out]);
    expect(candidates.code).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    expect(report.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(report.candidates.length).toBeGreaterThan(0);
    const railed = new Set(
      (await get('/v1/router/metrics', project)).json.rows.map(
        (r: { provider_id: string; tool: string }) => `${r.provider_id}|${r.tool}`,
      ),
    );
    for (const c of report.candidates) expect(railed.has(`${c.server_id}|${c.meta_tool}`)).toBe(false);
  });

  it('refuses a bad subscription with a clear 400', async () => {
    const bad = await post('/v1/webhooks', project, { url: 'ftp://example.com/x', events: ['nothing.here'] });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('invalid_body');
    expect(JSON.stringify(bad.json.issues)).toMatch(/url|events/);
  });
});
