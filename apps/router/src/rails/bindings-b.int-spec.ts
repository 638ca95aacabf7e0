import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsonata from 'jsonata';
import {
  actionOf,
  isAmountProblem,
  META_TOOL_ACTIONS,
  parseMajorAmount,
  resultSchema,
  type ActingMetaTool,
  type ExactAmount,
  type RailBinding,
} from '@rota/contracts';
import { DEFAULT_RAILS_DIR, loadRails } from './rails';

/**
 * Every binding of the shop, crypto, KYC, ledger and card rails, end to end
 * against the in-process sandbox: the rail's `request` mapping gives the
 * catalog tool's input, which passes execute's own argument check, becomes
 * an HTTP request through the adapter layer's builder with the sandbox's
 * test credentials, and the provider's answer goes through `result` into the
 * normalised result schema, naming no provider.
 */

// The sandbox, the adapter layer's request builder and execute's argument
// check live in workspaces the router does not depend on. They are loaded by
// path, so the router's typecheck stays inside its own sources; the small
// types below are the parts this test uses.
interface SandboxLike {
  url: string;
  config: { providers: Record<string, { auth: AuthLike }> };
  control: {
    counters(): {
      created: Record<string, Record<string, number>>;
      requests: Record<string, Record<string, number>>;
      idempotent_replays: number;
    };
    addFault(rule: { provider: string; route?: string; mode: string; times?: number; status?: number }): unknown;
    clearFaults(): void;
    markPaid(provider: string, id: string): boolean;
  };
  close(): Promise<void>;
}
type AuthLike = { type: string; [k: string]: unknown };
interface ProviderRequestLike {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}
type BuildRequest = (args: {
  baseUrl: string;
  method: string;
  endpointTemplate: string;
  parameters?: unknown;
  input: Record<string, unknown>;
}) => ProviderRequestLike;
type ArgsCheck = { ok: true; value: Record<string, unknown> } | { ok: false; issues: unknown[] };

const load = <T>(path: string): Promise<T> => import(path) as Promise<T>;

interface CatalogTool {
  name: string;
  http_method: string;
  endpoint_template: string;
  input_schema: unknown;
  parameters: unknown;
}
interface CatalogServer {
  id: string;
  name: string;
  base_urls: { test: string };
  http: {
    auth: { type: string; name?: string; prefix?: string; headers?: { name: string }[]; token_url?: string };
    idempotency_header?: string;
  };
  tools: CatalogTool[];
}

/** The rails this file proves, by provider id (each one the sandbox serves under the same prefix). */
const PROVIDERS = ['vtex', 'circle', 'idwall', 'blnk', 'pomelo'];
const TOOLS: ActingMetaTool[] = [
  'codespar_shop',
  'codespar_crypto_pay',
  'codespar_kyc',
  'codespar_ledger',
  'codespar_issue',
];

const CARDHOLDER = 'usr-2aSandboxCardholder00000001';
const PROGRAMME = 'afg-2aSandboxProgramme000000001';
const CPF = { regular: '52998224725', sanctioned: '11144477735', pep: '39053344705', suspended: '98765432100' };

const rails = loadRails(DEFAULT_RAILS_DIR).filter((r) => PROVIDERS.includes(r.provider_id));
const catalogText = readFileSync(join(__dirname, '../../../../packages/catalog/data/demo-catalog.json'), 'utf8');

let sandbox: SandboxLike;
let buildRequest: BuildRequest;
let checkArgs: (input: Record<string, unknown>, schema: unknown) => ArgsCheck;
let servers: Map<string, CatalogServer>;
const tokens = new Map<string, string>();
const exercised = new Set<string>();

beforeAll(async () => {
  const { startSandbox } = await load<{ startSandbox(o: { port: number }): Promise<SandboxLike> }>(
    '../../../sandbox/src',
  );
  ({ buildRequest } = await load<{ buildRequest: BuildRequest }>('@rota/providers'));
  const { CatalogSchemas } = await load<{ CatalogSchemas: new () => { check: typeof checkArgs } }>(
    '../../../session/src/execute/validate',
  );
  const schemas = new CatalogSchemas();
  checkArgs = (input, schema) => schemas.check(input, schema);
  sandbox = await startSandbox({ port: 0 });
  const catalog = JSON.parse(catalogText.replaceAll('${ROTA_SANDBOX_URL}', sandbox.url)) as {
    servers: CatalogServer[];
  };
  servers = new Map(catalog.servers.map((s) => [s.id, s]));
});
afterAll(async () => {
  await sandbox?.close();
});

/** The credential headers for a prefix, from the sandbox's documented test credentials, placed as the catalog says. */
async function authHeaders(server: CatalogServer): Promise<Record<string, string>> {
  const auth = sandbox.config.providers[server.id]!.auth;
  const http = server.http.auth;
  switch (http.type) {
    case 'api_key':
      return { [http.name!.toLowerCase()]: `${http.prefix ?? ''}${String(auth.value)}` };
    case 'bearer':
      return { authorization: `Bearer ${String(auth.token)}` };
    case 'two_header': {
      const values = Object.values(auth.headers as Record<string, string>);
      return Object.fromEntries(http.headers!.map((h, i) => [h.name.toLowerCase(), values[i]!]));
    }
    case 'oauth2': {
      let token = tokens.get(server.id);
      if (!token) {
        const res = await fetch(`${server.base_urls.test}${http.token_url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: String(auth.client_id),
            client_secret: String(auth.client_secret),
          }).toString(),
        });
        expect(res.status).toBe(200);
        token = ((await res.json()) as { access_token: string }).access_token;
        tokens.set(server.id, token);
      }
      return { authorization: `Bearer ${token}` };
    }
    default:
      throw new Error(`no test credential for ${http.type}`);
  }
}

/** The exact amount execute derives for these tools: only crypto_pay carries one (coin units). */
function amountOf(tool: ActingMetaTool, input: Record<string, unknown>): ExactAmount | null {
  if (tool !== 'codespar_crypto_pay') return null;
  const parsed = parseMajorAmount(input.amount, String(input.currency));
  if (isAmountProblem(parsed)) throw new Error(parsed.message);
  return parsed;
}

interface Outcome {
  status: number;
  body: unknown;
  result: Record<string, unknown>;
  toolInput: Record<string, unknown>;
  headers: Headers;
}

/** One meta-tool call over its rail, as execute will make it. */
async function call(
  tool: ActingMetaTool,
  input: Record<string, unknown>,
  key: string = `rota-${randomUUID()}`,
  expectOk = true,
): Promise<Outcome> {
  const action = actionOf(tool, input);
  const rail = rails.find((r) => r.tool === tool && r.actions[action]);
  if (!rail) throw new Error(`no rail runs ${tool} ${action}`);
  const binding: RailBinding = rail.actions[action]!;
  const server = servers.get(rail.provider_id)!;
  const catalogTool = server.tools.find((t) => t.name === binding.catalog_tool);
  if (!catalogTool) throw new Error(`${rail.provider_id} has no catalog tool ${binding.catalog_tool}`);
  const amount = amountOf(tool, input);

  const mapped = (await jsonata(binding.request).evaluate({
    input,
    action,
    amount,
    idempotency_key: key,
    today: new Date().toISOString().slice(0, 10),
  })) as unknown;
  const toolInput = JSON.parse(JSON.stringify(mapped ?? {})) as Record<string, unknown>;
  const checked = checkArgs(toolInput, catalogTool.input_schema);
  expect({ tool, action, issues: checked.ok ? [] : checked.issues }).toEqual({ tool, action, issues: [] });
  const request = buildRequest({
    baseUrl: server.base_urls.test,
    method: catalogTool.http_method,
    endpointTemplate: catalogTool.endpoint_template,
    parameters: catalogTool.parameters,
    input: (checked as { value: Record<string, unknown> }).value,
  });
  const headers: Record<string, string> = { ...request.headers, ...(await authHeaders(server)) };
  if (server.http.idempotency_header && request.method !== 'GET')
    headers[server.http.idempotency_header.toLowerCase()] = key;
  const res = await fetch(request.url, {
    method: request.method,
    headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as unknown) : null;
  if (!expectOk) return { status: res.status, body, result: {}, toolInput, headers: res.headers };
  expect({ tool, action, status: res.status, body: res.ok ? 'ok' : body }).toEqual({
    tool,
    action,
    status: res.status,
    body: 'ok',
  });

  const out = (await jsonata(binding.result).evaluate({
    response: { status: res.status, body },
    input,
    action,
    amount,
  })) as unknown;
  const result = JSON.parse(JSON.stringify(out ?? null)) as Record<string, unknown>;
  const parsed = resultSchema(tool, action)!.safeParse(result);
  expect({ tool, action, issues: parsed.success ? [] : parsed.error.issues }).toEqual({ tool, action, issues: [] });
  // The agent never learns which rail ran.
  const words = JSON.stringify(result).toLowerCase();
  for (const name of [rail.provider_id, server.name.toLowerCase()])
    expect({ tool, action, names: words.includes(name) ? name : null }).toEqual({ tool, action, names: null });
  exercised.add(`${tool}.${action}`);
  return { status: res.status, body, result, toolInput, headers: res.headers };
}

const created = (provider: string, resource: string): number =>
  sandbox.control.counters().created[provider]?.[resource] ?? 0;

describe('shop: a storefront search, a Pix order and its status', () => {
  it('finds products with prices in cents and the merchant that sells them', async () => {
    const { result, toolInput } = await call('codespar_shop', { action: 'search', query: 'fone', limit: 5 });
    expect(toolInput).toEqual({ ft: 'fone', _from: 0, _to: 4 });
    expect(result.products).toEqual([
      expect.objectContaining({
        id: '1',
        name: 'Fone de Ouvido Bluetooth Sonora Pulse',
        price_minor: 19990,
        currency: 'BRL',
        merchant: 'Loja Sandbox',
        available: true,
      }),
    ]);
    const partner = await call('codespar_shop', { action: 'search', query: 'café', merchant: 'cafeecia' });
    expect(partner.result.products).toEqual([
      expect.objectContaining({ id: '3', price_minor: 5490, merchant: 'Café & Cia', merchant_id: 'cafeecia' }),
    ]);
    const none = await call('codespar_shop', { action: 'search', query: 'geladeira' });
    expect(none.result.products).toEqual([]);
  });

  it('buys what a search returned, once per idempotency key, and follows the order until it is paid', async () => {
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
    const key = `rota-${randomUUID()}`;
    const first = await call('codespar_shop', input, key);
    expect(first.result).toMatchObject({
      status: 'awaiting_payment',
      total_minor: 21490,
      items_minor: 19990,
      shipping_minor: 1500,
      currency: 'BRL',
    });
    expect(first.result.payment).toMatchObject({ method: 'pix', status: 'pending' });
    expect(first.toolInput).toMatchObject({
      clientProfileData: {
        email: 'ana@example.com',
        firstName: 'Ana',
        lastName: 'Maria Souza',
        document: '52998224725',
        documentType: 'cpf',
      },
      shippingData: { address: { postalCode: '01310100', number: '1000' } },
      paymentData: { payments: [{ paymentSystem: '125' }] },
    });
    const again = await call('codespar_shop', input, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.result.id).toBe(first.result.id);
    expect(created('vtex', 'orders')).toBe(before + 1);

    const id = first.result.id as string;
    expect((await call('codespar_shop', { action: 'checkout_status', checkout_session_id: id })).result).toEqual({
      id,
      status: 'awaiting_payment',
      total_minor: 21490,
      currency: 'BRL',
    });
    expect(sandbox.control.markPaid('vtex', id)).toBe(true);
    expect((await call('codespar_shop', { action: 'checkout_status', checkout_session_id: id })).result).toMatchObject({
      id,
      status: 'paid',
    });
  });
});

describe('crypto_pay: USDC out to an address and a deposit address in', () => {
  const address = `0x${'ab'.repeat(20)}`;

  it('sends USDC on the named network with the amount as a decimal string', async () => {
    const before = created('circle', 'transfers');
    const input = {
      direction: 'send',
      amount: 25.5,
      currency: 'USDC',
      network: 'polygon',
      counterparty: { address, name: 'Fornecedor', country: 'MX' },
    };
    const key = `rota-${randomUUID()}`;
    const { result, toolInput } = await call('codespar_crypto_pay', input, key);
    expect(toolInput).toMatchObject({
      idempotencyKey: key,
      destination: { type: 'blockchain', address, chain: 'MATIC' },
      amount: { amount: '25.5', currency: 'USD' },
    });
    expect(result).toMatchObject({ status: 'pending', amount: '25.5', currency: 'USDC', network: 'polygon', address });
    // The provider's own key is in the body: the same call again sends nothing new.
    const again = await call('codespar_crypto_pay', input, key);
    expect(again.result.id).toBe(result.id);
    expect(created('circle', 'transfers')).toBe(before + 1);
  });

  it('does not send while the provider fails by route, and sends on the next try', async () => {
    const before = created('circle', 'transfers');
    sandbox.control.addFault({
      provider: 'circle',
      route: 'create_wallet_transfer',
      mode: '5xx',
      status: 503,
      times: 1,
    });
    const input = { direction: 'send', amount: 1, currency: 'USDC', counterparty: { wallet_address: address } };
    const refused = await call('codespar_crypto_pay', input, undefined, false);
    expect(refused).toMatchObject({ status: 503, body: { code: 1 } });
    expect(created('circle', 'transfers')).toBe(before);
    const { result } = await call('codespar_crypto_pay', input);
    expect(result).toMatchObject({ amount: '1', network: 'ethereum' });
    expect(created('circle', 'transfers')).toBe(before + 1);
  });

  it('hands out a deposit address for the network', async () => {
    const { result } = await call('codespar_crypto_pay', {
      direction: 'receive',
      amount: 100,
      currency: 'USDC',
      network: 'base',
    });
    expect(result).toMatchObject({
      status: 'awaiting_deposit',
      currency: 'USDC',
      network: 'base',
      expected_amount: '100',
    });
    expect(result.address).toMatch(/^0x[0-9a-f]{40}$/);
  });
});

describe('kyc: checks started, then read back with their verdict', () => {
  const buyer = { name: 'Ana Maria Souza', document: CPF.regular, country: 'BR' };

  it.each(['identity', 'document', 'risk-score', 'sanctions', 'onboarding'])(
    '%s on a regular CPF is approved',
    async (checkType) => {
      const started = await call('codespar_kyc', { check_type: checkType, buyer });
      expect(started.result).toMatchObject({ status: 'processing', result: 'pending' });
      const read = await call('codespar_kyc', { check_type: 'status', buyer, verification_id: started.result.id });
      expect(read.result).toMatchObject({
        id: started.result.id,
        status: 'completed',
        result: 'approved',
        check_type: checkType,
      });
      if (checkType === 'risk-score' || checkType === 'onboarding')
        expect(read.result.score).toEqual(expect.any(Number));
    },
  );

  it('checks a company by its CNPJ', async () => {
    const started = await call('codespar_kyc', {
      check_type: 'onboarding-business',
      buyer: { name: 'Padaria Central Ltda' },
      document_number: '11.222.333/0001-81',
    });
    expect(started.toolInput).toEqual({ matriz: 'onboardingEmpresa', parametros: { cnpj_numero: '11222333000181' } });
    const read = await call('codespar_kyc', { check_type: 'status', buyer: {}, verification_id: started.result.id });
    expect(read.result).toMatchObject({ result: 'approved', check_type: 'onboarding-business' });
  });

  it('rejects a sanctioned person, sends a politically exposed one to review and refuses a suspended CPF', async () => {
    const verdict = async (checkType: string, document: string) => {
      const started = await call('codespar_kyc', { check_type: checkType, buyer: { document } });
      return (await call('codespar_kyc', { check_type: 'status', buyer: {}, verification_id: started.result.id }))
        .result;
    };
    expect(await verdict('sanctions', CPF.sanctioned)).toMatchObject({ result: 'rejected', status: 'completed' });
    expect(await verdict('onboarding', CPF.pep)).toMatchObject({ result: 'review', status: 'in_review' });
    expect(await verdict('identity', CPF.suspended)).toMatchObject({ result: 'rejected' });
    expect(await verdict('identity', '12345678900')).toMatchObject({ result: 'rejected' });
  });
});

describe('ledger: an account, an entry into it, its balance and its receipts', () => {
  it('opens an account, posts money into it, reads the balance and the receipts', async () => {
    const customer = `cus_${randomUUID()}`;
    const account = await call('codespar_ledger', {
      action: 'account',
      name: 'Carteira da Ana',
      asset: 'BRL',
      type: 'deposit',
      consumer_id: customer,
    });
    expect(account.result).toMatchObject({ name: 'Carteira da Ana', asset: 'BRL', type: 'deposit' });
    const id = account.result.id as string;

    const entry = await call('codespar_ledger', {
      action: 'entry',
      asset: 'BRL',
      scale: 2,
      source: [{ account: '@World', amount: 15000 }],
      destination: [{ account: id, amount: 15000 }],
      consumer_id: customer,
    });
    expect(entry.result).toMatchObject({ status: 'applied', amount_minor: 15000, asset: 'BRL', destination: id });
    expect(entry.toolInput).toMatchObject({
      precise_amount: 15000,
      precision: 100,
      source: '@World',
      allow_overdraft: true,
      skip_queue: true,
    });

    expect((await call('codespar_ledger', { action: 'balance', account: id })).result).toMatchObject({
      account: id,
      balance_minor: 15000,
      asset: 'BRL',
    });
    expect((await call('codespar_ledger', { action: 'receipt', receipt_id: entry.result.id })).result).toMatchObject({
      id: entry.result.id,
      amount_minor: 15000,
      status: 'applied',
    });

    const out = await call('codespar_ledger', {
      action: 'entry',
      asset: 'BRL',
      source: [{ account: id, amount: 4990 }],
      destination: [{ account: '@Merchant', amount: 4990 }],
    });
    expect(out.result).toMatchObject({ status: 'applied', amount_minor: 4990 });
    expect((await call('codespar_ledger', { action: 'balance', account: id })).result).toMatchObject({
      balance_minor: 10010,
    });

    const byAccount = await call('codespar_ledger', { action: 'receipts', account: id, limit: 10 });
    expect((byAccount.result.receipts as { id: string }[]).map((r) => r.id)).toEqual([out.result.id, entry.result.id]);
    const byCustomer = await call('codespar_ledger', { action: 'receipts', consumer_id: customer });
    expect((byCustomer.result.receipts as { id: string }[]).map((r) => r.id)).toEqual([entry.result.id]);
  });

  it('records an entry the source cannot cover as rejected and moves nothing', async () => {
    const empty = await call('codespar_ledger', { action: 'account', name: 'Vazia', asset: 'BRL' });
    const entry = await call('codespar_ledger', {
      action: 'entry',
      asset: 'BRL',
      source: [{ account: empty.result.id, amount: 100 }],
      destination: [{ account: '@Merchant', amount: 100 }],
    });
    expect(entry.result.status).toBe('rejected');
    expect((await call('codespar_ledger', { action: 'balance', account: empty.result.id })).result.balance_minor).toBe(
      0,
    );
  });
});

describe('issue: virtual and physical cards, frozen, unfrozen and cancelled', () => {
  it('issues a virtual card active at once and walks it through every control', async () => {
    const before = created('pomelo', 'cards');
    const card = await call('codespar_issue', {
      action: 'card-virtual',
      cardholder_id: CARDHOLDER,
      program_id: PROGRAMME,
    });
    expect(card.result).toMatchObject({ status: 'active', type: 'virtual' });
    expect(card.result.last4).toMatch(/^\d{4}$/);
    expect(created('pomelo', 'cards')).toBe(before + 1);
    const id = card.result.id as string;

    expect(
      (await call('codespar_issue', { action: 'card-control', card_id: id, control: 'freeze', reason: 'viagem' }))
        .result,
    ).toMatchObject({
      id,
      status: 'frozen',
    });
    expect(
      (await call('codespar_issue', { action: 'card-control', card_id: id, control: 'unfreeze' })).result,
    ).toMatchObject({ id, status: 'active' });
    const cancelled = await call('codespar_issue', {
      action: 'card-control',
      card_id: id,
      control: 'cancel',
      reason: 'Perdi o cartão',
    });
    expect(cancelled.toolInput).toEqual({ id, status: 'DISABLED', status_reason: 'LOST' });
    expect(cancelled.result).toMatchObject({ status: 'cancelled', status_reason: 'lost' });
    expect((await call('codespar_issue', { action: 'card-get', card_id: id })).result).toMatchObject({
      id,
      status: 'cancelled',
      type: 'virtual',
    });
  });

  it('issues a physical card to the mailing address, waiting for the cardholder to activate it', async () => {
    const card = await call('codespar_issue', {
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
    expect(card.toolInput.address).toEqual({
      street_name: 'Rua Augusta',
      street_number: '500',
      apartment: 'ap 12',
      zip_code: '01305000',
      city: 'São Paulo',
      region: 'SP',
      country: 'BRA',
    });
    expect(card.result).toMatchObject({ status: 'issued', type: 'physical' });
  });
});

describe('the rails of these tools', () => {
  it('bind every action of shop, crypto_pay, kyc, ledger and issue, each one proved above', () => {
    const expected = TOOLS.flatMap((t) => (META_TOOL_ACTIONS[t] as readonly string[]).map((a) => `${t}.${a}`)).sort();
    const bound = rails.flatMap((r) => Object.keys(r.actions).map((a) => `${r.tool}.${a}`)).sort();
    expect(bound).toEqual(expected);
    expect([...exercised].sort()).toEqual(expected);
  });

  it('name their model and a catalog tool the provider has', () => {
    for (const rail of rails) {
      expect(rail.models).toEqual(expect.any(String));
      const server = servers.get(rail.provider_id)!;
      expect(server.base_urls.test).toBe(`${sandbox.url}/${rail.provider_id}`);
      for (const [action, binding] of Object.entries(rail.actions)) {
        expect(server.tools.map((t) => t.name)).toContain(binding.catalog_tool);
        // `call` above makes the main request only: a step added to one of these rails needs it to run steps first.
        expect({ rail: rail.id, action, steps: binding.before.length + binding.after.length }).toEqual({
          rail: rail.id,
          action,
          steps: 0,
        });
      }
    }
  });
});
