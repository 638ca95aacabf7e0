import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CatalogUrlError, fetchCatalogText, isPublicAddress } from './url';

const CATALOG = JSON.stringify({ servers: [] });

interface Local {
  server: Server;
  /** `http://<host>:<port>` */
  origin: string;
  /** Request paths it was asked for, in order. */
  hits: string[];
}

/** An HTTP server on `host` answering `handle(path)`: a redirect (`location`) or a body. */
async function listen(
  host: string,
  handle: (path: string, self: Local) => { location: string } | { body: string },
): Promise<Local> {
  const local = { hits: [] as string[] } as Local;
  local.server = createServer((req, res) => {
    local.hits.push(req.url ?? '');
    const out = handle(req.url ?? '/', local);
    if ('location' in out) res.writeHead(302, { location: out.location }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(out.body);
  });
  await new Promise<void>((resolve) => local.server.listen(0, host, resolve));
  local.origin = `http://${host}:${(local.server.address() as AddressInfo).port}`;
  return local;
}

const close = (l: Local) => new Promise<void>((resolve) => l.server.close(() => resolve()));

/**
 * The catalog host a caller named: a public server in production, played by
 * one loopback address that the policy's test seam admits. Every other
 * non-public address stays refused, as the default policy refuses them all.
 */
const ALLOWED_HOST = '127.0.0.1';
const policy = { addressAllowed: (a: string) => a === ALLOWED_HOST || isPublicAddress(a), timeoutMs: 5000 };

describe('catalog URL fetch across redirects', () => {
  // Listens on a second loopback address, which Linux routes to lo like
  // 127.0.0.1: a service on the private network that a redirect must not reach.
  let inside: Local;
  let allowed: Local;
  let redirectTo: string;

  beforeAll(async () => {
    inside = await listen('127.0.0.2', () => ({ body: JSON.stringify({ secret: 'metadata credentials' }) }));
    allowed = await listen(ALLOWED_HOST, (path, self) => {
      if (path === '/catalog.json') return { body: CATALOG };
      if (path === '/moved') return { location: '/catalog.json' };
      if (path === '/hop') return { location: `${self.origin}/away` };
      return { location: redirectTo };
    });
  });
  afterAll(async () => {
    await close(allowed);
    await close(inside);
  });

  it('follows a redirect that stays on allowed addresses', async () => {
    await expect(fetchCatalogText(`${allowed.origin}/moved`, policy)).resolves.toBe(CATALOG);
  });

  it.each([
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'],
    ['the metadata address as IPv4-mapped IPv6', () => 'http://[::ffff:a9fe:a9fe]/latest/meta-data/'],
    ['a listening service on another loopback address', () => `${inside.origin}/catalog.json`],
    ['the same service by its decimal address', () => `http://2130706434:${new URL(inside.origin).port}/catalog.json`],
    ['IPv6 loopback', () => `http://[::1]:${new URL(inside.origin).port}/catalog.json`],
  ])('refuses a redirect from an allowed server to %s', async (_what, target) => {
    redirectTo = target();
    for (const start of ['/away', '/hop']) {
      const before = allowed.hits.length;
      const fetched = fetchCatalogText(`${allowed.origin}${start}`, policy);
      await expect(fetched).rejects.toBeInstanceOf(CatalogUrlError);
      await expect(fetchCatalogText(`${allowed.origin}${start}`, policy)).rejects.toThrow(/not a public address/);
      // The allowed server was asked (so the refusal came at the redirect), the private one never.
      expect(allowed.hits.length).toBeGreaterThan(before);
    }
    expect(inside.hits).toEqual([]);
  });
});
