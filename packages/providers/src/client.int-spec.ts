import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { ProviderAuth, type Tenant } from '@rota/contracts';
import type { LookupAddress } from 'node:dns';
import { ProviderClient, type CallArgs } from './client';
import { buildRequest } from './request';
import type { Resolver } from './address';

/*
 * The provider here is a small node:http server on 127.0.0.1 (and an HTTPS
 * one for TLS), reached under the name provider.test through a substitute
 * resolver: that exercises the address check and the pinning on real
 * sockets without any outside network.
 */

const tenant: Tenant = { org_id: 'org_1', project_id: 'prj_1', environment: 'test' };
const none = ProviderAuth.parse({ type: 'none' });

interface Seen {
  path: string;
  host: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
  clientCn?: string;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function closedPort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const resolver: Resolver = (host, _opts, cb) => {
  const answers: Record<string, LookupAddress[]> = {
    'provider.test': [{ address: '127.0.0.1', family: 4 }],
    'other.test': [{ address: '127.0.0.1', family: 4 }],
  };
  if (answers[host]) cb(null, answers[host]);
  else cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
};

describe('ProviderClient', () => {
  let server: Server;
  let port: number;
  const seen: Seen[] = [];
  const held: ServerResponse[] = [];

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const cn = (req.socket as TLSSocket).getPeerCertificate?.()?.subject?.CN;
      const clientCn = Array.isArray(cn) ? cn[0] : cn;
      seen.push({
        path,
        host: req.headers.host,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        ...(clientCn ? { clientCn } : {}),
      });
      switch (path) {
        case '/json':
          res.writeHead(201, { 'Content-Type': 'application/json', 'X-Request-Echo': 'yes' });
          res.end(JSON.stringify({ ok: true, method: req.method, body: Buffer.concat(chunks).toString() }));
          return;
        case '/text':
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          res.end('plain words');
          return;
        case '/fail':
          res.writeHead(503, { 'Content-Type': 'application/json' });
          res.end('{"error":"down"}');
          return;
        case '/missing':
          res.writeHead(404);
          res.end();
          return;
        case '/redirect':
          res.writeHead(302, { Location: `http://other.test:${port}/json` });
          res.end();
          return;
        case '/big':
          res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '5000' });
          res.end('x'.repeat(5000));
          return;
        case '/big-chunked':
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          res.write('y'.repeat(600));
          res.write('y'.repeat(600));
          res.end('y'.repeat(600));
          return;
        case '/reset':
          req.socket.destroy();
          return;
        case '/hang':
        case '/hold':
          held.push(res);
          return;
        default:
          res.writeHead(200);
          res.end();
      }
    });
  };

  beforeAll(async () => {
    server = createServer(handle);
    port = await listen(server);
  });
  afterAll(async () => {
    for (const r of held) r.destroy();
    await closeServer(server);
  });
  beforeEach(() => {
    seen.length = 0;
  });

  const make = (over: ConstructorParameters<typeof ProviderClient>[0] = {}) =>
    new ProviderClient({ resolver, allowPrivateAddresses: ['local', 'flaky', 'steady', 'narrow', 'slow'], ...over });

  const args = (providerId: string, path: string, over: Partial<CallArgs> = {}): CallArgs => ({
    providerId,
    request: buildRequest({
      baseUrl: `http://provider.test:${port}`,
      method: 'POST',
      endpointTemplate: path,
      input: { amount: 10 },
    }),
    auth: none,
    credentials: {},
    tenant,
    connectionId: 'conn_1',
    ...over,
  });

  it('returns the response with lowercased headers and parsed JSON, connecting to the checked address under the original host name', async () => {
    const client = make();
    try {
      const r = await client.call(
        args('local', '/json', { idempotencyKey: 'idem-123', idempotencyHeader: 'Idempotency-Key' }),
      );
      expect(r).toMatchObject({
        kind: 'response',
        status: 201,
        body: { ok: true, method: 'POST', body: '{"amount":10}' },
        bytesOut: 13,
      });
      if (r.kind !== 'response') throw new Error('expected a response');
      expect(r.headers['x-request-echo']).toBe('yes');
      expect(r.bytesIn).toBeGreaterThan(0);
      expect(seen[0]!.host).toBe(`provider.test:${port}`);
      expect(seen[0]!.headers['idempotency-key']).toBe('idem-123');

      const text = await client.call(args('local', '/text'));
      expect(text).toMatchObject({ kind: 'response', status: 200, body: 'plain words' });
    } finally {
      await client.close();
    }
  });

  it('refuses private addresses for providers not allowed to reach them, before connecting', async () => {
    const client = make();
    try {
      expect(await client.call(args('public-only', '/json'))).toMatchObject({
        kind: 'not_sent',
        reason: 'address_refused',
      });
      const literal = {
        ...args('public-only', '/json'),
        request: buildRequest({
          baseUrl: `http://127.0.0.1:${port}`,
          method: 'GET',
          endpointTemplate: '/json',
          input: {},
        }),
      };
      expect(await client.call(literal)).toMatchObject({ kind: 'not_sent', reason: 'address_refused' });
      expect(seen).toHaveLength(0);
    } finally {
      await client.close();
    }
  });

  it('reports refused connections and unknown names as not sent', async () => {
    const client = make({ allowPrivateAddresses: ['local'] });
    try {
      const dead = await closedPort();
      const refused = {
        ...args('local', '/json'),
        request: buildRequest({
          baseUrl: `http://provider.test:${dead}`,
          method: 'POST',
          endpointTemplate: '/x',
          input: {},
        }),
      };
      expect(await client.call(refused)).toMatchObject({ kind: 'not_sent', reason: 'connect_refused' });
      const unknown = {
        ...args('local', '/json'),
        request: buildRequest({
          baseUrl: `http://nowhere.test:${port}`,
          method: 'POST',
          endpointTemplate: '/x',
          input: {},
        }),
      };
      expect(await client.call(unknown)).toMatchObject({ kind: 'not_sent', reason: 'dns' });
    } finally {
      await client.close();
    }
  });

  it('reports a request that was sent and not answered in time as outcome unknown', async () => {
    const client = make({ providers: { slow: { responseTimeoutMs: 300 } } });
    try {
      expect(await client.call(args('slow', '/hang'))).toMatchObject({
        kind: 'outcome_unknown',
        reason: 'timeout_after_send',
      });
      expect(seen.map((s) => s.path)).toEqual(['/hang']);
    } finally {
      await client.close();
    }
  });

  it('reports a connection dropped after the request was read as outcome unknown', async () => {
    const client = make();
    try {
      expect(await client.call(args('local', '/reset'))).toMatchObject({
        kind: 'outcome_unknown',
        reason: 'connection_reset_after_send',
      });
      expect(seen.map((s) => s.path)).toEqual(['/reset']);
    } finally {
      await client.close();
    }
  });

  it('stops reading a response past the size cap, declared or streamed', async () => {
    const client = make({ defaults: { maxResponseBytes: 1000 } });
    try {
      expect(await client.call(args('local', '/big'))).toMatchObject({
        kind: 'outcome_unknown',
        reason: 'response_too_large',
      });
      expect(await client.call(args('local', '/big-chunked'))).toMatchObject({
        kind: 'outcome_unknown',
        reason: 'response_too_large',
      });
    } finally {
      await client.close();
    }
  });

  it('does not follow redirects', async () => {
    const client = make();
    try {
      const r = await client.call(args('local', '/redirect'));
      expect(r).toMatchObject({
        kind: 'response',
        status: 302,
        headers: { location: `http://other.test:${port}/json` },
      });
      expect(seen.map((s) => s.path)).toEqual(['/redirect']);
    } finally {
      await client.close();
    }
  });

  it('opens the circuit after consecutive provider failures; client errors do not count', async () => {
    const client = make({ defaults: { breakerFailures: 3, breakerHalfOpenAfterMs: 600_000 } });
    try {
      for (let i = 0; i < 5; i++)
        expect(await client.call(args('steady', '/missing'))).toMatchObject({ kind: 'response', status: 404 });
      expect(await client.call(args('steady', '/json'))).toMatchObject({ kind: 'response', status: 201 });
      seen.length = 0;
      for (let i = 0; i < 3; i++)
        expect(await client.call(args('flaky', '/fail'))).toMatchObject({ kind: 'response', status: 503 });
      expect(await client.call(args('flaky', '/fail'))).toMatchObject({ kind: 'not_sent', reason: 'circuit_open' });
      expect(seen).toHaveLength(3);
      // One provider's circuit is its own.
      expect(await client.call(args('steady', '/json'))).toMatchObject({ kind: 'response', status: 201 });
    } finally {
      await client.close();
    }
  });

  it('refuses calls beyond the concurrency limit and its queue without sending them', async () => {
    const client = make({ providers: { narrow: { concurrency: 1, queue: 0 } } });
    try {
      const first = client.call(args('narrow', '/hold'));
      while (!seen.some((s) => s.path === '/hold')) await new Promise((r) => setTimeout(r, 10));
      expect(await client.call(args('narrow', '/json'))).toMatchObject({ kind: 'not_sent', reason: 'bulkhead_full' });
      const res = held.pop()!;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"released":true}');
      expect(await first).toMatchObject({ kind: 'response', status: 200, body: { released: true } });
      expect(seen.map((s) => s.path)).toEqual(['/hold']);
    } finally {
      await client.close();
    }
  });

  it('refuses an idempotency key that cannot be sent as a header', async () => {
    const client = make();
    try {
      expect(
        await client.call(args('local', '/json', { idempotencyKey: 'a\r\nb', idempotencyHeader: 'Idempotency-Key' })),
      ).toMatchObject({
        kind: 'not_sent',
        reason: 'invalid_request',
      });
      expect(seen).toHaveLength(0);
    } finally {
      await client.close();
    }
  });

  describe('over TLS', () => {
    let dir: string;
    let pki: {
      ca: string;
      serverCert: string;
      serverKey: string;
      clientCert: string;
      clientKey: string;
      otherCert: string;
      otherKey: string;
    };
    let tlsServer: Server;
    let tlsPort: number;

    const openssl = (...a: string[]) => execFileSync('openssl', a, { cwd: dir, stdio: 'ignore' });
    const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    const issue = (name: string, cn: string, ext?: string) => {
      openssl('req', ...ecKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
      const extArgs = ext ? (writeFileSync(join(dir, `${name}.ext`), ext), ['-extfile', `${name}.ext`]) : [];
      openssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.crt`,
        '-days',
        '2',
        ...extArgs,
      );
      return {
        cert: readFileSync(join(dir, `${name}.crt`), 'utf8'),
        key: readFileSync(join(dir, `${name}.key`), 'utf8'),
      };
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'rota-providers-tls-'));
      openssl(
        'req',
        '-x509',
        ...ecKey,
        '-keyout',
        'ca.key',
        '-out',
        'ca.crt',
        '-days',
        '2',
        '-subj',
        '/CN=rota-test-ca',
      );
      const srv = issue('server', 'provider.test', 'subjectAltName=DNS:provider.test\n');
      const client = issue('client', 'rota-connection-1');
      const other = issue('other', 'rota-connection-2');
      pki = {
        ca: readFileSync(join(dir, 'ca.crt'), 'utf8'),
        serverCert: srv.cert,
        serverKey: srv.key,
        clientCert: client.cert,
        clientKey: client.key,
        otherCert: other.cert,
        otherKey: other.key,
      };
      tlsServer = createHttpsServer(
        { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, rejectUnauthorized: false },
        handle,
      );
      tlsPort = await listen(tlsServer);
    });
    afterAll(async () => {
      await closeServer(tlsServer);
      rmSync(dir, { recursive: true, force: true });
    });

    const tlsArgs = (
      credentials: Record<string, string>,
      auth = ProviderAuth.parse({ type: 'certificate' }),
    ): CallArgs => ({
      ...args('local', '/json'),
      request: buildRequest({
        baseUrl: `https://provider.test:${tlsPort}`,
        method: 'POST',
        endpointTemplate: '/json',
        input: { a: 1 },
      }),
      auth,
      credentials,
    });

    it('presents the connection certificate for mutual TLS, keeping one bounded agent per identity', async () => {
      const client = make({ maxCertificateAgents: 1 });
      try {
        const r = await client.call(tlsArgs({ certificate: pki.clientCert, private_key: pki.clientKey, ca: pki.ca }));
        expect(r).toMatchObject({ kind: 'response', status: 201 });
        expect(seen[0]!.clientCn).toBe('rota-connection-1');
        expect(client.certificateAgentCount).toBe(1);
        const r2 = await client.call(tlsArgs({ certificate: pki.otherCert, private_key: pki.otherKey, ca: pki.ca }));
        expect(r2).toMatchObject({ kind: 'response', status: 201 });
        expect(seen[1]!.clientCn).toBe('rota-connection-2');
        expect(client.certificateAgentCount).toBe(1);
      } finally {
        await client.close();
      }
    });

    it('reports a server certificate it cannot trust as not sent', async () => {
      const client = make();
      try {
        expect(await client.call(tlsArgs({}, none))).toMatchObject({ kind: 'not_sent', reason: 'tls' });
        expect(seen).toHaveLength(0);
      } finally {
        await client.close();
      }
    });
  });
});
