import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mintRelayKey } from './mcp-stdio';

/**
 * `POST /v1/keys` is not on every gateway: a scripted one on 127.0.0.1
 * answers as one that offers it, one that does not (404), and one that
 * refuses the saved key (403).
 */
async function gateway(answer: (req: IncomingMessage, body: any) => { status: number; body?: unknown }) {
  const seen: Array<{ auth: string | undefined; body: any }> = [];
  const server = createServer((req, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : undefined;
      seen.push({ auth: req.headers.authorization, body });
      const a = answer(req, body);
      res
        .writeHead(a.status, { 'content-type': 'application/json' })
        .end(a.body === undefined ? '' : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const io = () => {
  const err: string[] = [];
  return { err, io: { stdout: () => undefined, stderr: (t: string) => void err.push(t), env: {} } };
};

describe('mintRelayKey', () => {
  it('asks for a short-lived child of the saved key, bound to the session, and answers it', async () => {
    const expires = new Date(Date.now() + 3600_000).toISOString();
    const gw = await gateway(() => ({
      status: 201,
      body: { id: 'key_child', key: 'csk_live_child', expires_at: expires },
    }));
    try {
      const { io: sink, err } = io();
      const minted = await mintRelayKey({ url: gw.url, api_key: 'csk_live_parent' }, sink, 'ses_1');
      expect(minted).toEqual({ key: 'csk_live_child', expiresAt: Date.parse(expires) });
      expect(gw.seen).toEqual([
        {
          auth: 'Bearer csk_live_parent',
          body: {
            scopes: ['tools:execute', 'servers:read', 'sessions:create'],
            expires_in: 3600,
            name: 'rota mcp stdio',
            session_id: 'ses_1',
          },
        },
      ]);
      expect(err).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('answers null, quietly, where the gateway has no such route', async () => {
    const gw = await gateway(() => ({ status: 404, body: { error: 'not_found', message: 'no route' } }));
    try {
      const { io: sink, err } = io();
      await expect(mintRelayKey({ url: gw.url, api_key: 'csk_live_parent' }, sink)).resolves.toBeNull();
      expect(gw.seen[0]!.body.session_id).toBeUndefined();
      expect(err).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('answers null with a line on stderr when the saved key may not mint, or nothing answers', async () => {
    const gw = await gateway(() => ({ status: 403, body: { error: 'forbidden', message: 'needs keys:write' } }));
    try {
      const { io: sink, err } = io();
      await expect(mintRelayKey({ url: gw.url, api_key: 'k' }, sink)).resolves.toBeNull();
      expect(err.join('')).toMatch(/\(HTTP 403\); using the saved key/);
    } finally {
      await gw.close();
    }
    const { io: sink, err } = io();
    await expect(mintRelayKey({ url: gw.url, api_key: 'k' }, sink)).resolves.toBeNull();
    expect(err.join('')).toMatch(/could not mint a short-lived key .*using the saved key/);
  });
});
