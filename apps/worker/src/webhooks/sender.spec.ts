import { createServer, type Server } from 'node:http';
import { postWebhook, webhookUrlRefusal } from './sender';

describe('webhook addresses', () => {
  let server: Server;
  let hits = 0;
  let port: number;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it.each([
    'http://127.0.0.1/hook',
    'http://127.1/hook',
    'http://2130706433/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.8/hook',
    'http://localhost/hook',
  ])('refuses %s', async (url) => {
    expect(await webhookUrlRefusal(url, false)).toMatch(/not a public address/);
  });

  it('accepts a public address, and anything when private addresses are allowed', async () => {
    expect(await webhookUrlRefusal('http://8.8.8.8/hook', false)).toBeUndefined();
    expect(await webhookUrlRefusal('http://127.0.0.1/hook', true)).toBeUndefined();
  });

  it('never connects to a refused address, by literal or by name', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const r = await postWebhook(`http://${host}:${port}/hook`, {}, '{}', { timeoutMs: 1000, allowPrivate: false });
      expect(r).toMatchObject({ status: null, error: expect.stringMatching(/not a public address/) });
    }
    expect(hits).toBe(0);
    const ok = await postWebhook(`http://127.0.0.1:${port}/hook`, {}, '{}', { timeoutMs: 1000, allowPrivate: true });
    expect(ok).toMatchObject({ status: 204, error: null });
    expect(hits).toBe(1);
  });
});
