import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { TelemetryStore } from '../apps/router/src/telemetry/telemetry.store';
import { http, startStack, type Stack } from './helpers/stack';

/** Screenshots of every page, kept after the run. */
const ARTIFACTS = join(__dirname, 'artifacts', 'dashboards');
const CHROMIUM = process.env.ROTA_CHROMIUM ?? '/usr/bin/chromium';
/** What the page scripts read from a row; the test project has no DOM types. */
type Element = { dataset: Record<string, string | undefined> };

describe('dashboards in headless Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let key: string;
  const requests: Request[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`No Chromium at ${CHROMIUM}: run scripts/ensure-chromium.sh, or set ROTA_CHROMIUM`);
    mkdirSync(ARTIFACTS, { recursive: true });
    stack = await startStack({ env: { ROTA_WEBHOOK_ALLOW_PRIVATE: 'true', ROTA_HEALTH_INTERVAL_S: '3600' } });
    key = (await stack.key(['servers:read', 'webhooks:write'])).key;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    context = await browser.newContext({ acceptDownloads: true });
    page = await context.newPage();
    page.on('request', (r) => requests.push(r));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('signs in with a key traded for an HttpOnly, SameSite=Strict cookie; the key never appears in a URL', async () => {
    await page.goto(`${stack.url}/dashboard/health`);
    await page.fill('#key', key);
    await page.click('#login button[type=submit]');
    await page.waitForSelector('#overall');
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'rota_dashboard', httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
    expect(cookie!.value).not.toContain(key);
    expect(requests.some((r) => r.url().includes(key))).toBe(false);
    expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe(
      '',
    );
  });

  it('health: renders the six checks, the connections panel and the deep link with the filter filled in', async () => {
    await page.goto(`${stack.url}/dashboard/health`);
    await page.waitForSelector('#checks');
    const api = (await http(`${stack.url}/v1/health`, { headers: { authorization: `Bearer ${key}` } })).json;
    expect(await page.textContent('#overall')).toBe(api.status);
    const names = await page.$$eval('#checks tr[data-check]', (rows) =>
      rows.map((r) => (r as unknown as Element).dataset.check),
    );
    expect(names.sort()).toEqual(['connections', 'credentials', 'database', 'embeddings', 'fx', 'telemetry']);
    expect(await page.textContent('#connections')).toContain('0 provider(s) connected');
    await page.screenshot({ path: join(ARTIFACTS, 'health.png'), fullPage: true });

    await http(`${stack.url}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      json: { url: 'http://127.0.0.1:9/hook', events: ['system.health.*'] },
    });
    await http(`${stack.url}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      json: { url: 'http://127.0.0.1:9/other', events: ['call.failed'] },
    });
    await page.click('#triggers-link');
    await page.waitForSelector('#webhooks');
    expect(new URL(page.url()).searchParams.get('event')).toBe('system.health.degraded');
    expect(await page.inputValue('#event-filter')).toBe('system.health.degraded');
    // Only the subscription that listens to the event is listed.
    const urls = await page.$$eval('#webhooks tr[data-webhook] td:nth-child(2)', (tds) =>
      tds.map((t) => t.textContent),
    );
    expect(urls).toEqual(['http://127.0.0.1:9/hook']);
    await page.screenshot({ path: join(ARTIFACTS, 'triggers.png'), fullPage: true });
  });

  it('router: one row per provider and tool, equal to /v1/router/metrics, busiest first, with the idle ones folded away', async () => {
    const before = (await http(`${stack.url}/v1/router/metrics`, { headers: { authorization: `Bearer ${key}` } })).json;
    expect(before.rows.length).toBeGreaterThan(2);
    // Traffic on two pairs that sort late by name: three attempts on the last, one on the one before it.
    const [quiet, busiest] = before.rows.slice(-2) as { provider_id: string; tool: string }[];
    const telemetry = stack.services.router.app.get(TelemetryStore);
    for (const [pair, n] of [
      [busiest!, 3],
      [quiet!, 1],
    ] as const) {
      for (let i = 0; i < n; i++)
        await telemetry.record({
          environment: 'live',
          provider_id: pair.provider_id,
          tool: pair.tool,
          success: true,
          latency_ms: 40 + i,
        });
    }
    await page.goto(`${stack.url}/dashboard/router`);
    await page.waitForSelector('#rows');
    const api = (await http(`${stack.url}/v1/router/metrics`, { headers: { authorization: `Bearer ${key}` } })).json;
    const pairOf = (r: { provider_id: string; tool: string }) => `${r.provider_id}|${r.tool}`;
    const shown = await page.$$eval('#rows tr[data-pair]', (rows) =>
      rows.map((r) => (r as unknown as Element).dataset.pair),
    );
    expect(shown).toEqual([pairOf(busiest!), pairOf(quiet!)]);
    expect(await page.$$eval('#rows td.attempts', (tds) => tds.map((t) => t.textContent))).toEqual(['3', '1']);
    // Every other pair is there, folded: the summary counts them and they are hidden until it is opened.
    const idle = api.rows.filter((r: { attempts: number }) => r.attempts === 0);
    expect(idle.length).toBe(api.rows.length - 2);
    expect(await page.textContent('#idle summary')).toBe(`${idle.length} provider and tool pair(s) with no attempts`);
    expect(await page.isVisible('#idle-rows')).toBe(false);
    await page.click('#idle summary');
    const folded = await page.$$eval('#idle-rows tr[data-pair]', (rows) =>
      rows.map((r) => (r as unknown as Element).dataset.pair),
    );
    expect(new Set([...shown, ...folded])).toEqual(new Set(api.rows.map(pairOf)));
    expect(folded).toHaveLength(idle.length);
    expect(await page.$$eval('svg.spark', (s) => s.length)).toBe(api.rows.length);
    await page.screenshot({ path: join(ARTIFACTS, 'router.png'), fullPage: true });
  });

  it('router candidates: marks survive a reload, the export holds only claimed entries, and no request carries the report', async () => {
    const report = {
      generated_at: '2026-12-01T00:00:00Z',
      candidates: [
        { id: 'asaas/create_charge', tool: 'create_charge', meta_tool: 'codespar_pay', reason: 'charges a customer' },
        { id: 'melhorenvio/quote', tool: 'quote', meta_tool: 'codespar_ship', reason: 'quotes a shipment' },
        { id: 'focusnfe/emit', tool: 'emit', meta_tool: 'codespar_invoice', reason: 'issues an invoice' },
      ],
    };
    const file = join(tmpdir(), `candidates-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(report));
    const before = requests.length;
    await page.goto(`${stack.url}/dashboard/router-candidates`);
    await page.setInputFiles('#report', file);
    await page.waitForSelector('#summary');
    await page.click('tr[data-candidate="asaas/create_charge"] button[data-mark=claimed]');
    await page.click('tr[data-candidate="melhorenvio/quote"] button[data-mark=deferred]');
    await page.click('tr[data-candidate="focusnfe/emit"] button[data-mark=rejected]');
    await page.reload();
    await page.waitForSelector('#summary');
    const marks = await page.$$eval('tr[data-candidate]', (rows) =>
      rows.map((r) => [(r as unknown as Element).dataset.candidate, r.className]),
    );
    expect(marks).toEqual([
      ['asaas/create_charge', 'mark-claimed'],
      ['melhorenvio/quote', 'mark-deferred'],
      ['focusnfe/emit', 'mark-rejected'],
    ]);
    // Marks are kept per report checksum: a different report starts clean.
    const stored = await page.evaluate(() =>
      Object.keys((globalThis as unknown as { localStorage: object }).localStorage).filter((k) =>
        k.startsWith('rota:candidates:'),
      ),
    );
    expect(stored).toHaveLength(1);
    const download = page.waitForEvent('download');
    await page.click('#export');
    expect((await download).suggestedFilename()).toBe('claimed-candidates.json');
    const exported = JSON.parse((await page.textContent('#exported'))!);
    expect(exported.claimed.map((c: { id: string }) => c.id)).toEqual(['asaas/create_charge']);
    await page.screenshot({ path: join(ARTIFACTS, 'router-candidates.png'), fullPage: true });
    const sent = requests.slice(before);
    expect(
      sent.every(
        (r) =>
          r.method() === 'GET' && !(r.postData() ?? '').includes('create_charge') && !r.url().includes('create_charge'),
      ),
    ).toBe(true);
  });
});
