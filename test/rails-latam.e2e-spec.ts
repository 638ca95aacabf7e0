import { PATH_C_OPERATIONS, type PathCOperation } from '@rota/contracts';
import { ProjectRepository } from '@rota/db';
import { startSandbox, type Sandbox } from '../apps/sandbox/src';
import { ACTION_FOR_OPERATION, carries } from '../apps/router/src/rails/rail';
import { RAILS } from '../apps/router/src/rails/rails';
import { saveConnection, setTestBaseUrl } from './helpers/rails';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(600_000);

const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'] as const;
const NFSE_PASSWORD = 'sandbox-nfse-password';
const ME_REDIRECT = 'https://app.example.com/melhorenvio/callback';

/** The sandbox's documented test credentials, per provider, as a connection stores them. */
const CREDENTIALS: Record<string, Record<string, string>> = {
  asaas: { api_key: 'sandbox-asaas-key' },
  mercadopago: { client_id: 'sandbox-mp-client', client_secret: 'sandbox-mp-secret' },
  inter: { client_id: 'sandbox-inter-client', client_secret: 'sandbox-inter-secret' },
  focusnfe: { username: 'sandbox-nfse-token', password: NFSE_PASSWORD },
  whatsapp: { token: 'sandbox-whatsapp-token' },
  openpay: { username: 'sandbox-openpay-key', password: '' },
  wise: { token: 'sandbox-wise-token' },
  wompi: { private_key: 'sandbox-wompi-private-key' },
  transbank: { api_key_id: 'sandbox-tbk-commerce', api_key_secret: 'sandbox-tbk-secret' },
  culqi: { secret_key: 'sandbox-culqi-secret-key' },
  facturapi: { secret_key: 'sandbox-facturapi-key' },
  envia: { token: 'sandbox-envia-token' },
  zenvia: { api_key: 'sandbox-zenvia-token' },
};

/** The local currency a rail that moves no money is asked about in each country. */
const LOCAL: Record<string, string> = {
  BR: 'BRL',
  MX: 'MXN',
  CO: 'COP',
  CL: 'CLP',
  AR: 'ARS',
  PE: 'PEN',
  EC: 'USD',
  UY: 'UYU',
};

interface Cell {
  operation: PathCOperation;
  currency: string;
  country: string;
}

/** Every operation × currency × country the executable rails declare (`*` read as Brazil and its real). */
function matrix(): Cell[] {
  const cells = new Map<string, Cell>();
  for (const rail of RAILS)
    for (const operation of PATH_C_OPERATIONS) {
      if (!carries(rail, operation)) continue;
      for (const country of rail.countries.includes('*') ? ['BR'] : rail.countries)
        for (const currency of rail.currencies === '*' ? [LOCAL[country] ?? 'USD'] : rail.currencies) {
          // A rail names its countries and currencies separately; a cell is one the rail serves in that country's money or a currency it lists for it.
          if (
            rail.currencies !== '*' &&
            rail.currencies.length > 1 &&
            LOCAL[country] &&
            rail.currencies.includes(LOCAL[country]!) &&
            currency !== LOCAL[country]
          )
            continue;
          cells.set(`${operation}|${currency}|${country}`, { operation, currency, country });
        }
    }
  return [...cells.values()].sort((a, b) =>
    `${a.operation}${a.country}${a.currency}`.localeCompare(`${b.operation}${b.country}${b.currency}`),
  );
}

const BUYER = {
  name: 'Ana Lima Souza',
  document: '529.982.247-25',
  email: 'ana@example.com',
  phone: '+55 11 98765 4321',
};
const CLABE = '002010077777777771';
const RECIPIENT_BY_CURRENCY: Record<string, unknown> = {
  BRL: 'fornecedor@example.com',
  MXN: { clabe: CLABE, name: 'Jorge Ramírez' },
};

/** What a caller adds to path C's args_template for each tool: its `missing` fields and what the rails require. */
function fill(tool: string, cell: Cell): Record<string, unknown> {
  switch (tool) {
    case 'codespar_charge':
      return {
        description: 'Pedido LATAM 1001',
        buyer: BUYER,
        metadata: { return_url: 'https://shop.example.com/return' },
      };
    case 'codespar_pay':
      return { recipient: RECIPIENT_BY_CURRENCY[cell.currency], description: 'Fornecedor' };
    case 'codespar_invoice':
      return {
        recipient: {
          name: 'Comercializadora Exemplo',
          document: '11.222.333/0001-81',
          email: 'fiscal@example.com',
          tax_id: 'CEX010101AB1',
          zip: '64000',
        },
        items: [{ description: 'Consultoria', quantity: 2, unit_price: 150, product_key: '80101500' }],
      };
    case 'codespar_ship':
      return {
        origin: {
          country: cell.country,
          name: 'Loja',
          street: 'Av. Paulista',
          number: 1000,
          city: 'São Paulo',
          state: 'SP',
          postal_code: '01310-100',
        },
        destination: {
          name: 'Ana',
          street: 'Rua B',
          number: 20,
          city: 'Rio de Janeiro',
          state: 'RJ',
          postal_code: '20040-002',
        },
        items: [{ name: 'Livro', weight: 0.8, height: 4, width: 16, length: 23, quantity: 1, unit_price: 59.9 }],
      };
    case 'codespar_notify':
      return { to: '+55 11 98765-4321', template: 'pedido_enviado', variables: { '1': 'Ana', '2': 'ME123BR' } };
    default:
      throw new Error(`no fill for ${tool}`);
  }
}

/**
 * Path C over every operation, currency and country the executable rails
 * declare, in the test environment with nothing connected: whatever it
 * recommends runs through execute in a session over that provider with the
 * sandbox's test credentials. Then failover between two charge rails in
 * Brazil and in Mexico: the first refuses connections, the second charges
 * once.
 */
describe('rails across Latin America: path C recommends only what execute runs', () => {
  let sandbox: Sandbox;
  let stack: Stack;

  const call = (key: string, method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
    http(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...headers }, json });

  async function melhorEnvioRefreshToken(): Promise<string> {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'sandbox-me-client',
      redirect_uri: ME_REDIRECT,
      state: 'latam',
    });
    const authorize = await fetch(`${sandbox.url}/melhorenvio/oauth/authorize?${query.toString()}`, {
      redirect: 'manual',
    });
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
    return ((await token.json()) as { refresh_token: string }).refresh_token;
  }

  async function credentialsFor(provider: string): Promise<Record<string, string>> {
    if (provider === 'melhorenvio')
      return {
        client_id: 'sandbox-me-client',
        client_secret: 'sandbox-me-secret',
        refresh_token: await melhorEnvioRefreshToken(),
      };
    const c = CREDENTIALS[provider];
    if (!c) throw new Error(`no sandbox credentials for ${provider}`);
    return c;
  }

  /** A new project in the test environment, with nothing connected. */
  async function freshProject(): Promise<string> {
    const project = await new ProjectRepository(stack.db.prisma).create({
      orgId: 'org_dev',
      name: `latam ${Math.random()}`,
    });
    return (await stack.key([...SCOPES], { projectId: project.id, environment: 'test' })).key;
  }

  async function connect(key: string, provider: string) {
    const api = (method: string, path: string, json?: unknown) => call(key, method, path, json);
    const r = await saveConnection(api, provider, await credentialsFor(provider));
    expect({ provider, stored: [200, 201].includes(r.status) }).toEqual({ provider, stored: true });
  }

  async function session(key: string, servers: string[]): Promise<string> {
    const s = await call(key, 'POST', '/v1/sessions', { servers });
    expect(s.status).toBe(201);
    return s.json.id as string;
  }

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
        ROTA_PRIVATE_PROVIDERS: [...new Set(RAILS.map((r) => r.provider_id))].join(','),
        ROTA_PROVIDER_TIMEOUT_MS: '2000',
        ROTA_RPC_TIMEOUT_MS: '10000',
        ROTA_LOCAL_EMBEDDER: 'hash',
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
  });

  const cells = matrix();

  it('the matrix covers the acceptance bar', () => {
    const has = (operation: PathCOperation, currency: string, country: string) =>
      cells.some((c) => c.operation === operation && c.currency === currency && c.country === country);
    for (const [op, cur, cty] of [
      ['charge', 'BRL', 'BR'],
      ['charge', 'MXN', 'MX'],
      ['charge', 'COP', 'CO'],
      ['charge', 'ARS', 'AR'],
      ['charge', 'CLP', 'CL'],
      ['charge', 'PEN', 'PE'],
      ['payout', 'BRL', 'BR'],
      ['payout', 'MXN', 'MX'],
      ['issue_invoice', 'BRL', 'BR'],
      ['issue_invoice', 'MXN', 'MX'],
      ['ship', 'BRL', 'BR'],
      ['ship', 'MXN', 'MX'],
      ['send_notification', 'BRL', 'BR'],
    ] as const)
      expect({ op, cur, cty, covered: has(op, cur, cty) }).toEqual({ op, cur, cty, covered: true });
    // At least two executable rails of different providers where the bar asks for two.
    const providers = (operation: PathCOperation, currency: string, country: string, method?: string) =>
      new Set(
        RAILS.filter(
          (r) =>
            carries(r, operation) &&
            (r.currencies === '*' || r.currencies.includes(currency)) &&
            (r.countries.includes('*') || r.countries.includes(country)) &&
            (method === undefined || r.method === method),
        ).map((r) => r.provider_id),
      ).size;
    expect(providers('charge', 'BRL', 'BR')).toBeGreaterThanOrEqual(2);
    expect(providers('charge', 'MXN', 'MX')).toBeGreaterThanOrEqual(2);
    expect(providers('payout', 'BRL', 'BR')).toBeGreaterThanOrEqual(2);
    expect(providers('payout', 'MXN', 'MX')).toBeGreaterThanOrEqual(2);
    expect(providers('send_notification', 'BRL', 'BR', 'whatsapp')).toBeGreaterThanOrEqual(2);
  });

  it.each(cells.map((c) => [`${c.operation} ${c.currency} ${c.country}`, c] as const))(
    '%s: recommended runs',
    async (_name, cell) => {
      const key = await freshProject();
      const intent = {
        operation: cell.operation,
        currency: cell.currency,
        country: cell.country,
        ...(cell.operation.match(/charge|refund|payout/) ? { amount_minor: 250000 } : {}),
      };
      const routed = await call(key, 'POST', '/v1/meta-tools/discover', { intent });
      expect({ status: routed.status, body: routed.status === 200 ? undefined : routed.json }).toEqual({
        status: 200,
        body: undefined,
      });
      const rec = routed.json.recommended;
      // Every offered rail binds the operation's action.
      for (const option of [rec, ...routed.json.alternatives]) {
        const bound = RAILS.some(
          (r) =>
            r.provider_id === option.provider_id &&
            r.method === option.rail &&
            r.tool === option.tool &&
            r.actions[ACTION_FOR_OPERATION[cell.operation]],
        );
        expect({ option: `${option.provider_id}/${option.rail}`, bound }).toEqual({
          option: `${option.provider_id}/${option.rail}`,
          bound: true,
        });
      }

      await connect(key, rec.provider_id);
      const sessionId = await session(key, [rec.provider_id]);
      const { missing: _missing, ...template } = rec.args_template;
      let input: Record<string, unknown> = { ...template, ...fill(rec.tool, cell) };
      if (cell.operation === 'refund') {
        const charged = await call(key, 'POST', `/v1/sessions/${sessionId}/execute`, {
          tool: rec.tool,
          input: { ...input, action: 'charge' },
        });
        expect({ success: charged.json.success, data: charged.json.success ? undefined : charged.json.data }).toEqual({
          success: true,
          data: undefined,
        });
        expect(sandbox.control.markPaid(rec.provider_id, charged.json.data.id)).toBe(true);
        input = { ...input, charge_id: charged.json.data.id };
      }
      const r = await call(key, 'POST', `/v1/sessions/${sessionId}/execute`, { tool: rec.tool, input });
      expect({ success: r.json.success, data: r.json.success ? undefined : r.json.data }).toEqual({
        success: true,
        data: undefined,
      });
      const row = await stack.db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id: r.json.tool_call_id } });
      expect(row.railId).toMatch(new RegExp(`^${rec.provider_id}\\.${rec.rail}\\.`));
    },
  );

  it.each([
    ['BR', 'asaas', 'mercadopago', { method: 'pix', amount: 49.9, currency: 'BRL', country: 'BR' }],
    ['MX', 'openpay', 'mercadopago', { method: 'oxxo', amount: 499, currency: 'MXN', country: 'MX' }],
  ] as const)(
    '%s: fails over to the second charge rail when the first refuses connections, and charges once',
    async (_country, a, b, charge) => {
      const key = await freshProject();
      await connect(key, a);
      await connect(key, b);
      const sessionId = await session(key, [a, b]);
      const input = { ...charge, description: 'Pedido 2001', buyer: BUYER };
      const execute = () => call(key, 'POST', `/v1/sessions/${sessionId}/execute`, { tool: 'codespar_charge', input });
      const rowOf = (id: string) => stack.db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id } });
      // Which one the router ranks first, from a call that goes through.
      const probe = await execute();
      expect(probe.json.success).toBe(true);
      const first = (await rowOf(probe.json.tool_call_id)).railId!;
      const firstProvider = first.split('.')[0]!;
      const secondProvider = firstProvider === a ? b : a;
      const before = sandbox.control.counters();
      const charges = (p: string, c = sandbox.control.counters()) => c.created[p]?.charges ?? 0;
      expect(await setTestBaseUrl(stack, firstProvider, 'http://127.0.0.1:1')).toBe(1);
      try {
        const r = await execute();
        expect({ success: r.json.success, data: r.json.success ? undefined : r.json.data }).toEqual({
          success: true,
          data: undefined,
        });
        const row = await rowOf(r.json.tool_call_id);
        expect(row.railId).toBe(`${secondProvider}.${charge.method}.in`);
        expect(row.attemptLog).toEqual([
          expect.objectContaining({ rail_id: first, outcome: 'not_sent' }),
          expect.objectContaining({ rail_id: `${secondProvider}.${charge.method}.in`, outcome: 'answered' }),
        ]);
        const after = sandbox.control.counters();
        expect(charges(secondProvider, after)).toBe(charges(secondProvider, before) + 1);
        expect(charges(firstProvider, after)).toBe(charges(firstProvider, before));
      } finally {
        expect(await setTestBaseUrl(stack, firstProvider, `${sandbox.url}/${firstProvider}`)).toBe(1);
      }
    },
  );

  it('a provider refusal reaches the agent as provider_refused with a reason and no provider name; a missing document as invalid_args', async () => {
    const key = await freshProject();
    await connect(key, 'asaas');
    const sessionId = await session(key, ['asaas']);
    const execute = (input: Record<string, unknown>) =>
      call(key, 'POST', `/v1/sessions/${sessionId}/execute`, { tool: 'codespar_charge', input });
    const before = sandbox.control.counters().requests_total;
    const missing = await execute({
      method: 'pix',
      amount: 49.9,
      currency: 'BRL',
      description: 'Pedido',
      buyer: { name: 'Ana', email: 'ana@example.com' },
    });
    expect({
      status: missing.status,
      success: missing.json.success,
      code: missing.json.data.code,
      row: missing.json.tool_call_id,
    }).toEqual({
      status: 200,
      success: false,
      code: 'invalid_args',
      row: null,
    });
    expect(missing.json.data.message).toContain('buyer.document');
    expect(missing.json.data.issues[0].path).toEqual(['buyer', 'document']);
    expect(sandbox.control.counters().requests_total).toBe(before);

    const small = await execute({ method: 'pix', amount: 2, currency: 'BRL', description: 'Pedido', buyer: BUYER });
    expect(small.json.success).toBe(false);
    expect(small.json.data).toMatchObject({
      code: 'provider_refused',
      reason: 'amount_below_minimum',
      upstream_status: 400,
    });
    expect(small.json.data.message).toContain('R$ 5,00');
    expect(JSON.stringify(small.json.data)).not.toMatch(/asaas|sandbox-asaas-key|cus_/i);
  });
});
