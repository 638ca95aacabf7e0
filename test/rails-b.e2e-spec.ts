import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../apps/sandbox/src';
import { saveConnection } from './helpers/rails';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(180_000);

const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;
const PROVIDERS = ['vtex', 'circle', 'idwall', 'blnk', 'pomelo'];
const CREDENTIALS: Record<string, Record<string, string>> = {
  vtex: { app_key: 'sandbox-vtex-appkey', app_token: 'sandbox-vtex-apptoken' },
  circle: { api_key: 'sandbox-circle-key' },
  idwall: { api_key: 'sandbox-idwall-token' },
  blnk: { api_key: 'sandbox-blnk-key' },
  pomelo: { client_id: 'sandbox-pomelo-client', client_secret: 'sandbox-pomelo-secret' },
};
const CARDHOLDER = 'usr-2aSandboxCardholder00000001';
const PROGRAMME = 'afg-2aSandboxProgramme000000001';
const CPF = { regular: '52998224725', sanctioned: '11144477735', pep: '39053344705' };

const CATALOG = JSON.parse(readFileSync(join(__dirname, '../packages/catalog/data/demo-catalog.json'), 'utf8')) as {
  servers: { id: string; name: string }[];
};
const PROVIDER_WORDS = CATALOG.servers
  .filter((s) => PROVIDERS.includes(s.id))
  .flatMap((s) => [s.id, s.name.toLowerCase()]);

/** Provider ids or names anywhere in a normalised result, keys included. */
function providerNamesIn(data: unknown): string[] {
  const text = JSON.stringify(data).toLowerCase();
  return PROVIDER_WORDS.filter((w) => new RegExp(`\\b${w}\\b`).test(text));
}

/**
 * codespar_shop, codespar_crypto_pay, codespar_kyc, codespar_ledger and
 * codespar_issue through POST /v1/sessions/{id}/execute in the test
 * environment against the sandbox provider server: every action, its
 * normalised result naming no provider, and each follow-up (an order's
 * status, a verification's verdict, a receipt, a card read or controlled)
 * sent to the rail whose call created the object.
 */
describe('acting meta-tools against the sandbox: shop, crypto_pay, kyc, ledger, issue', () => {
  let sandbox: Sandbox;
  let stack: Stack;
  let key: string;
  let session: string;
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

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
    stack = await startStack({
      demoCatalog: true,
      env: {
        ROTA_SANDBOX_URL: sandbox.url,
        ROTA_PRIVATE_PROVIDERS: PROVIDERS.join(','),
        ROTA_PROVIDER_TIMEOUT_MS: '3000',
        ROTA_RPC_TIMEOUT_MS: '10000',
        ROTA_LOCAL_EMBEDDER: 'hash',
      },
    });
    key = (await stack.key([...SCOPES], { environment: 'test' })).key;
    for (const provider of PROVIDERS) {
      const r = await saveConnection(api, provider, CREDENTIALS[provider]!);
      // A retried write finds the connection the first one stored: 200.
      expect({ provider, stored: [200, 201].includes(r.status) }).toEqual({ provider, stored: true });
    }
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
    objectRef: string | null;
  }

  /** Runs a call that must succeed: its result (naming no provider) and what its row records. */
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
    expect(call.attemptLog).toEqual([expect.objectContaining({ rail_id: call.railId, outcome: 'answered' })]);
    return { data: r.json.data as Record<string, any>, railId: call.railId!, objectRef: call.objectRef };
  }

  describe('codespar_shop', () => {
    let order: Done;

    it('search: products with exact prices in cents, nothing bought', async () => {
      const before = created('vtex', 'orders');
      const found = await ok('codespar_shop', { action: 'search', query: 'fone', limit: 5 });
      expect(found.railId).toBe('vtex.storefront.out');
      expect(found.data.products).toEqual([
        expect.objectContaining({
          id: '1',
          name: expect.any(String),
          price_minor: 19990,
          currency: 'BRL',
          merchant: expect.any(String),
        }),
      ]);
      expect((await ok('codespar_shop', { action: 'search', query: 'geladeira' })).data.products).toEqual([]);
      expect(created('vtex', 'orders')).toBe(before);
    });

    it('checkout: one order per Idempotency-Key, its total from the storefront', async () => {
      const input = {
        action: 'checkout',
        paymentMethod: 'pix',
        items: [{ id: '1', quantity: 1, price_minor: 19990, merchant_id: '1' }],
        buyer: { name: 'Ana Maria Souza', email: 'ana@example.com', document: '529.982.247-25' },
        address: {
          postal_code: '01310-100',
          street: 'Avenida Paulista',
          number: 1000,
          neighborhood: 'Bela Vista',
          city: 'São Paulo',
          state: 'SP',
        },
      };
      const before = created('vtex', 'orders');
      order = await ok('codespar_shop', input, { 'idempotency-key': 'rails-b-order' });
      expect(order.data).toMatchObject({
        id: expect.any(String),
        status: 'awaiting_payment',
        total_minor: 21490,
        currency: 'BRL',
        payment: { method: 'pix' },
      });
      expect(order.objectRef).toBe(order.data.id);
      const again = await execute('codespar_shop', input, { 'idempotency-key': 'rails-b-order' });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.json.data.id).toBe(order.data.id);
      expect(created('vtex', 'orders')).toBe(before + 1);
    });

    it('checkout_status: read on the rail that placed the order, and paid once the buyer pays', async () => {
      const id = order.data.id as string;
      const reads = requests('vtex', 'get_order');
      const pending = await ok('codespar_shop', { action: 'checkout_status', checkout_session_id: id });
      expect(pending.railId).toBe(order.railId);
      expect(pending.data).toMatchObject({ id, status: 'awaiting_payment' });
      expect(sandbox.control.markPaid('vtex', id)).toBe(true);
      expect((await ok('codespar_shop', { action: 'checkout_status', checkout_session_id: id })).data).toMatchObject({
        id,
        status: 'paid',
      });
      expect(requests('vtex', 'get_order')).toBe(reads + 2);
    });
  });

  describe('codespar_crypto_pay', () => {
    const address = `0x${'ab'.repeat(20)}`;
    it('send: USDC to an address, the amount exact as a decimal string, sent once', async () => {
      const before = created('circle', 'transfers');
      const sent = await ok('codespar_crypto_pay', {
        direction: 'send',
        amount: 25.5,
        currency: 'USDC',
        network: 'polygon',
        counterparty: { address, name: 'Fornecedor', country: 'MX' },
      });
      expect(sent.railId).toBe('circle.usdc.none');
      expect(sent.data).toMatchObject({
        id: expect.any(String),
        status: 'pending',
        amount: '25.5',
        currency: 'USDC',
        network: 'polygon',
      });
      expect(created('circle', 'transfers')).toBe(before + 1);
    });

    it('refuses a coin amount finer than the coin divides, sending nothing', async () => {
      const before = counters().requests_total;
      const r = await execute('codespar_crypto_pay', {
        direction: 'send',
        amount: 0.0000001,
        currency: 'USDC',
        counterparty: { address },
      });
      expect(r.json).toMatchObject({ success: false, data: { code: 'invalid_args' } });
      expect(counters().requests_total).toBe(before);
    });

    it('receive: a deposit address on the network asked for', async () => {
      const got = await ok('codespar_crypto_pay', {
        direction: 'receive',
        amount: 100,
        currency: 'USDC',
        network: 'base',
      });
      expect(got.data).toMatchObject({ status: 'awaiting_deposit', currency: 'USDC', network: 'base' });
      expect(got.data.address).toMatch(/^0x[0-9a-f]{40}$/);
    });
  });

  describe('codespar_kyc', () => {
    const buyer = { name: 'Ana Maria Souza', document: CPF.regular, country: 'BR' };

    it.each(['identity', 'document', 'risk-score', 'sanctions', 'onboarding'])(
      '%s, then status on the rail that started it',
      async (checkType) => {
        const started = await ok('codespar_kyc', { check_type: checkType, buyer });
        expect(started.data).toMatchObject({ id: expect.any(String), status: 'processing', result: 'pending' });
        expect(started.objectRef).toBe(started.data.id);
        const read = await ok('codespar_kyc', { check_type: 'status', buyer: {}, verification_id: started.data.id });
        expect(read.railId).toBe(started.railId);
        expect(read.data).toMatchObject({ id: started.data.id, status: 'completed', result: 'approved' });
      },
    );

    it('onboarding-business checks a company by its CNPJ', async () => {
      const started = await ok('codespar_kyc', {
        check_type: 'onboarding-business',
        buyer: { name: 'Padaria Central Ltda' },
        document_number: '11.222.333/0001-81',
      });
      const read = await ok('codespar_kyc', { check_type: 'status', buyer: {}, verification_id: started.data.id });
      expect(read.railId).toBe(started.railId);
      expect(read.data).toMatchObject({ result: 'approved' });
    });

    it('reports a sanctioned person rejected and a politically exposed one for review', async () => {
      const verdict = async (checkType: string, document: string) => {
        const started = await ok('codespar_kyc', { check_type: checkType, buyer: { document } });
        return (await ok('codespar_kyc', { check_type: 'status', buyer: {}, verification_id: started.data.id })).data;
      };
      expect(await verdict('sanctions', CPF.sanctioned)).toMatchObject({ result: 'rejected' });
      expect(await verdict('onboarding', CPF.pep)).toMatchObject({ result: 'review' });
    });
  });

  describe('codespar_ledger', () => {
    it('account, entry, balance, receipt and receipts, in minor units', async () => {
      const customer = `cus_${randomUUID()}`;
      const account = await ok('codespar_ledger', {
        action: 'account',
        name: 'Carteira da Ana',
        asset: 'BRL',
        type: 'deposit',
        consumer_id: customer,
      });
      expect(account.data).toMatchObject({ id: expect.any(String), name: 'Carteira da Ana' });
      const id = account.data.id as string;

      const entry = await ok('codespar_ledger', {
        action: 'entry',
        asset: 'BRL',
        scale: 2,
        source: [{ account: '@World', amount: 15000 }],
        destination: [{ account: id, amount: 15000 }],
        consumer_id: customer,
      });
      expect(entry.data).toMatchObject({ id: expect.any(String), status: 'applied', amount_minor: 15000 });

      expect((await ok('codespar_ledger', { action: 'balance', account: id })).data).toMatchObject({
        account: id,
        balance_minor: 15000,
        asset: 'BRL',
      });
      const receipt = await ok('codespar_ledger', { action: 'receipt', receipt_id: entry.data.id });
      expect(receipt.railId).toBe(entry.railId);
      expect(receipt.data).toMatchObject({ id: entry.data.id, amount_minor: 15000 });
      const receipts = await ok('codespar_ledger', { action: 'receipts', account: id });
      expect((receipts.data.receipts as { id: string }[]).map((r) => r.id)).toEqual([entry.data.id]);
    });
  });

  describe('codespar_issue', () => {
    it('card-virtual, then card-control and card-get on the rail that issued it', async () => {
      const before = created('pomelo', 'cards');
      const card = await ok('codespar_issue', {
        action: 'card-virtual',
        cardholder_id: CARDHOLDER,
        program_id: PROGRAMME,
      });
      expect(card.data).toMatchObject({
        id: expect.any(String),
        status: 'active',
        type: 'virtual',
        last4: expect.stringMatching(/^\d{4}$/),
      });
      expect(created('pomelo', 'cards')).toBe(before + 1);
      const id = card.data.id as string;

      const frozen = await ok('codespar_issue', {
        action: 'card-control',
        card_id: id,
        control: 'freeze',
        reason: 'viagem',
      });
      expect(frozen.railId).toBe(card.railId);
      expect(frozen.data).toMatchObject({ id, status: 'frozen' });
      expect(
        (await ok('codespar_issue', { action: 'card-control', card_id: id, control: 'unfreeze' })).data,
      ).toMatchObject({ id, status: 'active' });
      const read = await ok('codespar_issue', { action: 'card-get', card_id: id });
      expect(read.railId).toBe(card.railId);
      expect(read.data).toMatchObject({ id, status: 'active', type: 'virtual' });
      expect(created('pomelo', 'cards')).toBe(before + 1);
    });

    it('card-physical: shipped to the address given, waiting for activation', async () => {
      const card = await ok('codespar_issue', {
        action: 'card-physical',
        cardholder_id: CARDHOLDER,
        program_id: PROGRAMME,
        shipping_address: {
          street: 'Rua Augusta',
          number: 500,
          complement: 'ap 12',
          postal_code: '01305-000',
          city: 'São Paulo',
          state: 'SP',
          country: 'BR',
        },
      });
      expect(card.data).toMatchObject({ status: 'issued', type: 'physical' });
    });
  });

  it('answers connection_required, sending nothing, for a tool none of whose providers is connected', async () => {
    const before = counters().requests_total;
    const r = await execute('codespar_charge', {
      method: 'pix',
      amount: 10,
      currency: 'BRL',
      description: 'x',
      buyer: { name: 'Ana', document: CPF.regular },
    });
    expect(r.json).toMatchObject({ success: false, data: { code: 'connection_required' } });
    expect(counters().requests_total).toBe(before);
  });

  it('keeps every credential out of every response', () => {
    // Runs last: every answer above is in `bodies`.
    expect(bodies.length).toBeGreaterThan(30);
    const secrets = Object.values(CREDENTIALS).flatMap((c) => Object.values(c));
    for (const b of bodies) for (const s of secrets) expect(b).not.toContain(s);
  });
});
