import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsonata from 'jsonata';
import {
  fromMinorAmount,
  isAmountProblem,
  parseMajorAmount,
  resultSchema,
  type ExactAmount,
  type RailBinding,
} from '@rota/contracts';
import { DEFAULT_RAILS_DIR, loadRails } from './rails';

/**
 * The Latin American rails beyond Brazil's first ones (Mexico's SPEI, OXXO
 * and CFDI, Colombia, Chile, Peru, the hosted Mercado Pago page, Envia and
 * Zenvia), one table row per case, each run end to end against the
 * in-process sandbox the way the session service runs a rail: requirements,
 * before-steps, the main call built by the adapter layer's builder from the
 * demo catalog tool, and the answer mapped into the meta-tool's result
 * schema. Refusals come back in the provider's own error shape.
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
interface Sandbox {
  url: string;
  control: {
    counters(): { created: Record<string, Record<string, number>>; requests: Record<string, Record<string, number>> };
    reset(): void;
  };
  close(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const providers = require('@rota/providers') as Providers;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sandboxModule = require(join(__dirname, '../../../sandbox/src')) as {
  startSandbox(o: { port: number }): Promise<Sandbox>;
};

interface CatalogServer {
  id: string;
  base_urls: { test: string };
  http: { auth: Record<string, unknown> & { type: string }; idempotency_header?: string } | null;
  tools: Array<{ name: string; http_method: string; endpoint_template: string; parameters: unknown }>;
}

const CATALOG_TEXT = readFileSync(join(__dirname, '../../../../packages/catalog/data/demo-catalog.json'), 'utf8');
const RAILS = loadRails(DEFAULT_RAILS_DIR);

/** The sandbox's documented test credentials, as a connection stores them. */
const CREDENTIALS: Record<string, Record<string, string>> = {
  openpay: { username: 'sandbox-openpay-key', password: '' },
  wise: { token: 'sandbox-wise-token' },
  wompi: { private_key: 'sandbox-wompi-private-key' },
  transbank: { api_key_id: 'sandbox-tbk-commerce', api_key_secret: 'sandbox-tbk-secret' },
  culqi: { secret_key: 'sandbox-culqi-secret-key' },
  facturapi: { secret_key: 'sandbox-facturapi-key' },
  envia: { token: 'sandbox-envia-token' },
  zenvia: { api_key: 'sandbox-zenvia-token' },
  mercadopago: { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' },
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

async function authorise(server: CatalogServer, req: ProviderRequest): Promise<ProviderRequest> {
  const auth = server.http!.auth;
  const cred = CREDENTIALS[server.id]!;
  const headers = { ...req.headers };
  switch (auth.type) {
    case 'api_key':
      headers[String(auth.name).toLowerCase()] = cred.api_key!;
      break;
    case 'bearer':
      headers.authorization = `Bearer ${cred[String(auth.credential ?? 'token')]}`;
      break;
    case 'basic':
      headers.authorization = `Basic ${Buffer.from(`${cred.username}:${cred.password}`).toString('base64')}`;
      break;
    case 'two_header':
      for (const h of auth.headers as Array<{ name: string; credential: string }>)
        headers[h.name.toLowerCase()] = cred[h.credential]!;
      break;
    case 'oauth2': {
      let token = tokens.get(server.id);
      if (!token) {
        const form = new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: cred.client_id!,
          client_secret: cred.client_secret!,
        });
        const r = await fetch(`${server.base_urls.test}${String(auth.token_url)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
        });
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
  const out: unknown = await jsonata(expression).evaluate(context);
  if (out === undefined) throw new Error('the mapping produced nothing');
  return JSON.parse(JSON.stringify(out)) as unknown;
}

async function send(providerId: string, toolName: string, input: Record<string, unknown>, key: string) {
  const server = servers.get(providerId)!;
  const tool = server.tools.find((t) => t.name === toolName);
  if (!tool) throw new Error(`${providerId}/${toolName} is not in the demo catalog`);
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
  const req = await authorise(server, { ...built, headers });
  const res = await fetch(req.url, {
    method: req.method,
    headers: req.headers,
    body: req.body,
    signal: AbortSignal.timeout(5000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

/** The session service's UUID of an idempotency key (Wise's customerTransactionId). */
function uuidFromKey(key: string): string {
  const h = createHash('sha256').update(key).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function valueAt(input: Record<string, unknown>, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined),
      input,
    );
}

interface Run {
  status: number;
  body: any;
  sent: Record<string, any>;
  data?: Record<string, any>;
  /** The requirement that refused the call before anything was sent. */
  missing?: string;
}

let keys = 0;

async function run(
  railId: string,
  action: string,
  input: Record<string, any>,
  key = `rota-c-${++keys}-${Date.now()}`,
): Promise<Run> {
  const rail = RAILS.find((r) => r.id === railId)!;
  const binding: RailBinding = rail.actions[action]!;
  expect(binding).toBeDefined();
  for (const r of binding.requires) {
    const paths = r.any_of?.length ? r.any_of : [r.field];
    if (!paths.some((p) => ['string', 'number'].includes(typeof valueAt(input, p))))
      return { status: 0, body: null, sent: {}, missing: r.field };
  }
  const currency = typeof input.currency === 'string' ? input.currency : 'BRL';
  let amount: ExactAmount | null = null;
  if (rail.tool === 'codespar_charge') amount = parseMajorAmount(input.amount, currency) as ExactAmount;
  if (rail.tool === 'codespar_pay') amount = fromMinorAmount(input.amount, currency) as ExactAmount;
  if (amount && isAmountProblem(amount)) throw new Error('bad amount');
  const steps: Record<string, { status: number; body: unknown }> = {};
  const context = {
    input,
    action,
    amount,
    idempotency_key: key,
    idempotency_uuid: uuidFromKey(key),
    today: new Date().toISOString().slice(0, 10),
    steps,
  };
  for (const step of binding.before) {
    const r = await send(
      rail.provider_id,
      step.catalog_tool,
      (await evaluate(step.request, context)) as Record<string, unknown>,
      `${key}-${step.name}`,
    );
    if (r.status >= 300) return { ...r, sent: {} };
    steps[step.name] = r;
  }
  const sent = (await evaluate(binding.request, context)) as Record<string, any>;
  const response = await send(rail.provider_id, binding.catalog_tool, sent, key);
  if (response.status >= 300) return { ...response, sent };
  const mapped = await evaluate(binding.result, { response, steps, input, action, amount });
  const checked = resultSchema(rail.tool, action)!.safeParse(mapped);
  if (!checked.success)
    throw new Error(`${railId} ${action}: ${JSON.stringify(checked.error.issues)} in ${JSON.stringify(mapped)}`);
  return { ...response, sent, data: checked.data as Record<string, any> };
}

const created = (provider: string, what: string) => sandbox.control.counters().created[provider]?.[what] ?? 0;

const MX_BUYER = { name: 'Lucía Hernández', email: 'lucia@example.mx', phone: '+52 55 1234 5678' };
const PE_BUYER = { name: 'Rosa Quispe Mamani', email: 'rosa@example.pe', phone: '+51 987 654 321' };
const CLABE = '002010077777777771';
const PAYEE = { clabe: CLABE, name: 'Jorge Ramírez' };

const NEW_RAILS = [
  'mercadopago.wallet.in',
  'mercadopago.oxxo.in',
  'openpay.spei.in',
  'openpay.oxxo.in',
  'openpay.spei.out',
  'wise.spei.out',
  'wompi.card.in',
  'transbank.card.in',
  'culqi.wallet.in',
  'facturapi.cfdi.none',
  'envia.label.none',
  'zenvia.whatsapp.none',
];

describe('rail bindings (part C) against the sandbox', () => {
  it('name catalog tools served by the sandbox, with a method and an endpoint, for every call they make', () => {
    for (const id of NEW_RAILS) {
      const rail = RAILS.find((r) => r.id === id)!;
      expect({ id, models: typeof rail.models }).toEqual({ id, models: 'string' });
      const server = servers.get(rail.provider_id)!;
      expect({ id, sandbox: server.base_urls.test.startsWith(sandbox.url) }).toEqual({ id, sandbox: true });
      for (const binding of Object.values(rail.actions))
        for (const name of [
          binding.catalog_tool,
          ...binding.before.map((s) => s.catalog_tool),
          ...(binding.lookup ? [binding.lookup.catalog_tool] : []),
        ])
          expect({ id, name, found: Boolean(server.tools.find((t) => t.name === name)?.endpoint_template) }).toEqual({
            id,
            name,
            found: true,
          });
    }
  });

  type Row = [string, string, string, Record<string, any>, Record<string, any>, [string, string]];
  const ok: Row[] = [
    [
      'a Mercado Pago hosted page in pesos argentinos',
      'mercadopago.wallet.in',
      'charge',
      {
        amount: 15000,
        currency: 'ARS',
        method: 'wallet',
        description: 'Pedido 77',
        buyer: { name: 'Ana', email: 'ana@example.ar' },
      },
      {
        status: 'pending',
        amount_minor: 1500000,
        currency: 'ARS',
        method: 'wallet',
        payment_url: expect.stringContaining('http'),
      },
      ['mercadopago', 'preferences'],
    ],
    [
      'a Mercado Pago OXXO voucher',
      'mercadopago.oxxo.in',
      'charge',
      { amount: 350, currency: 'MXN', method: 'oxxo', description: 'Pedido 79', buyer: MX_BUYER },
      {
        status: 'pending',
        amount_minor: 35000,
        currency: 'MXN',
        method: 'oxxo',
        voucher: { reference: expect.stringMatching(/^\d+$/) },
      },
      ['mercadopago', 'charges'],
    ],
    [
      'an Openpay SPEI charge with its CLABE',
      'openpay.spei.in',
      'charge',
      { amount: 1250.5, currency: 'MXN', method: 'spei', description: 'Pedido 88', buyer: MX_BUYER },
      {
        status: 'pending',
        amount_minor: 125050,
        currency: 'MXN',
        method: 'spei',
        spei: expect.objectContaining({ clabe: expect.stringMatching(/^\d{18}$/) }),
      },
      ['openpay', 'charges'],
    ],
    [
      'an Openpay OXXO voucher',
      'openpay.oxxo.in',
      'charge',
      { amount: 499, currency: 'MXN', method: 'oxxo', description: 'Pedido 89', buyer: MX_BUYER },
      {
        status: 'pending',
        amount_minor: 49900,
        method: 'oxxo',
        voucher: { reference: expect.any(String) },
        payment_url: expect.any(String),
      },
      ['openpay', 'charges'],
    ],
    [
      'an Openpay SPEI payout',
      'openpay.spei.out',
      'pay',
      { action: 'pay', amount: 250000, currency: 'MXN', method: 'spei', recipient: PAYEE, description: 'Proveedor' },
      { status: 'processing', amount_minor: 250000, currency: 'MXN', method: 'spei' },
      ['openpay', 'transfers'],
    ],
    [
      'a Wise SPEI payout: quote, recipient, transfer, funding',
      'wise.spei.out',
      'pay',
      { action: 'pay', amount: 100000, currency: 'MXN', method: 'spei', recipient: PAYEE, description: 'Factura 12' },
      { status: 'processing', amount_minor: 100000, currency: 'MXN', method: 'spei' },
      ['wise', 'transfers'],
    ],
    [
      'a Wompi payment link in COP',
      'wompi.card.in',
      'charge',
      { amount: 89900, currency: 'COP', method: 'card', description: 'Pedido 90', buyer: { email: 'c@example.co' } },
      {
        status: 'pending',
        amount_minor: 8990000,
        currency: 'COP',
        payment_url: expect.stringMatching(/^https:\/\/checkout\.wompi\.co\/l\//),
      },
      ['wompi', 'charges'],
    ],
    [
      'a Webpay Plus transaction in whole pesos',
      'transbank.card.in',
      'charge',
      {
        amount: 15990,
        currency: 'CLP',
        method: 'card',
        description: 'Pedido 91',
        buyer: {},
        metadata: { return_url: 'https://shop.example.cl/vuelta' },
      },
      { status: 'pending', amount_minor: 15990, currency: 'CLP', payment_url: expect.stringContaining('token_ws=') },
      ['transbank', 'charges'],
    ],
    [
      'a Culqi order payable by Yape or cash code',
      'culqi.wallet.in',
      'charge',
      { amount: 120, currency: 'PEN', method: 'wallet', description: 'Pedido 92', buyer: PE_BUYER },
      {
        status: 'pending',
        amount_minor: 12000,
        currency: 'PEN',
        method: 'wallet',
        cash_code: expect.stringMatching(/^\d{8}$/),
      },
      ['culqi', 'charges'],
    ],
    [
      'a CFDI 4.0 from Facturapi',
      'facturapi.cfdi.none',
      'issue',
      {
        action: 'issue',
        type: 'invoice',
        recipient: { name: 'Comercializadora del Norte', tax_id: 'cno010101ab1', zip: '64000' },
        items: [{ description: 'Consultoría', unit_price: 1160, quantity: 2, product_key: '80101500' }],
      },
      { status: 'issued', type: 'cfdi', number: 'A1', uuid: expect.any(String) },
      ['facturapi', 'invoices'],
    ],
    [
      'an Envia quote from Monterrey, cheapest first',
      'envia.label.none',
      'quote',
      {
        action: 'quote',
        service_level: 'cheapest',
        origin: { country: 'MX', postal_code: '64000' },
        destination: { postal_code: '06600' },
        items: [{ weight: 2.5 }],
      },
      {
        quotes: [
          expect.objectContaining({ currency: 'MXN', carrier: 'ESTAFETA', service: 'Terrestre' }),
          expect.any(Object),
        ],
      },
      ['envia', 'none'],
    ],
    [
      'a Zenvia WhatsApp text',
      'zenvia.whatsapp.none',
      'send',
      { channel: 'whatsapp', to: '+55 11 98765-4321', message: 'Seu pedido saiu para entrega' },
      { status: 'sent', channel: 'whatsapp', id: expect.any(String) },
      ['zenvia', 'messages'],
    ],
  ];

  it.each(ok)('%s', async (_name, railId, action, input, expected, [provider, resource]) => {
    const r = await run(railId, action, input);
    expect({ status: r.status < 300 ? 'ok' : r.body, data: r.data }).toEqual({
      status: 'ok',
      data: expect.objectContaining(expected),
    });
    // The normalised answer names no provider (a hosted page's address lives on the provider's domain).
    const { payment_url: _page, ...neutral } = r.data!;
    expect(JSON.stringify(neutral)).not.toMatch(new RegExp(provider, 'i'));
    if (resource !== 'none' && resource !== 'preferences') expect(created(provider, resource)).toBe(1);
  });

  type Refusal = [string, string, string, Record<string, any>, number, RegExp];
  const refused: Refusal[] = [
    [
      'Openpay: below the minimum',
      'openpay.spei.in',
      'charge',
      { amount: 0.5, currency: 'MXN', description: 'x', buyer: MX_BUYER },
      400,
      /minimum/,
    ],
    [
      'Openpay: a bad CLABE',
      'openpay.spei.out',
      'pay',
      { action: 'pay', amount: 1000, currency: 'MXN', recipient: { clabe: '123', name: 'A B' } },
      400,
      /CLABE/,
    ],
    [
      'Wompi: below the minimum',
      'wompi.card.in',
      'charge',
      { amount: 900, currency: 'COP', description: 'x', buyer: {} },
      422,
      /mínimo/,
    ],
    [
      'Culqi: above the maximum',
      'culqi.wallet.in',
      'charge',
      { amount: 40000, currency: 'PEN', description: 'Pedido', buyer: PE_BUYER },
      400,
      /máximo/,
    ],
    [
      'Facturapi: a bad RFC',
      'facturapi.cfdi.none',
      'issue',
      {
        type: 'invoice',
        recipient: { name: 'X', tax_id: 'NOPE', zip: '64000' },
        items: [{ description: 'a', unit_price: 1 }],
      },
      400,
      /RFC/,
    ],
    [
      'Zenvia: a bad number',
      'zenvia.whatsapp.none',
      'send',
      { channel: 'whatsapp', to: '123', message: 'oi' },
      400,
      /phone number/,
    ],
  ];

  it.each(refused)(
    '%s: refused in the provider wire format, nothing created',
    async (_name, railId, action, input, status, words) => {
      const r = await run(railId, action, input);
      expect(r.status).toBe(status);
      expect(JSON.stringify(r.body)).toMatch(words);
      const provider = railId.split('.')[0]!;
      expect(Object.values(sandbox.control.counters().created[provider] ?? {}).reduce((a, b) => a + b, 0)).toBe(0);
    },
  );

  it.each([
    [
      'openpay.spei.in',
      'charge',
      { amount: 10, currency: 'MXN', description: 'x', buyer: { email: 'a@b.mx' } },
      'buyer.name',
    ],
    [
      'culqi.wallet.in',
      'charge',
      { amount: 10, currency: 'PEN', description: 'xxxxx', buyer: { name: 'A B', email: 'a@b.pe' } },
      'buyer.phone',
    ],
    [
      'transbank.card.in',
      'charge',
      { amount: 1000, currency: 'CLP', description: 'x', buyer: {} },
      'metadata.return_url',
    ],
    [
      'facturapi.cfdi.none',
      'issue',
      { type: 'invoice', recipient: { name: 'X', zip: '64000' }, items: [] },
      'recipient.tax_id',
    ],
    ['wise.spei.out', 'pay', { action: 'pay', amount: 100, currency: 'MXN', recipient: CLABE }, 'recipient.name'],
    [
      'asaas.pix.in',
      'charge',
      { amount: 10, currency: 'BRL', description: 'x', buyer: { name: 'Maria' } },
      'buyer.document',
    ],
  ])(
    '%s declares what it needs beyond the schema: %s without %s is refused before sending',
    async (railId, action, input, field) => {
      const r = await run(railId, action, input);
      expect(r.missing).toBe(field);
      expect(sandbox.control.counters().requests[railId.split('.')[0]!]).toBeUndefined();
    },
  );

  it('Openpay: a repeated order_id is refused as already processed and charges once; the lookup by order_id finds the first', async () => {
    const input = { amount: 300, currency: 'MXN', method: 'spei', description: 'Pedido 93', buyer: MX_BUYER };
    const first = await run('openpay.spei.in', 'charge', input, 'rota-openpay-same');
    const again = await run('openpay.spei.in', 'charge', input, 'rota-openpay-same');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error_code: 1006 });
    expect(created('openpay', 'charges')).toBe(1);
    const lookup = RAILS.find((r) => r.id === 'openpay.spei.in')!.actions.charge!.lookup!;
    const ctx = { idempotency_key: 'rota-openpay-same', input, action: 'charge' };
    const found = await send(
      'openpay',
      lookup.catalog_tool,
      (await evaluate(lookup.request, ctx)) as Record<string, unknown>,
      'x',
    );
    expect(await evaluate(lookup.found, { response: found, input, action: 'charge' })).toMatchObject({
      id: first.data!.id,
      order_id: 'rota-openpay-same',
    });
    const none = await send(
      'openpay',
      lookup.catalog_tool,
      (await evaluate(lookup.request, { ...ctx, idempotency_key: 'rota-never' })) as Record<string, unknown>,
      'x',
    );
    await expect(evaluate(lookup.found, { response: none })).rejects.toThrow(/nothing/);
  });

  it('Mercado Pago OXXO: the lookup by external reference finds the voucher a lost answer made', async () => {
    const input = { amount: 200, currency: 'MXN', method: 'oxxo', description: 'Pedido 94', buyer: MX_BUYER };
    const made = await run('mercadopago.oxxo.in', 'charge', input, 'rota-mp-oxxo');
    const lookup = RAILS.find((r) => r.id === 'mercadopago.oxxo.in')!.actions.charge!.lookup!;
    const found = await send(
      'mercadopago',
      lookup.catalog_tool,
      (await evaluate(lookup.request, { idempotency_key: 'rota-mp-oxxo' })) as Record<string, unknown>,
      'x',
    );
    expect(await evaluate(lookup.found, { response: found })).toMatchObject({
      id: Number(made.data!.id),
      external_reference: 'rota-mp-oxxo',
    });
  });

  it('Wise: the same key makes one transfer and funds it once', async () => {
    const input = { action: 'pay', amount: 50000, currency: 'MXN', recipient: PAYEE };
    const first = await run('wise.spei.out', 'pay', input, 'rota-wise-same');
    const again = await run('wise.spei.out', 'pay', input, 'rota-wise-same');
    expect(first.data).toMatchObject({ status: 'processing' });
    expect(again.status).toBe(409);
    expect(created('wise', 'transfers')).toBe(1);
  });
});
