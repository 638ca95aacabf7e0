import { createServer, type Server } from 'node:http';
import { createTestDatabase, type TestDatabase } from '@rota/db';
import { FxRepository } from './fx.repository';
import { HttpFxSource } from './fx.source';
import { FxService } from './fx.service';

const quiet = { info: () => undefined, warn: () => undefined };

describe('FX rates', () => {
  let db: TestDatabase;
  let server: Server;
  let answer: { status: number; body: string };
  let url: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    server = createServer((_req, res) =>
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/latest`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await db.drop();
  });

  it('refreshes from an HTTP source in the rates format, keeping every digit of decimal text', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        base: 'usd',
        date: '2026-11-30',
        rates: { BRL: 5.4321, COP: '3950.123456789012345678', USD: 1 },
      }),
    };
    const fx = new FxService(new FxRepository(db.prisma), new HttpFxSource(url, 'rates', 2000), quiet);
    expect(await fx.refresh()).toEqual({ fetched: 2, written: 2 });
    const { rates } = await fx.list();
    expect(rates).toEqual([
      {
        base: 'USD',
        quote: 'BRL',
        rate: '5.4321',
        source: expect.stringMatching(/^http:127\.0\.0\.1:\d+$/),
        fetched_at: '2026-11-30T00:00:00.000Z',
      },
      {
        base: 'USD',
        quote: 'COP',
        rate: '3950.123456789012345678',
        source: expect.any(String),
        fetched_at: '2026-11-30T00:00:00.000Z',
      },
    ]);
  });

  it('keeps a rate observed later than an incoming one (a replayed or slow import cannot roll it back)', async () => {
    const fx = new FxService(new FxRepository(db.prisma), undefined, quiet);
    expect(
      await fx.import({
        source: 'desk',
        rates: [{ base: 'USD', quote: 'BRL', rate: '5.5', fetched_at: '2026-12-01T00:00:00Z' }],
      }),
    ).toEqual({
      imported: 1,
      kept_newer: 0,
    });
    expect(
      await fx.import({ rates: [{ base: 'USD', quote: 'BRL', rate: '4.9', fetched_at: '2026-11-01T00:00:00Z' }] }),
    ).toEqual({
      imported: 0,
      kept_newer: 1,
    });
    expect((await fx.list()).rates.find((r) => r.quote === 'BRL')).toMatchObject({ rate: '5.5', source: 'desk' });
  });

  it('fails the refresh (so the job retries) on an error answer or a malformed document, writing nothing', async () => {
    const fx = new FxService(new FxRepository(db.prisma), new HttpFxSource(url, 'rates', 2000), quiet);
    const before = (await fx.list()).rates;
    answer = { status: 503, body: '{}' };
    await expect(fx.refresh()).rejects.toThrow('the FX source answered HTTP 503');
    answer = { status: 200, body: JSON.stringify({ rates: [{ base: 'USD', quote: 'BRL', rate: '1' }] }) };
    await expect(fx.refresh()).rejects.toThrow('the document is not in the "rates" format');
    answer = { status: 200, body: JSON.stringify({ base: 'USD', rates: { BRL: -2 } }) };
    await expect(fx.refresh()).rejects.toThrow('rates.BRL: the rate must be a positive number');
    expect((await fx.list()).rates).toEqual(before);
  });
});
