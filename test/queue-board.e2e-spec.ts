import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { Queue, type Job } from 'bullmq';
import Redis from 'ioredis';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { HealthService } from '../apps/worker/src/health/health.service';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(180_000);

const ARTIFACTS = join(__dirname, 'artifacts', 'dashboards');
const CHROMIUM = process.env.ROTA_CHROMIUM ?? '/usr/bin/chromium';
const BOARD = '/dashboard/queues/board';

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe('the queue board (/dashboard/queues) in headless Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let operator: string;
  let receiver: Server;
  let receiverUrl: string;
  let answer = 500;
  let received = 0;
  let redis: Redis;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`No Chromium at ${CHROMIUM}: run scripts/ensure-chromium.sh, or set ROTA_CHROMIUM`);
    mkdirSync(ARTIFACTS, { recursive: true });
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    stack = await startStack({
      demoCatalog: true,
      env: {
        ROTA_WEBHOOKS_ALLOW_PRIVATE: 'true',
        ROTA_WEBHOOK_ATTEMPTS: '2',
        ROTA_WEBHOOK_BACKOFF_MS: '50',
        ROTA_HEALTH_INTERVAL_S: '3600',
      },
    });
    operator = (await stack.operatorKey(['admin', 'servers:read', 'webhooks:write'])).key;
    redis = new Redis(stack.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    context = await browser.newContext();
    page = await context.newPage();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    redis?.disconnect();
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  });

  const get = (path: string) => http(`${stack.url}${path}`, { headers: { authorization: `Bearer ${operator}` } });
  const post = (path: string, json: unknown) =>
    http(`${stack.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${operator}` }, json });
  const cookieHeader = async () => (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');

  it('shows a webhook delivery that went dead as a failed job, and retrying it from the board delivers it', async () => {
    // A healthy deployment first, with the earlier transitions already fanned out.
    await until(
      'full embedding coverage',
      async () => (await get('/v1/health')).json.checks.embeddings.status === 'ok',
      90_000,
    );
    await post('/v1/fx/rates', { rates: [{ base: 'USD', quote: 'BRL', rate: '5.4321' }] });
    const health = stack.services.worker.app.get(HealthService);
    await health.evaluateAll();
    await until('the outbox drained', async () => {
      const [row] = await stack.db.prisma.$queryRaw<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM events WHERE dispatched_at IS NULL`;
      return row!.n === 0;
    });
    const hook = await post('/v1/webhooks', { url: receiverUrl, events: ['system.health.degraded'] });
    expect(hook.status).toBe(201);
    await post('/v1/fx/rates', {
      rates: [
        { base: 'EUR', quote: 'BRL', rate: '6.1', fetched_at: new Date(Date.now() - 100 * 3600_000).toISOString() },
      ],
    });
    await health.evaluateAll();
    const dead = await until(
      'the dead delivery',
      async () => (await get(`/v1/webhooks/${hook.json.id}/deliveries?status=dead`)).json.deliveries[0],
    );
    expect(received).toBe(2);

    // The counts page: sign in, and the dead delivery is the webhooks queue's one failed job.
    await page.goto(`${stack.url}/dashboard/queues`);
    await page.fill('#key', operator);
    await page.click('#login button[type=submit]');
    await page.waitForSelector('.counts[data-queue="webhooks"]');
    expect(await page.textContent('.counts[data-queue="webhooks"]')).toContain('failed: 1');
    await page.screenshot({ path: join(ARTIFACTS, 'queues.png'), fullPage: true });

    // The board: the failed list shows the job, its detail names the delivery.
    await page.click('#board-link');
    await page.waitForURL(/\/dashboard\/queues\/board\/?$/);
    await page.goto(`${stack.url}${BOARD}/queue/webhooks?status=failed`);
    await page.getByText('webhooks.deliver').first().waitFor({ timeout: 30_000 });
    expect(await page.content()).toContain(dead.id);
    await page.screenshot({ path: join(ARTIFACTS, 'queue-board-failed.png'), fullPage: true });

    answer = 204;
    const writes: { url: string; csrf: string | undefined; status: number }[] = [];
    page.on('response', (r) => {
      if (r.request().method() !== 'GET')
        writes.push({ url: r.url(), csrf: r.request().headers()['x-rota-csrf'], status: r.status() });
    });
    // The job card's actions are icon buttons named by tooltips, Retry first: hovering it shows its name.
    const retry = page.locator('[data-base-ui-tooltip-trigger] > button').first();
    await retry.hover();
    await page.getByText('Retry', { exact: true }).first().waitFor({ timeout: 5000 });
    await retry.click();
    const confirm = page.getByRole('button', { name: 'Confirm', exact: true });
    await confirm.waitFor({ timeout: 3000 }).catch(() => undefined);
    if (await confirm.isVisible().catch(() => false)) await confirm.click();
    await until('the board retried the job', async () => writes.length > 0, 10_000).catch(() => undefined);
    expect(writes.map((w) => ({ status: w.status, csrf: typeof w.csrf }))).toEqual([{ status: 204, csrf: 'string' }]);
    await until(
      'the delivery delivered',
      async () => (await get(`/v1/webhooks/${hook.json.id}/deliveries`)).json.deliveries[0]?.status === 'delivered',
    );
    expect(received).toBe(3);
    expect(writes).toContainEqual(
      expect.objectContaining({ status: 204, csrf: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) }),
    );
    await page.screenshot({ path: join(ARTIFACTS, 'queue-board-retried.png'), fullPage: true });
  });

  it('refuses writes without the CSRF token, on read-only queues and on scheduled jobs; only operator keys see it', async () => {
    await page.goto(`${stack.url}${BOARD}/`);
    const csrf = (await page.getAttribute('meta[name="rota-csrf"]', 'content'))!;
    const cookie = await cookieHeader();
    const put = (path: string, headers: Record<string, string> = {}) =>
      http(`${stack.url}${BOARD}${path}`, { method: 'PUT', headers: { cookie, ...headers } });

    expect((await put('/api/queues/webhooks/clean/completed')).status).toBe(403);
    expect((await put('/api/queues/webhooks/clean/completed', { 'x-rota-csrf': 'x'.repeat(43) })).status).toBe(403);
    expect((await put('/api/queues/webhooks/clean/completed', { 'x-rota-csrf': csrf })).status).toBeLessThan(300);
    // The maintenance queue (sessions.expire, calls.reconcile) is read-only, and so are actions outside the allow-list.
    expect((await put('/api/queues/maintenance/retry/failed', { 'x-rota-csrf': csrf })).status).toBe(403);
    expect((await put('/api/queues/webhooks/empty', { 'x-rota-csrf': csrf })).status).toBe(403);
    // The next run of a job scheduler cannot be removed.
    const queue = new Queue('webhooks', { connection: redis, prefix: `${stack.env.ROTA_REDIS_PREFIX}:bull` });
    const scheduled = (await queue.getDelayed()).find((j: Job) => j.repeatJobKey);
    expect(scheduled).toBeDefined();
    expect(
      (await put(`/api/queues/webhooks/${encodeURIComponent(scheduled!.id!)}/clean`, { 'x-rota-csrf': csrf })).status,
    ).toBe(403);
    expect(await queue.getJob(scheduled!.id!)).toBeDefined();
    await queue.close();

    // Without a session the page sends to sign-in and the API answers 401; a project key's session gets 403.
    const anonymous = await http(`${stack.url}${BOARD}/`, { redirect: 'manual' });
    expect({ status: anonymous.status, location: anonymous.headers.get('location') }).toEqual({
      status: 303,
      location: '/dashboard/queues',
    });
    expect((await http(`${stack.url}${BOARD}/api/queues`)).status).toBe(401);
    const project = (await stack.key(['servers:read'])).key;
    const opened = await http(`${stack.url}/dashboard/session`, { method: 'POST', json: { key: project } });
    const projectCookie = opened.headers.get('set-cookie')!.split(';')[0]!;
    expect((await http(`${stack.url}${BOARD}/api/queues`, { headers: { cookie: projectCookie } })).status).toBe(403);

    const headers = await http(`${stack.url}${BOARD}/`, { headers: { cookie } });
    expect(headers.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(headers.headers.get('cache-control')).toBe('no-store');
  });
});
