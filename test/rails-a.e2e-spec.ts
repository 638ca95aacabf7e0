import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../apps/sandbox/src';
import { saveConnection, setTestBaseUrl } from './helpers/rails';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(180_000);

const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;
const ME_REDIRECT = 'http://127.0.0.1/callback';
const PROVIDERS = ['asaas', 'inter', 'mercadopago', 'focusnfe', 'melhorenvio', 'whatsapp'];
const ASAAS = { api_key: 'sandbox-asaas-key' };
const INTER = { client_id: 'sandbox-inter-client', client_secret: 'sandbox-inter-secret' };
/**
 * Focus NFe authenticates with the token as the user and an empty password.
 * The provider adapter refuses an empty `password` credential today, so the
 * sandbox's NFS-e prefix is given one here; the mapping under test is the same.
 */
const NFSE_PASSWORD = 'sandbox-nfse-password';

/** Names the agent must never see in `data`: every provider id and display name these rails use. */
const CATALOG = JSON.parse(readFileSync(join(__dirname, '../packages/catalog/data/demo-catalog.json'), 'utf8')) as {
  servers: { id: string; name: string }[];
};
const PROVIDER_WORDS = CATALOG.servers
  .filter((s) => PROVIDERS.includes(s.id))
  .flatMap((s) => [s.id, s.name.toLowerCase()]);

/**
 * The provider names found in a normalised result. Links handed to a payer
 * (a checkout page, a label or invoice PDF) point at the provider's host by
 * nature and are left out; `channel` is the caller's own choice of channel.
 */
function providerNamesIn(data: unknown): string[] {
  const found = new Set<string>();
  const visit = (v: unknown, key: string) => {
    if (typeof v === 'string') {
      if (/^https?:\/\//.test(v) || key === 'channel') return;
      const lower = v.toLowerCase();
      for (const w of PROVIDER_WORDS) if (new RegExp(`\\b${w}\\b`).test(lower)) found.add(w);
    } else if (Array.isArray(v)) v.forEach((x) => visit(x, key));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        for (const w of PROVIDER_WORDS) if (k.toLowerCase() === w) found.add(w);
        visit(x, k);
      }
  };
  visit(data, '');
  return [...found];
}

/**
 * codespar_pay, codespar_wallet, codespar_checkout, codespar_invoice,
 * codespar_ship and codespar_notify through POST /v1/sessions/{id}/execute
 * in the test environment, every provider their rails use connected to the
 * sandbox provider server: each action's normalised result, naming no
 * provider; follow-ups on the rail that created their object; and a payment
 * tried on a second rail only when the first provably never received it.
 */
describe('acting meta-tools against the sandbox: pay, wallet, checkout, invoice, ship, notify', () => {
  let sandbox: Sandbox;
  let stack: Stack;
  let key: string;
  let session: string;
  const connections = new Map<string, string>();
  const bodies: string[] = [];

  const api = async (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) => {
    const r = await http(`${stack.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...headers },
      json,
    });
    bodies.push(r.text);
    return r;
  };
  const execute = (tool: string, input: Record<string, unknown>, headers: Record<string, string> = {}) =>
    api('POST', `/v1/sessions/${session}/execute`, { tool, input }, headers);
  const row = (id: string) => stack.db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id } });
  const counters = () => sandbox.control.counters();
  const created = (provider: string, what: string) => counters().created[provider]?.[what] ?? 0;
  const requests = (provider: string, route: string) => counters().requests[provider]?.[route] ?? 0;
  const transfers = () => created('asaas', 'transfers') + created('inter', 'transfers');
  /** The sandbox route each pay rail's money call and status read hit. */
  const PAY_ROUTE: Record<string, { pay: string; status: string }> = {
    asaas: { pay: 'create_transfer', status: 'get_transfer' },
    inter: { pay: 'send_pix', status: 'get_pix_payment' },
  };
  const payRequests = () => requests('asaas', 'create_transfer') + requests('inter', 'send_pix');

  /** A Melhor Envio refresh token, as the authorization code flow leaves one. */
  async function melhorEnvioRefreshToken(): Promise<string> {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'sandbox-me-client',
      redirect_uri: ME_REDIRECT,
      state: 'rails-a',
    });
    const authorize = await fetch(`${sandbox.url}/melhorenvio/oauth/authorize?${query.toString()}`, {
      redirect: 'manual',
    });
    expect(authorize.status).toBe(302);
    const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: ME_REDIRECT,
      client_id: 'sandbox-me-client',
      client_secret: 'sandbox-me-secret',
    });
    const token = await fetch(`${sandbox.url}/melhorenvio/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(token.status).toBe(200);
    return ((await token.json()) as { refresh_token: string }).refresh_token;
  }

  async function connect(server: string, credentials: Record<string, string>) {
    const r = await saveConnection(api, server, credentials);
    // A retried write finds the connection the first one stored: 200.
    expect({ server, stored: [200, 201].includes(r.status) }).toEqual({ server, stored: true });
    connections.set(server, r.json.id);
  }
  async function disconnect(server: string) {
    const r = await api('DELETE', `/v1/connections/${connections.get(server)}`);
    expect(r.status).toBeLessThan(300);
    connections.delete(server);
  }
  const reconnect = (server: string) => connect(server, server === 'asaas' ? ASAAS : INTER);
  /** Points a provider's test base URL somewhere else (a closed port), or back at the sandbox. */
  const setBase = async (provider: string, url: string) => {
    expect(await setTestBaseUrl(stack, provider, url)).toBe(1);
  };

  beforeAll(async () => {
    sandbox = await startSandbox({
      port: 0,
      config: {
        providers: {
          nfse: { kind: 'nfse', auth: { type: 'basic', username: 'sandbox-nfse-token', password: NFSE_PASSWORD } },
        },
      },
    });
    stack = await startStack({
      demoCatalog: true,
      env: {
        ROTA_SANDBOX_URL: sandbox.url,
        // The sandbox prefixes these rails reach (on the loopback interface).
        ROTA_PRIVATE_PROVIDERS: PROVIDERS.join(','),
        ROTA_PROVIDER_TIMEOUT_MS: '2000',
        ROTA_RPC_TIMEOUT_MS: '10000',
        ROTA_LOCAL_EMBEDDER: 'hash',
      },
    });
    key = (await stack.key([...SCOPES], { environment: 'test' })).key;
    await connect('asaas', ASAAS);
    await connect('inter', INTER);
    await connect('mercadopago', { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' });
    await connect('focusnfe', { username: 'sandbox-nfse-token', password: NFSE_PASSWORD });
    await connect('melhorenvio', {
      client_id: 'sandbox-me-client',
      client_secret: 'sandbox-me-secret',
      refresh_token: await melhorEnvioRefreshToken(),
    });
    await connect('whatsapp', { token: 'sandbox-whatsapp-token' });
    const s = await api('POST', '/v1/sessions', { servers: PROVIDERS });
    expect(s.status).toBe(201);
    session = s.json.id;
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
  });

  interface Done {
    data: Record<string, any>;
    railId: string;
  }

  /** Runs a call that must succeed: its normalised result (naming no provider) and the rail its row records. */
  async function ok(tool: string, input: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Done> {
    const r = await execute(tool, input, headers);
    expect({ tool, status: r.status, success: r.json?.success, data: r.json?.success ? 'ok' : r.json?.data }).toEqual({
      tool,
      status: 200,
      success: true,
      data: 'ok',
    });
    expect(r.json.server).toBeNull();
    expect({ tool, names: providerNamesIn(r.json.data) }).toEqual({ tool, names: [] });
    const call = await row(r.json.tool_call_id);
    expect(call).toMatchObject({ state: 'done', success: true, tool });
    expect(call.railId).toEqual(expect.any(String));
    return { data: r.json.data as Record<string, any>, railId: call.railId! };
  }

  // Earlier rows leave ids for later ones.
  const refs: Record<string, string> = {};
  const rails: Record<string, string> = {};

  describe('every action of every tool', () => {
    const origin = {
      name: 'Loja',
      phone: '11999990000',
      document: '11222333000181',
      street: 'Rua A',
      number: 10,
      city: 'São Paulo',
      state: 'SP',
      postal_code: '01310-100',
    };
    const destination = {
      name: 'Ana',
      phone: '21988887777',
      document: '12345678909',
      street: 'Rua B',
      number: 20,
      city: 'Rio de Janeiro',
      state: 'RJ',
      postal_code: '20040-002',
    };
    const parcel = [{ name: 'Livro', weight: 0.8, height: 4, width: 16, length: 23, quantity: 1, unit_price: 59.9 }];
    const nfse = {
      type: 'nfse',
      recipient: { name: 'Loja Exemplo Ltda', document: '11.222.333/0001-81', email: 'fiscal@example.com' },
      items: [{ description: 'Consultoria', quantity: 2, unit_price: 150 }],
    };

    it.each<[string, string, () => Record<string, unknown>, (d: Record<string, any>, railId: string) => void]>([
      [
        'codespar_pay',
        'pay',
        () => ({
          action: 'pay',
          method: 'pix',
          amount: 4990,
          currency: 'BRL',
          recipient: 'ana@example.com',
          description: 'fornecedor',
        }),
        (d, railId) => {
          expect(railId).toMatch(/^(asaas|inter)\.pix\.out$/);
          expect(d).toMatchObject({
            id: expect.any(String),
            status: expect.stringMatching(/^(pending|processing)$/),
            amount_minor: 4990,
            currency: 'BRL',
            method: 'pix',
          });
          refs.payment = d.id;
          rails.payment = railId;
        },
      ],
      [
        'codespar_pay',
        'status',
        () => ({ action: 'status', payment_id: refs.payment }),
        (d, railId) => {
          expect(railId).toBe(rails.payment);
          expect(d).toMatchObject({ id: refs.payment, status: 'completed', amount_minor: 4990, currency: 'BRL' });
        },
      ],
      [
        'codespar_wallet',
        'balance',
        () => ({ action: 'balance' }),
        (d) => expect(d).toEqual({ available_minor: expect.any(Number), currency: 'BRL' }),
      ],
      [
        'codespar_wallet',
        'statement',
        () => ({ action: 'statement', limit: 10 }),
        (d) => {
          expect(d.currency).toBe('BRL');
          expect(d.entries.length).toBeGreaterThanOrEqual(1);
          expect(d.entries[0]).toMatchObject({
            id: expect.any(String),
            date: expect.any(String),
            amount_minor: expect.any(Number),
          });
        },
      ],
      [
        'codespar_wallet',
        'receive',
        () => ({ action: 'receive', amount: 1500, description: 'recarga' }),
        (d) => {
          expect(d).toMatchObject({ status: 'active', currency: 'BRL', amount_minor: 1500, reusable: true });
          expect(d.pix.copia_e_cola).toMatch(/^000201.*540515\.00.*6304[0-9A-F]{4}$/);
        },
      ],
      [
        'codespar_checkout',
        'create',
        () => ({
          items: [{ name: 'Camiseta', quantity: 2, unit_price: 59.9 }],
          paymentMethod: 'pix',
          buyer: { name: 'Ana', email: 'ana@example.com' },
        }),
        (d) =>
          expect(d).toMatchObject({
            id: expect.any(String),
            status: 'open',
            url: expect.stringMatching(/^http/),
            amount_minor: 11980,
            currency: 'BRL',
          }),
      ],
      [
        'codespar_invoice',
        'issue',
        () => ({ action: 'issue', ...nfse }),
        (d, railId) => {
          expect(d).toMatchObject({
            id: expect.any(String),
            status: 'issued',
            type: 'nfse',
            number: expect.any(String),
          });
          refs.invoice = d.id;
          rails.invoice = railId;
        },
      ],
      [
        'codespar_invoice',
        'status',
        () => ({ action: 'status', type: 'nfse', invoice_id: refs.invoice }),
        (d, railId) => {
          expect(railId).toBe(rails.invoice);
          expect(d).toMatchObject({ id: refs.invoice, status: 'issued', type: 'nfse' });
        },
      ],
      [
        'codespar_invoice',
        'amend',
        () => ({
          action: 'amend',
          type: 'nfse',
          invoice_id: refs.invoice,
          reason: 'Serviço não prestado, emitida por engano',
        }),
        (d, railId) => {
          expect(railId).toBe(rails.invoice);
          expect(d).toMatchObject({ id: refs.invoice, status: 'canceled', type: 'nfse' });
        },
      ],
      [
        'codespar_ship',
        'quote',
        () => ({ action: 'quote', service_level: 'cheapest', origin, destination, items: parcel }),
        (d) => {
          expect(d.quotes.length).toBeGreaterThan(0);
          expect(d.quotes[0]).toMatchObject({
            service_id: expect.any(String),
            carrier: expect.any(String),
            price_minor: expect.any(Number),
            currency: 'BRL',
          });
        },
      ],
      [
        'codespar_ship',
        'label',
        () => ({ action: 'label', service_level: 'fastest', origin, destination, items: parcel }),
        (d, railId) => {
          expect(d).toMatchObject({
            id: expect.any(String),
            status: 'generated',
            tracking_code: expect.stringMatching(/^ME/),
            price_minor: expect.any(Number),
          });
          refs.tracking = d.tracking_code;
          rails.label = railId;
        },
      ],
      [
        'codespar_ship',
        'track',
        () => ({ action: 'track', tracking_code: refs.tracking }),
        (d, railId) => {
          expect(railId).toBe(rails.label);
          expect(d).toMatchObject({ tracking_code: refs.tracking, status: 'generated' });
          expect(d.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'released', 'generated']);
        },
      ],
      [
        'codespar_notify',
        'send',
        () => ({
          channel: 'whatsapp',
          to: '+55 11 98765-4321',
          template: 'pedido_enviado',
          variables: { '1': 'Ana', '2': 'ME123BR' },
        }),
        (d) =>
          expect(d).toMatchObject({ id: expect.stringMatching(/^wamid\./), status: 'accepted', channel: 'whatsapp' }),
      ],
    ])('%s %s', async (tool, action, input, check) => {
      const before = transfers();
      const done = await ok(tool, input());
      check(done.data, done.railId);
      // Only a payment moves money out.
      expect(transfers()).toBe(before + (tool === 'codespar_pay' && action === 'pay' ? 1 : 0));
    });

    it('records the object each call created on its row, so follow-ups can find the rail', async () => {
      const rows = await stack.db.prisma.sessionToolCall.findMany({
        where: { sessionId: session, objectRef: { in: [refs.payment!, refs.invoice!, refs.tracking!] } },
      });
      expect(rows.map((r) => [r.tool, r.railId]).sort()).toEqual(
        expect.arrayContaining([
          ['codespar_invoice', rails.invoice],
          ['codespar_pay', rails.payment],
          ['codespar_ship', rails.label],
        ]),
      );
    });
  });

  describe('codespar_pay over two Pix rails', () => {
    const PAY = {
      action: 'pay',
      method: 'pix',
      amount: 1990,
      currency: 'BRL',
      recipient: 'fornecedor@example.com',
      description: 'frete',
    };
    /** The rail the router ranks first for a payment now, and the other one. */
    let first = '';
    let second = '';
    const providerOf = (railId: string) => railId.split('.')[0]!;

    beforeEach(() => sandbox.control.clearFaults());

    it('sends each payment once on the best rail, and its status goes back to that rail', async () => {
      const before = { transfers: transfers(), pay: payRequests() };
      const paid = await ok('codespar_pay', PAY);
      first = paid.railId;
      second = first === 'asaas.pix.out' ? 'inter.pix.out' : 'asaas.pix.out';
      expect(transfers()).toBe(before.transfers + 1);
      expect(payRequests()).toBe(before.pay + 1);

      const statusBefore = {
        first: requests(providerOf(first), PAY_ROUTE[providerOf(first)]!.status),
        second: requests(providerOf(second), PAY_ROUTE[providerOf(second)]!.status),
      };
      const status = await ok('codespar_pay', { action: 'status', payment_id: paid.data.id });
      expect(status.railId).toBe(first);
      expect(requests(providerOf(first), PAY_ROUTE[providerOf(first)]!.status)).toBe(statusBefore.first + 1);
      expect(requests(providerOf(second), PAY_ROUTE[providerOf(second)]!.status)).toBe(statusBefore.second);
    });

    it('reads the status of a payment on the rail that made it, even when another rail now ranks first', async () => {
      // Only the second rail is usable while the payment is made.
      await disconnect(providerOf(first));
      let paid: Done;
      try {
        paid = await ok('codespar_pay', PAY);
      } finally {
        await reconnect(providerOf(first));
      }
      expect(paid.railId).toBe(second);
      const topAgain = await ok('codespar_pay', { ...PAY, description: 'ranking check' });
      expect(topAgain.railId).toBe(first);

      const before = requests(providerOf(second), PAY_ROUTE[providerOf(second)]!.status);
      const status = await ok('codespar_pay', { action: 'status', payment_id: paid.data.id });
      expect(status.railId).toBe(second);
      expect(status.data).toMatchObject({ id: paid.data.id, status: 'completed', amount_minor: 1990 });
      expect(requests(providerOf(second), PAY_ROUTE[providerOf(second)]!.status)).toBe(before + 1);
    });

    /** The rail that ranks first right now (telemetry moves it), found with one real payment. */
    async function topRail(): Promise<{ top: string; next: string; paymentId: string }> {
      const probe = await ok('codespar_pay', { ...PAY, description: 'ranking probe' });
      return {
        top: probe.railId,
        next: probe.railId === 'asaas.pix.out' ? 'inter.pix.out' : 'asaas.pix.out',
        paymentId: probe.data.id,
      };
    }

    it('tries the second rail when the first refuses connections (never received): one transfer, two attempts on the row', async () => {
      const { top, next } = await topRail();
      const provider = providerOf(top);
      const before = { transfers: transfers(), top: requests(provider, PAY_ROUTE[provider]!.pay) };
      await setBase(provider, 'http://127.0.0.1:1');
      let r;
      try {
        r = await execute('codespar_pay', PAY);
      } finally {
        await setBase(provider, `${sandbox.url}/${provider}`);
      }
      expect({ success: r.json.success, data: r.json.success ? 'ok' : r.json.data }).toEqual({
        success: true,
        data: 'ok',
      });
      expect(providerNamesIn(r.json.data)).toEqual([]);
      expect(transfers()).toBe(before.transfers + 1);
      // The first provider saw nothing of it.
      expect(requests(provider, PAY_ROUTE[provider]!.pay)).toBe(before.top);
      const call = await row(r.json.tool_call_id);
      expect(call.railId).toBe(next);
      expect(call.attemptLog).toEqual([
        expect.objectContaining({ rail_id: top, outcome: 'not_sent' }),
        expect.objectContaining({ rail_id: next, outcome: 'answered', upstream_status: expect.any(Number) }),
      ]);
      // Each rail has its own provider idempotency key.
      const [a, b] = call.attemptLog as Array<{ provider_idempotency_key: string }>;
      expect(a!.provider_idempotency_key).not.toBe(b!.provider_idempotency_key);
    });

    it('tries the second rail after a documented "not processed" refusal (429) from the first', async () => {
      const { top, next } = await topRail();
      const provider = providerOf(top);
      sandbox.control.addFault({ provider, route: PAY_ROUTE[provider]!.pay, mode: '429', times: 1 });
      const before = {
        transfers: transfers(),
        top: created(provider, 'transfers'),
        requests: requests(provider, PAY_ROUTE[provider]!.pay),
      };
      const r = await execute('codespar_pay', PAY);
      expect({ success: r.json.success, data: r.json.success ? 'ok' : r.json.data }).toEqual({
        success: true,
        data: 'ok',
      });
      expect(transfers()).toBe(before.transfers + 1);
      expect(created(provider, 'transfers')).toBe(before.top);
      expect(requests(provider, PAY_ROUTE[provider]!.pay)).toBe(before.requests + 1);
      const call = await row(r.json.tool_call_id);
      expect(call.railId).toBe(next);
      expect(call.attemptLog).toEqual([
        expect.objectContaining({ rail_id: top, outcome: 'not_processed', upstream_status: 429 }),
        expect.objectContaining({ rail_id: next, outcome: 'answered' }),
      ]);
    });

    /** Arms the same fault on both rails' money route: a call that wrongly moved on would hit it twice. */
    const armBoth = (mode: 'timeout_after_accept' | 'refuse' | '5xx') => {
      for (const provider of ['asaas', 'inter'])
        sandbox.control.addFault({
          provider,
          route: PAY_ROUTE[provider]!.pay,
          mode,
          times: 1,
          ...(mode === '5xx' ? { status: 503 } : {}),
        });
    };

    it('never tries another rail once the provider accepted and went silent: outcome_unknown, one send, one transfer, a replay sends nothing', async () => {
      armBoth('timeout_after_accept');
      const before = { transfers: transfers(), pay: payRequests() };
      const r = await execute('codespar_pay', PAY, { 'idempotency-key': 'rails-a-pay-lost' });
      expect(r.json).toMatchObject({ success: false, data: { code: 'outcome_unknown' } });
      expect(providerNamesIn(r.json.data)).toEqual([]);
      expect(payRequests()).toBe(before.pay + 1);
      // The provider did act on it (that is what makes the outcome unknown, and a second rail a double payment).
      expect(transfers()).toBe(before.transfers + 1);
      const call = await row(r.json.tool_call_id);
      expect(call.state).toBe('outcome_unknown');
      expect(call.attemptLog).toEqual([expect.objectContaining({ outcome: 'outcome_unknown' })]);

      const again = await execute('codespar_pay', PAY, { 'idempotency-key': 'rails-a-pay-lost' });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.json.data.code).toBe('outcome_unknown');
      expect(payRequests()).toBe(before.pay + 1);
      expect(transfers()).toBe(before.transfers + 1);
    });

    it('never tries another rail when the connection drops after the request was written', async () => {
      armBoth('refuse');
      const before = { transfers: transfers(), pay: payRequests() };
      const r = await execute('codespar_pay', PAY);
      expect(r.json).toMatchObject({ success: false, data: { code: 'outcome_unknown' } });
      expect(payRequests()).toBe(before.pay + 1);
      expect(transfers()).toBe(before.transfers);
      expect((await row(r.json.tool_call_id)).attemptLog).toEqual([
        expect.objectContaining({ outcome: 'outcome_unknown' }),
      ]);
    });

    it('never tries another rail after a 503 the provider does not document as "not processed"', async () => {
      armBoth('5xx');
      const before = { transfers: transfers(), pay: payRequests() };
      const r = await execute('codespar_pay', PAY);
      expect(r.json).toMatchObject({ success: false, data: { upstream_status: 503 } });
      expect(providerNamesIn(r.json.data)).toEqual([]);
      expect(payRequests()).toBe(before.pay + 1);
      expect(transfers()).toBe(before.transfers);
      expect((await row(r.json.tool_call_id)).attemptLog).toEqual([
        expect.objectContaining({ outcome: 'answered', upstream_status: 503 }),
      ]);
    });

    it('ranks a rail that keeps refusing below the other on live telemetry, and then fails over the other way', async () => {
      // With the shipped (illustrative) prices one Pix rail ranks first; the test above failed over from it. Here real
      // refusals push it below the other, so the failover from the other direction is proven too.
      const { top, next, paymentId } = await topRail();
      const provider = providerOf(top);
      let flippedAfter = 0;
      for (let i = 1; i <= 200 && !flippedAfter; i++) {
        if (i % 5 === 0) {
          // A success now and then keeps the provider's circuit breaker closed (it opens after five failures in a row).
          expect((await ok('codespar_pay', { action: 'status', payment_id: paymentId })).railId).toBe(top);
          continue;
        }
        sandbox.control.addFault({ provider, route: PAY_ROUTE[provider]!.pay, mode: '429', times: 1 });
        const r = await execute('codespar_pay', PAY);
        sandbox.control.clearFaults();
        expect({ success: r.json.success, data: r.json.success ? 'ok' : r.json.data }).toEqual({
          success: true,
          data: 'ok',
        });
        const log = (await row(r.json.tool_call_id)).attemptLog as Array<{ rail_id: string; outcome: string }>;
        if (log[0]!.rail_id === next) flippedAfter = i;
        else
          expect(log.map((a) => [a.rail_id, a.outcome])).toEqual([
            [top, 'not_processed'],
            [next, 'answered'],
          ]);
      }
      expect(flippedAfter).toBeGreaterThan(0);

      // `next` ranks first now; it refuses connections, and the payment goes to `top`.
      const other = providerOf(next);
      const before = { transfers: transfers(), sent: requests(other, PAY_ROUTE[other]!.pay) };
      await setBase(other, 'http://127.0.0.1:1');
      let r;
      try {
        r = await execute('codespar_pay', PAY);
      } finally {
        await setBase(other, `${sandbox.url}/${other}`);
      }
      expect({ success: r.json.success, data: r.json.success ? 'ok' : r.json.data }).toEqual({
        success: true,
        data: 'ok',
      });
      expect(transfers()).toBe(before.transfers + 1);
      expect(requests(other, PAY_ROUTE[other]!.pay)).toBe(before.sent);
      expect((await row(r.json.tool_call_id)).attemptLog).toEqual([
        expect.objectContaining({ rail_id: next, outcome: 'not_sent' }),
        expect.objectContaining({ rail_id: top, outcome: 'answered' }),
      ]);
    }, 240_000);

    it('feeds every attempt to the router metrics, per rail', async () => {
      const attempts = async () => {
        const rows = (await api('GET', '/v1/router/metrics?tool=codespar_pay')).json.rows as Array<{
          provider_id: string;
          attempts: number;
        }>;
        return Object.fromEntries(rows.map((x) => [x.provider_id, x.attempts]));
      };
      // Telemetry is sent without holding up the answer: wait for it to land.
      let seen: Record<string, number> = {};
      for (let i = 0; i < 50; i++) {
        seen = await attempts();
        if ((seen.asaas ?? 0) + (seen.inter ?? 0) >= 12) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      // Every payment and status read above, the failed attempts included, on both rails.
      expect(seen.asaas).toBeGreaterThanOrEqual(1);
      expect(seen.inter).toBeGreaterThanOrEqual(1);
      expect(seen.asaas! + seen.inter!).toBeGreaterThanOrEqual(12);
    });
  });

  it('keeps every credential out of every response', () => {
    // Runs last: every answer above is in `bodies`.
    expect(bodies.length).toBeGreaterThan(30);
    for (const b of bodies)
      for (const secret of [
        'sandbox-asaas-key',
        'sandbox-inter-secret',
        'sandbox-mp-secret',
        'sandbox-me-secret',
        NFSE_PASSWORD,
        'sandbox-whatsapp-token',
      ])
        expect(b).not.toContain(secret);
  });
});
