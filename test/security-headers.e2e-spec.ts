import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { http, startStack, type Stack } from './helpers/stack';

const ARTIFACTS = join(__dirname, 'artifacts', 'security-headers');
const CHROMIUM = process.env.ROTA_CHROMIUM ?? '/usr/bin/chromium';

describe('security headers per route, and 405 for a known path with the wrong method', () => {
  let stack: Stack;
  let browser: Browser;
  let key: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`No Chromium at ${CHROMIUM}: run scripts/ensure-chromium.sh, or set ROTA_CHROMIUM`);
    mkdirSync(ARTIFACTS, { recursive: true });
    stack = await startStack();
    key = (await stack.key(['servers:read', 'sessions:create'])).key;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('API answers, refusals included, forbid embedding, sniffing and cross-origin reads', async () => {
    for (const r of [
      await http(`${stack.url}/v1/servers`, { headers: { authorization: `Bearer ${key}` } }),
      await http(`${stack.url}/v1/servers`),
      await http(`${stack.url}/no/such/path`),
    ]) {
      expect(r.headers.get('content-security-policy')).toBe(
        "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'",
      );
      expect(r.headers.get('cross-origin-resource-policy')).toBe('same-origin');
      expect(r.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
    }
  });

  it('public JSON stays readable from other origins', async () => {
    for (const path of ['/meta-tools.json', '/v1/meta-tools.json', '/openapi.json', '/health/live']) {
      const r = await http(`${stack.url}${path}`, { headers: { origin: 'https://agent.example' } });
      expect({ path, status: r.status, corp: r.headers.get('cross-origin-resource-policy') }).toEqual({
        path,
        status: 200,
        corp: 'cross-origin',
      });
      if (path !== '/health/live') expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('answers 405 with Allow for a known path asked with another method, before authentication, as the document says', async () => {
    const put = await http(`${stack.url}/v1/sessions`, { method: 'PUT', json: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('POST');
    expect(put.json).toMatchObject({ error: 'method_not_allowed', request_id: expect.any(String) });
    expect(put.headers.get('x-content-type-options')).toBe('nosniff');

    const session = await http(`${stack.url}/v1/sessions/ses_x`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(session.status).toBe(405);
    expect(session.headers.get('allow')!.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD']);

    const postMeta = await http(`${stack.url}/meta-tools.json`, { method: 'POST', json: {} });
    expect({ status: postMeta.status, allow: postMeta.headers.get('allow') }).toEqual({
      status: 405,
      allow: 'GET, HEAD',
    });
    // A path nothing serves is still a 404, whatever the method.
    expect((await http(`${stack.url}/v1/nothing-here`, { method: 'PUT', json: {} })).status).toBe(404);

    const doc = (await http(`${stack.url}/openapi.json`)).json;
    const created = doc.paths['/v1/sessions'].post.responses['405'];
    expect(created.headers.allow).toBeDefined();
    expect(created.description).toContain('method_not_allowed');
    for (const [path, ops] of Object.entries<Record<string, { responses: Record<string, unknown> }>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops))
        expect({ path, method, has405: '405' in op.responses }).toEqual({ path, method, has405: true });
    }
  });

  it('/docs renders in headless Chromium under its CSP, with nothing refused', async () => {
    const docs = await http(`${stack.url}/docs`);
    const csp = docs.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused/i.test(m.text())) refused.push(m.text());
    });
    page.on('pageerror', (e) => refused.push(e.message));
    await page.goto(`${stack.url}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.textContent?.trim()));
    expect(paths).toContain('/v1/sessions');
    await page.screenshot({ path: join(ARTIFACTS, 'docs.png') });
    expect(refused).toEqual([]);
    await page.close();
  });

  it('dashboard pages keep their own hashed CSP and render under it', async () => {
    const r = await http(`${stack.url}/dashboard/router`);
    expect(r.headers.get('content-security-policy')).toMatch(/script-src 'sha256-/);
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused/i.test(m.text())) refused.push(m.text());
    });
    await page.goto(`${stack.url}/dashboard/router`);
    await page.waitForSelector('#key');
    expect(refused).toEqual([]);
    await page.close();
  });
});
