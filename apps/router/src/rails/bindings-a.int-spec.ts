import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsonata from 'jsonata';
import {
  fromMinorAmount,
  isAmountProblem,
  parseMajorAmount,
  resultSchema,
  type ActingMetaTool,
  type ExactAmount,
  type RailBinding,
  type RailStep,
} from '@rota/contracts';
import { DEFAULT_RAILS_DIR, loadRails } from './rails';

/**
 * The bindings of codespar_pay, codespar_checkout, codespar_wallet,
 * codespar_invoice, codespar_ship and codespar_notify, each run end to end
 * against the sandbox provider server in process, the way the session
 * service runs a rail: before-steps, the main call, after-steps, every
 * request built by `buildRequest` from the demo catalog tool the binding
 * names, the result mapped and checked against the tool's result schema.
 *
 * The router depends on neither the sandbox nor the provider client, so
 * both are loaded at run time (Jest maps `@rota/providers`); the few types
 * used here are spelt out below.
 */

interface ProviderRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}
interface Providers {
  buildRequest(args: {
    baseUrl: string;
    method: string;
    endpointTemplate: string;
    parameters?: unknown;
    input: Record<string, unknown>;
  }): ProviderRequest;
}
interface Counters {
  created: Record<string, Record<string, number>>;
  requests: Record<string, Record<string, number>>;
  idempotent_replays: number;
}
interface Sandbox {
  url: string;
  control: { counters(): Counters; reset(): void };
  close(): Promise<void>;
}
interface SandboxModule {
  startSandbox(o: { port: number }): Promise<Sandbox>;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const providers = require('@rota/providers') as Providers;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sandboxModule = require(join(__dirname, '../../../sandbox/src')) as SandboxModule;

interface CatalogTool {
  name: string;
  http_method: string;
  endpoint_template: string;
  parameters: unknown;
}
interface CatalogServer {
  id: string;
  base_urls: { test: string };
  http: { auth: Record<string, unknown> & { type: string }; idempotency_header?: string } | null;
  tools: CatalogTool[];
}

const CATALOG_TEXT = readFileSync(join(__dirname, '../../../../packages/catalog/data/demo-catalog.json'), 'utf8');
const RAILS = loadRails(DEFAULT_RAILS_DIR);

/** The documented sandbox test credentials, per provider. */
const CREDENTIALS: Record<string, Record<string, string>> = {
  asaas: { api_key: 'sandbox-asaas-key' },
  mercadopago: { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' },
  inter: { client_id: 'sandbox-inter-client', client_secret: 'sandbox-inter-secret' },
  focusnfe: { username: 'sandbox-nfse-token', password: '' },
  melhorenvio: { client_id: 'sandbox-me-client', client_secret: 'sandbox-me-secret' },
  whatsapp: { token: 'sandbox-whatsapp-token' },
};

let sandbox: Sandbox;
let servers: Map<string, CatalogServer>;
const tokens = new Map<string, string>();

beforeAll(async () => {
  sandbox = await sandboxModule.startSandbox({ port: 0 });
  const catalog = JSON.parse(CATALOG_TEXT.split('${ROTA_SANDBOX_URL}').join(sandbox.url)) as {
    servers: CatalogServer[];
  };
  servers = new Map(catalog.servers.map((s) => [s.id, s]));
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(() => {
  sandbox.control.reset();
  tokens.clear();
});

async function send(req: ProviderRequest): Promise<{ status: number; body: unknown }> {
  const res = await fetch(req.url, {
    method: req.method,
    headers: req.headers,
    body: req.body,
    signal: AbortSignal.timeout(5000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

/** Puts the connection's credential where the catalog says it goes (an OAuth2 token from the environment's token URL). */
async function authorise(server: CatalogServer, req: ProviderRequest): Promise<ProviderRequest> {
  const auth = server.http!.auth;
  const cred = CREDENTIALS[server.id]!;
  const headers = { ...req.headers };
  switch (auth.type) {
    case 'api_key':
      headers[String(auth.name).toLowerCase()] = cred.api_key!;
      break;
    case 'bearer':
      headers.authorization = `Bearer ${cred.token}`;
      break;
    case 'basic':
      headers.authorization = `Basic ${Buffer.from(`${cred.username}:${cred.password}`).toString('base64')}`;
      break;
    case 'oauth2': {
      let token = tokens.get(server.id);
      if (!token) {
        // Client credentials for every oauth2 prefix: the sandbox grants them whatever the live grant is.
        const form = new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: cred.client_id!,
          client_secret: cred.client_secret!,
        });
        const r = await fetch(`${server.base_urls.test}${String(auth.token_url)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
          signal: AbortSignal.timeout(5000),
        });
        expect(r.status).toBe(200);
        token = ((await r.json()) as { access_token: string }).access_token;
        tokens.set(server.id, token);
      }
      headers.authorization = `Bearer ${token}`;
      break;
    }
    default:
      throw new Error(`no test credential for auth type ${auth.type}`);
  }
  return { ...req, headers };
}

async function evaluate(expression: string, context: unknown): Promise<unknown> {
  let out: unknown;
  try {
    out = await jsonata(expression).evaluate(context);
  } catch (err) {
    // JSONata throws plain objects; the session service wraps them the same way.
    throw new Error(`the mapping failed: ${(err as { message: string }).message}`);
  }
  if (out === undefined) throw new Error('the mapping produced nothing');
  return JSON.parse(JSON.stringify(out)) as unknown;
}

async function request(
  providerId: string,
  toolName: string,
  expression: string,
  context: unknown,
  key: string,
): Promise<{ status: number; body: unknown; sent: Record<string, unknown> }> {
  const server = servers.get(providerId)!;
  const tool = server.tools.find((t) => t.name === toolName);
  if (!tool) throw new Error(`${providerId}/${toolName} is not in the demo catalog`);
  const input = (await evaluate(expression, context)) as Record<string, unknown>;
  const built = providers.buildRequest({
    baseUrl: server.base_urls.test,
    method: tool.http_method,
    endpointTemplate: tool.endpoint_template,
    parameters: tool.parameters,
    input,
  });
  const headers = { ...built.headers };
  if (server.http?.idempotency_header && built.method !== 'GET')
    headers[server.http.idempotency_header.toLowerCase()] = key;
  return { ...(await send(await authorise(server, { ...built, headers }))), sent: input };
}

interface Run {
  status: number;
  body: unknown;
  /** The catalog tool input the main mapping produced. */
  sent: Record<string, any>;
  steps: Record<string, { status: number; body: unknown }>;
  /** The normalised result, for a 2xx answer. */
  data?: Record<string, any>;
}

/** The exact amount of a call, as the session service derives it. */
function amountFor(tool: ActingMetaTool, action: string, input: Record<string, any>): ExactAmount | null {
  const currency = typeof input.currency === 'string' ? input.currency : 'BRL';
  let a;
  if (tool === 'codespar_pay' && action === 'pay') a = fromMinorAmount(input.amount, currency);
  else if (tool === 'codespar_wallet' && action === 'receive' && input.amount !== undefined)
    a = fromMinorAmount(input.amount, currency);
  else if (tool === 'codespar_checkout')
    a =
      input.amount !== undefined
        ? parseMajorAmount(input.amount, currency)
        : fromMinorAmount(
            (input.items as any[]).reduce(
              (s, i) => s + Math.round((i.unit_price ?? i.price) * 100) * (i.quantity ?? 1),
              0,
            ),
            currency,
          );
  else return null;
  if (isAmountProblem(a)) throw new Error(a.message);
  return a;
}

let keys = 0;

/** Runs one action of one rail as the session service does. */
async function run(
  railId: string,
  action: string,
  input: Record<string, any>,
  key = `rota-test-${++keys}-${Date.now()}`,
): Promise<Run> {
  const rail = RAILS.find((r) => r.id === railId)!;
  const binding: RailBinding = rail.actions[action]!;
  expect(binding).toBeDefined();
  const amount = amountFor(rail.tool, action, input);
  const context = {
    input,
    action,
    amount,
    idempotency_key: key,
    today: new Date().toISOString().slice(0, 10),
    steps: {} as Run['steps'],
  };
  for (const step of binding.before as RailStep[]) {
    const r = await request(rail.provider_id, step.catalog_tool, step.request, context, `${key}-${step.name}`);
    expect({ step: step.name, status: r.status < 300 ? 'ok' : r.body }).toEqual({ step: step.name, status: 'ok' });
    context.steps[step.name] = { status: r.status, body: r.body };
  }
  const response = await request(rail.provider_id, binding.catalog_tool, binding.request, context, key);
  if (response.status >= 300) return { ...response, steps: context.steps };
  for (const step of binding.after as RailStep[]) {
    const r = await request(
      rail.provider_id,
      step.catalog_tool,
      step.request,
      { ...context, response },
      `${key}-${step.name}`,
    );
    if (r.status < 300) context.steps[step.name] = { status: r.status, body: r.body };
  }
  const mapped = await evaluate(binding.result, { response, steps: context.steps, input, action, amount });
  const checked = resultSchema(rail.tool, action)!.safeParse(mapped);
  if (!checked.success)
    throw new Error(`${railId} ${action}: ${JSON.stringify(checked.error.issues)} in ${JSON.stringify(mapped)}`);
  return { ...response, steps: context.steps, data: checked.data as Record<string, any> };
}

const created = (provider: string, what: string) => sandbox.control.counters().created[provider]?.[what] ?? 0;

const MY_RAILS = [
  'asaas.pix.out',
  'inter.pix.out',
  'asaas.wallet.none',
  'mercadopago.checkout.in',
  'focusnfe.nfse.none',
  'melhorenvio.label.none',
  'whatsapp.whatsapp.none',
];

describe('rail bindings (part A) against the sandbox', () => {
  it('name catalog tools that exist, with a method and an endpoint, for every call they make', () => {
    for (const id of MY_RAILS) {
      const rail = RAILS.find((r) => r.id === id)!;
      expect({ id, models: typeof rail.models }).toEqual({ id, models: 'string' });
      const server = servers.get(rail.provider_id)!;
      expect(server.base_urls.test.startsWith(sandbox.url)).toBe(true);
      for (const binding of Object.values(rail.actions))
        for (const name of [
          binding.catalog_tool,
          ...binding.before.map((s) => s.catalog_tool),
          ...binding.after.map((s) => s.catalog_tool),
        ]) {
          const tool = server.tools.find((t) => t.name === name);
          expect({ id, name, found: Boolean(tool?.http_method && tool.endpoint_template) }).toEqual({
            id,
            name,
            found: true,
          });
        }
    }
  });

  describe('codespar_pay over two Brazilian Pix rails', () => {
    it.each([
      ['a CPF', '123.456.789-09', 'CPF', '12345678909'],
      ['a CNPJ', '11.222.333/0001-81', 'CNPJ', '11222333000181'],
      ['an e-mail', 'ana@example.com', 'EMAIL', 'ana@example.com'],
      ['a phone', '+55 11 98765-4321', 'PHONE', '11987654321'],
      ['a random key', '1f0e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b', 'EVP', '1f0e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b'],
    ])('Asaas: pays %s with one transfer, then reports it completed', async (_what, recipient, type, sentKey) => {
      const paid = await run('asaas.pix.out', 'pay', {
        action: 'pay',
        method: 'pix',
        amount: 4990,
        recipient,
        description: 'fornecedor',
      });
      expect(paid.status).toBe(200);
      expect(paid.sent).toMatchObject({ pixAddressKeyType: type, pixAddressKey: sentKey, value: 49.9 });
      expect(paid.body).toMatchObject({ bankAccount: { pixAddressKey: sentKey }, value: 49.9 });
      expect(paid.data).toMatchObject({ status: 'pending', amount_minor: 4990, currency: 'BRL', method: 'pix' });
      expect(created('asaas', 'transfers')).toBe(1);

      const status = await run('asaas.pix.out', 'status', { action: 'status', payment_id: paid.data!.id });
      expect(status.data).toMatchObject({
        id: paid.data!.id,
        status: 'completed',
        amount_minor: 4990,
        currency: 'BRL',
      });
      expect(status.data!.end_to_end_id).toMatch(/^E\d{8}/);
      expect(created('asaas', 'transfers')).toBe(1);
    });

    it('Asaas: the same idempotency key twice makes one transfer', async () => {
      const input = { action: 'pay', amount: 1500, recipient: 'ana@example.com' };
      const a = await run('asaas.pix.out', 'pay', input, 'rota-same-key');
      const b = await run('asaas.pix.out', 'pay', input, 'rota-same-key');
      expect(b.data!.id).toBe(a.data!.id);
      expect(created('asaas', 'transfers')).toBe(1);
      expect(sandbox.control.counters().idempotent_replays).toBe(1);
    });

    it('Asaas: a copy-and-paste code alone cannot be paid on this rail, so its mapping refuses before anything is sent', async () => {
      await expect(
        run('asaas.pix.out', 'pay', { action: 'pay', amount: 1000, copia_e_cola: '000201...' }),
      ).rejects.toThrow(/Pix key/);
      expect(sandbox.control.counters().requests.asaas).toBeUndefined();
    });

    it('Asaas: more than the balance is refused and moves nothing', async () => {
      const r = await run('asaas.pix.out', 'pay', { action: 'pay', amount: 2_000_000, recipient: 'ana@example.com' });
      expect(r.status).toBe(400);
      expect(created('asaas', 'transfers')).toBe(0);
    });

    it('Inter: pays a Pix key with one payment, then reports it completed with its history', async () => {
      const paid = await run('inter.pix.out', 'pay', {
        action: 'pay',
        amount: 12345,
        recipient: { pix_key: '+55 (11) 98765-4321' },
        description: 'frete',
      });
      expect(paid.status).toBe(200);
      expect(paid.data).toMatchObject({ status: 'processing', amount_minor: 12345, currency: 'BRL', method: 'pix' });
      expect(created('inter', 'transfers')).toBe(1);
      expect(sandbox.control.counters().requests.inter).toMatchObject({ oauth_token: 1, send_pix: 1 });

      const status = await run('inter.pix.out', 'status', { action: 'status', payment_id: paid.data!.id });
      expect(status.data).toMatchObject({ id: paid.data!.id, status: 'completed', amount_minor: 12345 });
      expect(status.data!.events.map((e: { status: string }) => e.status)).toEqual([
        'transacao_criada',
        'transacao_aprovada',
        'pix_enviado',
        'pix_pago',
      ]);
    });

    it('Inter: pays the copy-and-paste code of a static QR code for its amount', async () => {
      const qr = await run('asaas.wallet.none', 'receive', {
        action: 'receive',
        amount: 2500,
        description: 'mensalidade',
      });
      const paid = await run('inter.pix.out', 'pay', {
        action: 'pay',
        amount: 2500,
        copia_e_cola: qr.data!.pix.copia_e_cola,
      });
      expect(paid.data).toMatchObject({ status: 'processing', amount_minor: 2500 });
      const wrong = await run('inter.pix.out', 'pay', {
        action: 'pay',
        amount: 2600,
        copia_e_cola: qr.data!.pix.copia_e_cola,
      });
      expect(wrong.status).toBe(400);
      expect(created('inter', 'transfers')).toBe(1);
    });

    it('Inter: the same x-id-idempotente twice makes one payment', async () => {
      const input = { action: 'pay', amount: 990, recipient: '12345678909' };
      const a = await run('inter.pix.out', 'pay', input, 'rota-inter-key');
      const b = await run('inter.pix.out', 'pay', input, 'rota-inter-key');
      expect(b.data!.id).toBe(a.data!.id);
      expect(created('inter', 'transfers')).toBe(1);
    });
  });

  describe('codespar_wallet', () => {
    it('reads the balance and the statement, newest first, after a payment', async () => {
      const before = await run('asaas.wallet.none', 'balance', { action: 'balance' });
      expect(before.data).toEqual({ available_minor: 1_000_000, currency: 'BRL' });
      await run('asaas.pix.out', 'pay', {
        action: 'pay',
        amount: 4990,
        recipient: 'ana@example.com',
        description: 'aluguel',
      });
      const after = await run('asaas.wallet.none', 'balance', { action: 'balance' });
      expect(after.data!.available_minor).toBe(1_000_000 - 4990);

      const statement = await run('asaas.wallet.none', 'statement', { action: 'statement', limit: 5 });
      expect(statement.data!.currency).toBe('BRL');
      expect(statement.data!.entries).toHaveLength(2);
      expect(statement.data!.entries[0]).toMatchObject({
        amount_minor: -4990,
        type: 'transfer',
        balance_after_minor: 1_000_000 - 4990,
      });
      expect(statement.data!.entries[1]).toMatchObject({ amount_minor: 1_000_000 });
      const one = await run('asaas.wallet.none', 'statement', { action: 'statement', limit: 1 });
      expect(one.data!.entries).toHaveLength(1);
      expect(one.data!.has_more).toBe(true);
    });

    it('creates a reusable top-up QR code on the account key, or a single-use one with a fixed amount', async () => {
      const open = await run('asaas.wallet.none', 'receive', { action: 'receive' });
      expect(open.steps.keys).toBeDefined();
      expect(open.data).toMatchObject({ status: 'active', currency: 'BRL', reusable: true });
      expect(open.data!.amount_minor).toBeUndefined();
      expect(open.data!.pix.copia_e_cola).toMatch(/^000201.*br\.gov\.bcb\.pix.*6304[0-9A-F]{4}$/);
      expect(open.data!.pix.copia_e_cola).not.toMatch(/54\d\d\d/);

      const fixed = await run('asaas.wallet.none', 'receive', {
        action: 'receive',
        amount: 15000,
        dynamic: true,
        description: 'recarga',
      });
      expect(fixed.data).toMatchObject({ status: 'active', amount_minor: 15000, reusable: false });
      expect(fixed.data!.pix.copia_e_cola).toContain('5406150.00');
      expect(created('asaas', 'pix_qr_codes')).toBe(2);
    });
  });

  describe('codespar_checkout', () => {
    it('creates a hosted page for the cart, its total exact in minor units', async () => {
      const r = await run('mercadopago.checkout.in', 'create', {
        items: [
          { name: 'Camiseta', quantity: 2, unit_price: 59.9 },
          { name: 'Boné', quantity: 1, unit_price: 35.1 },
        ],
        buyer: { name: 'Ana', email: 'ana@example.com', document: '123.456.789-09' },
        paymentMethod: 'pix',
        metadata: { order: 'A-7' },
      });
      expect(r.status).toBe(201);
      expect(r.data).toMatchObject({ status: 'open', amount_minor: 15490, currency: 'BRL' });
      expect(r.data!.url).toContain(`pref_id=${r.data!.id}`);
      expect(r.body).toMatchObject({
        items: [
          { title: 'Camiseta', quantity: 2, unit_price: 59.9, currency_id: 'BRL' },
          { title: 'Boné', quantity: 1, unit_price: 35.1, currency_id: 'BRL' },
        ],
        payer: { email: 'ana@example.com', identification: { type: 'CPF', number: '12345678909' } },
        metadata: { order: 'A-7' },
      });
      const excluded = (r.body as any).payment_methods.excluded_payment_types.map((t: { id: string }) => t.id);
      expect(excluded).not.toContain('bank_transfer');
      expect(excluded).toContain('credit_card');
      expect(created('mercadopago', 'checkouts')).toBe(1);
    });

    it('charges one line of the given amount when amount is set', async () => {
      const r = await run('mercadopago.checkout.in', 'create', {
        items: [{ name: 'Plano anual' }],
        amount: 1200,
        description: 'Assinatura',
      });
      expect(r.data).toMatchObject({ amount_minor: 120000, currency: 'BRL' });
      expect((r.body as any).items).toEqual([
        expect.objectContaining({ title: 'Assinatura', quantity: 1, unit_price: 1200 }),
      ]);
    });
  });

  describe('codespar_invoice (NFS-e)', () => {
    const issue = {
      action: 'issue',
      type: 'nfse',
      recipient: { name: 'Loja Exemplo Ltda', document: '11.222.333/0001-81', email: 'fiscal@example.com' },
      items: [
        { description: 'Consultoria', quantity: 2, unit_price: 150 },
        { description: 'Suporte', unit_price: 99.9 },
      ],
    };

    it('issues, reads it authorised, and cancels it', async () => {
      const issued = await run('focusnfe.nfse.none', 'issue', issue);
      expect(issued.status).toBe(202);
      expect(issued.body).toMatchObject({ status: 'processando_autorizacao' });
      expect(issued.data).toMatchObject({ type: 'nfse', status: 'issued', number: '1' });
      expect(issued.data!.pdf_url).toMatch(/\.pdf$/);
      expect(created('nfse', 'invoices')).toBe(1);

      const status = await run('focusnfe.nfse.none', 'status', {
        action: 'status',
        type: 'nfse',
        invoice_id: issued.data!.id,
      });
      expect(status.data).toMatchObject({ id: issued.data!.id, status: 'issued', number: '1', type: 'nfse' });
      expect(status.data!.verification_code).toMatch(/^[0-9A-F]{8}$/);

      const amended = await run('focusnfe.nfse.none', 'amend', {
        action: 'amend',
        type: 'nfse',
        invoice_id: issued.data!.id,
        reason: 'Serviço não prestado, emitida por engano',
      });
      expect(amended.data).toMatchObject({ id: issued.data!.id, status: 'canceled', type: 'nfse' });
    });

    it('sends the total of the lines and the recipient, and one ref per call', async () => {
      const a = await run('focusnfe.nfse.none', 'issue', issue, 'rota-nfse-1');
      expect(a.data!.id).toBe('rota-nfse-1');
      const again = await run('focusnfe.nfse.none', 'issue', issue, 'rota-nfse-1');
      expect(again.data!.id).toBe('rota-nfse-1');
      expect(created('nfse', 'invoices')).toBe(1);
      const read = await fetch(`${sandbox.url}/nfse/v2/nfse/rota-nfse-1`, {
        headers: { authorization: `Basic ${Buffer.from('sandbox-nfse-token:').toString('base64')}` },
      });
      expect(((await read.json()) as { valor_servicos: number }).valor_servicos).toBe(399.9);
    });

    it('refuses other document types before anything is sent', async () => {
      await expect(run('focusnfe.nfse.none', 'issue', { ...issue, type: 'nfe' })).rejects.toThrow(/NFS-e/);
      expect(sandbox.control.counters().requests.nfse).toBeUndefined();
    });
  });

  describe('codespar_ship', () => {
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
      number: '20',
      city: 'Rio',
      state: 'RJ',
      postal_code: '20040-002',
    };
    const items = [{ name: 'Livro', weight: 0.8, height: 4, width: 16, length: 23, quantity: 1, unit_price: 59.9 }];

    it('quotes carriers, cheapest first when asked', async () => {
      const r = await run('melhorenvio.label.none', 'quote', {
        action: 'quote',
        service_level: 'cheapest',
        origin,
        destination,
        items,
      });
      const prices = r.data!.quotes.map((q: { price_minor: number }) => q.price_minor);
      expect(prices.length).toBeGreaterThanOrEqual(3);
      expect(prices).toEqual([...prices].sort((x: number, y: number) => x - y));
      expect(r.data!.quotes[0]).toMatchObject({
        service_id: expect.any(String),
        carrier: expect.any(String),
        currency: 'BRL',
        delivery_days: expect.any(Number),
      });
      const fastest = await run('melhorenvio.label.none', 'quote', {
        action: 'quote',
        service_level: 'fastest',
        origin,
        destination,
        items,
      });
      const days = fastest.data!.quotes.map((q: { delivery_days: number }) => q.delivery_days);
      expect(days).toEqual([...days].sort((x: number, y: number) => x - y));
    });

    it('buys a label (cart, paid from the wallet, generated) and tracks it by its code', async () => {
      const label = await run('melhorenvio.label.none', 'label', {
        action: 'label',
        service_level: 'fastest',
        origin,
        destination,
        items,
      });
      expect(label.steps.cart).toBeDefined();
      expect(label.data).toMatchObject({ status: 'generated', service_id: '2', currency: 'BRL' });
      expect(label.data!.tracking_code).toMatch(/^ME[0-9A-F]{10}BR$/);
      expect(label.data!.label_url).toMatch(/\/imprimir\//);
      expect(label.data!.price_minor).toBeGreaterThan(0);
      expect(created('melhorenvio', 'orders')).toBe(1);
      expect(created('melhorenvio', 'purchases')).toBe(1);
      expect(created('melhorenvio', 'labels')).toBe(1);

      const track = await run('melhorenvio.label.none', 'track', {
        action: 'track',
        tracking_code: label.data!.tracking_code,
      });
      expect(track.data).toMatchObject({ tracking_code: label.data!.tracking_code, status: 'generated' });
      expect(track.data!.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'released', 'generated']);

      const unknown = await run('melhorenvio.label.none', 'track', {
        action: 'track',
        tracking_code: 'ME0000000000BR',
      });
      expect(unknown.data).toEqual({ tracking_code: 'ME0000000000BR', status: 'not_found', events: [] });
    });

    it('picks the service a quote named', async () => {
      const label = await run('melhorenvio.label.none', 'label', {
        action: 'label',
        origin,
        destination,
        items,
        metadata: { service_id: '1' },
      });
      expect(label.data!.service_id).toBe('1');
    });
  });

  describe('codespar_notify over WhatsApp', () => {
    it('sends a template with positional values', async () => {
      const r = await run('whatsapp.whatsapp.none', 'send', {
        channel: 'whatsapp',
        to: '+55 11 98765-4321',
        template: 'pedido_enviado',
        variables: { '2': 'ME123BR', '1': 'Ana' },
      });
      expect(r.data).toMatchObject({ status: 'accepted', channel: 'whatsapp', to: '5511987654321' });
      expect(r.data!.id).toMatch(/^wamid\./);
      expect(created('whatsapp', 'messages')).toBe(1);
    });

    it('builds the template parameters the Cloud API expects', async () => {
      const rail = RAILS.find((x) => x.id === 'whatsapp.whatsapp.none')!;
      const body = (input: Record<string, unknown>) =>
        evaluate(rail.actions.send!.request, {
          input,
          action: 'send',
          amount: null,
          idempotency_key: 'k',
          today: '2026-01-01',
          steps: {},
        });
      expect(
        await body({
          channel: 'whatsapp',
          to: '5511987654321',
          template: 't',
          variables: { '2': 'b', '10': 'c', '1': 'a' },
        }),
      ).toMatchObject({
        type: 'template',
        template: {
          name: 't',
          language: { code: 'pt_BR' },
          components: [{ type: 'body', parameters: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] }],
        },
      });
      expect(
        await body({ channel: 'whatsapp', to: '5511987654321', template: 't', variables: { nome: 'Ana' } }),
      ).toMatchObject({
        template: {
          components: [{ type: 'body', parameters: [{ type: 'text', parameter_name: 'nome', text: 'Ana' }] }],
        },
      });
      const plain = (await body({ channel: 'whatsapp', to: '+5511987654321', template: 't' })) as {
        template: Record<string, unknown>;
      };
      expect(plain.template.components).toBeUndefined();
    });

    it('sends free text when no template is named', async () => {
      const r = await run('whatsapp.whatsapp.none', 'send', {
        channel: 'whatsapp',
        to: '5511987654321',
        message: 'Seu pedido saiu para entrega.',
      });
      expect(r.data).toMatchObject({ status: 'accepted', channel: 'whatsapp' });
    });
  });
});
