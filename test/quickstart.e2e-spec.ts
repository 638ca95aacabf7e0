import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { run } from '@rota/cli';
import { Webhook } from 'standardwebhooks';
import { HealthService } from '../apps/worker/src/health/health.service';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(180_000);

const ROOT = resolve(__dirname, '..');

/**
 * Runs scripts/env-init.sh (the part of scripts/up.sh that writes .env and
 * computes ROTA_PUBLIC_URL) in `dir` with a clean environment, and returns
 * what it exported.
 */
function envInit(dir: string, env: Record<string, string> = {}) {
  const out = execFileSync(
    'bash',
    [
      '-c',
      `source "${ROOT}/scripts/env-init.sh" >/dev/null; printf '%s\\n' "$ROTA_CREDENTIALS_KEY" "$ROTA_WEBHOOK_KEY" "$ROTA_PUBLIC_URL"`,
    ],
    { cwd: dir, env: { PATH: process.env.PATH!, HOME: dir, ...env }, encoding: 'utf8' },
  );
  const [credentials, webhook, publicUrl] = out.trimEnd().split('\n');
  return { credentials: credentials!, webhook: webhook!, publicUrl: publicUrl! };
}

/** A receiver that verifies every delivery with the Standard Webhooks reference library. */
async function verifyingReceiver() {
  let secret = '';
  const verified: { type: string; data: Record<string, unknown> }[] = [];
  const rejected: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      try {
        verified.push(
          new Webhook(secret).verify(body, req.headers as Record<string, string>) as (typeof verified)[number],
        );
        res.writeHead(204).end();
      } catch {
        rejected.push(req.headers);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/rota`,
    setSecret: (s: string) => void (secret = s),
    verified,
    rejected,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('quick start: the .env scripts/up.sh writes, public URLs, and paging through a webhook', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rota-quickstart-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes both keys to .env once, readable by its owner only, and keeps them on later runs', () => {
    const first = envInit(dir);
    expect(Buffer.from(first.credentials, 'base64')).toHaveLength(32);
    expect(Buffer.from(first.webhook, 'base64')).toHaveLength(32);
    expect(first.webhook).not.toBe(first.credentials);
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600);
    const lines = readFileSync(join(dir, '.env'), 'utf8').trimEnd().split('\n');
    expect(lines).toEqual([`ROTA_CREDENTIALS_KEY=${first.credentials}`, `ROTA_WEBHOOK_KEY=${first.webhook}`]);

    const again = envInit(dir, { PORT: '3100' });
    expect(again).toMatchObject({ credentials: first.credentials, webhook: first.webhook });
    expect(readFileSync(join(dir, '.env'), 'utf8').trimEnd().split('\n')).toEqual(lines);

    // An install from before webhooks had keys: the missing one is added, the other kept.
    const older = mkdtempSync(join(dir, 'older-'));
    execFileSync('bash', ['-c', `umask 077; echo "ROTA_CREDENTIALS_KEY=${first.credentials}" > .env`], { cwd: older });
    const upgraded = envInit(older);
    expect(upgraded.credentials).toBe(first.credentials);
    expect(Buffer.from(upgraded.webhook, 'base64')).toHaveLength(32);

    // Keys given in the environment win and nothing is written for them.
    const given = mkdtempSync(join(dir, 'given-'));
    const keys = envInit(given, { ROTA_CREDENTIALS_KEY: first.webhook, ROTA_WEBHOOK_KEY: first.credentials });
    expect(keys).toMatchObject({ credentials: first.webhook, webhook: first.credentials });
    expect(existsSync(join(given, '.env'))).toBe(false);
  });

  it("computes ROTA_PUBLIC_URL from the gateway's HOST and PORT unless it is set", () => {
    expect(envInit(dir).publicUrl).toBe('http://127.0.0.1:3000');
    expect(envInit(dir, { PORT: '3100' }).publicUrl).toBe('http://127.0.0.1:3100');
    expect(envInit(dir, { HOST: '0.0.0.0', PORT: '8080' }).publicUrl).toBe('http://127.0.0.1:8080');
    expect(envInit(dir, { HOST: '::', PORT: '8080' }).publicUrl).toBe('http://[::1]:8080');
    expect(envInit(dir, { HOST: 'fd00::5', PORT: '8080' }).publicUrl).toBe('http://[fd00::5]:8080');
    expect(envInit(dir, { HOST: 'rota.internal', PORT: '80' }).publicUrl).toBe('http://rota.internal:80');
    expect(envInit(dir, { ROTA_PUBLIC_URL: 'https://rota.example.com', PORT: '3100' }).publicUrl).toBe(
      'https://rota.example.com',
    );
  });

  describe('a stack started with those keys and no ROTA_PUBLIC_URL', () => {
    let stack: Stack;
    let operator: string;

    beforeAll(async () => {
      const keys = envInit(dir);
      stack = await startStack({
        demoCatalog: true,
        env: {
          // What the quick start runs with: real keys, no development fallbacks.
          ROTA_DEV_MODE: 'false',
          ROTA_CREDENTIALS_KEY: keys.credentials,
          ROTA_WEBHOOK_KEY: keys.webhook,
          ROTA_PUBLIC_URL: '',
          // The receiver listens on loopback, which production refuses.
          ROTA_WEBHOOKS_ALLOW_PRIVATE: 'true',
          // The test forces the transition; the clock does not.
          ROTA_HEALTH_INTERVAL_S: '3600',
        },
      });
      operator = (await stack.operatorKey(['admin', 'servers:read', 'webhooks:write'])).key;
    }, 120_000);
    afterAll(async () => {
      await stack?.close();
    });

    const get = (path: string, key: string) =>
      http(`${stack.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const post = (path: string, key: string, json: unknown) =>
      http(`${stack.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, json });

    it("builds the OpenAPI server, session MCP URLs and OAuth redirect URIs from the gateway's actual address", async () => {
      expect(stack.url).not.toMatch(/:3000$/);
      const doc = await http(`${stack.url}/openapi.json`);
      expect(doc.json.servers).toEqual([{ url: stack.url, description: 'This gateway' }]);

      const { key } = await stack.key(['sessions:create', 'tools:execute', 'connections:write', 'servers:read'], {
        environment: 'test',
      });
      const session = await post('/v1/sessions', key, { servers: ['mercadopago'] });
      expect(session.status).toBe(201);
      expect(session.json.mcp.url).toBe(`${stack.url}/v1/sessions/${session.json.id}/mcp`);

      const started = await post(`/v1/sessions/${session.json.id}/execute`, key, {
        tool: 'codespar_manage_connections',
        input: {
          action: 'connect_start',
          server_id: 'mercadopago',
          credentials: { client_id: 'qs-client', client_secret: 'qs-secret' },
        },
      });
      expect(started.json).toMatchObject({
        success: true,
        data: { method: 'authorization', redirect_uri: `${stack.url}/v1/connections/oauth/callback` },
      });
      expect(new URL(started.json.data.authorization_url).searchParams.get('redirect_uri')).toBe(
        `${stack.url}/v1/connections/oauth/callback`,
      );
    });

    it('`rota webhooks create` subscribes a local receiver, and a forced health transition reaches it as one verified event', async () => {
      const receiver = await verifyingReceiver();
      try {
        await until(
          'full embedding coverage',
          async () => (await get('/v1/health', operator)).json.checks.embeddings.status === 'ok',
          60_000,
        );
        await post('/v1/fx/rates', operator, { rates: [{ base: 'USD', quote: 'BRL', rate: '5.4321' }] });
        const health = stack.services.worker.app.get(HealthService);
        await health.evaluateAll();
        expect((await get('/v1/health', operator)).json.status).toBe('healthy');
        // Transitions from before the subscription (the catalog filling up) are fanned out first.
        await until('the outbox drained', async () => {
          const [row] = await stack.db.prisma.$queryRaw<
            { n: number }[]
          >`SELECT count(*)::int AS n FROM events WHERE dispatched_at IS NULL`;
          return row!.n === 0;
        });

        let stdout = '';
        let stderr = '';
        const code = await run(['webhooks', 'create', '--url', receiver.url, '--events', 'system.health.*', '--json'], {
          stdout: (t) => void (stdout += t),
          stderr: (t) => void (stderr += t),
          env: { ROTA_URL: stack.url, ROTA_API_KEY: operator, ROTA_CONFIG_DIR: join(dir, 'no-profile') },
        });
        expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
        const created = JSON.parse(stdout) as { id: string; secret: string; scope: string };
        expect(created).toMatchObject({ scope: 'deployment', secret: expect.stringMatching(/^whsec_/) });
        receiver.setSecret(created.secret);

        // Stale FX rates: one pair last observed 100 hours ago degrades the deployment.
        await post('/v1/fx/rates', operator, {
          rates: [
            { base: 'EUR', quote: 'BRL', rate: '6.1', fetched_at: new Date(Date.now() - 100 * 3600_000).toISOString() },
          ],
        });
        await health.evaluateAll();
        expect((await get('/v1/health', operator)).json.status).toBe('degraded');
        await until('the degraded event', async () => receiver.verified.length >= 1 || receiver.rejected.length >= 1);
        await new Promise((r) => setTimeout(r, 300));
        expect(receiver.rejected).toEqual([]);
        expect(receiver.verified).toHaveLength(1);
        expect(receiver.verified[0]).toMatchObject({
          type: 'system.health.degraded',
          data: { scope: 'deployment', status: 'degraded', previous_status: 'healthy' },
        });
      } finally {
        await receiver.close();
      }
    });
  });
});
