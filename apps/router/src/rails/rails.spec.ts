import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsonata from 'jsonata';
import {
  ACTING_META_TOOLS,
  COIN_DECIMALS,
  isIsoCountry,
  isIsoCurrency,
  META_TOOL_ACTIONS,
  META_TOOLS,
  PATH_C_OPERATIONS,
  resultSchema,
} from '@rota/contracts';
import { carries, railCost, TOOL_FOR_OPERATION } from './rail';
import { loadRails, RAILS, RAIL_PROVIDER_IDS } from './rails';

/** The provider ids the demo catalog promises to contain. */
const DEMO_CATALOG_IDS =
  `asaas mercadopago pagarme efi pagseguro iugu stripe adyen ebanx conekta openpay stp wompi epayco payu kushki transbank flow khipu culqi niubiz
focusnfe nuvemfiscal enotas facturama facturapi alegra melhorenvio correios loggi skydropx envia chilexpress zapi twilio sendgrid zenvia gupshup
belvo pluggy inter wise idwall unico truora metamap bitso circle mercadobitcoin bling omie tiny vtex nuvemshop shopify mercadolivre blnk whatsapp pomelo`.split(
    /\s+/,
  );

const METHOD_FIELD: Record<string, string | undefined> = {
  codespar_charge: 'method',
  codespar_pay: 'method',
  codespar_notify: 'channel',
};

describe('seed rails', () => {
  it('have unique ids and name only providers of the demo catalog', () => {
    expect(new Set(RAILS.map((r) => r.id)).size).toBe(RAILS.length);
    for (const id of RAIL_PROVIDER_IDS) expect(DEMO_CATALOG_IDS).toContain(id);
  });

  it('match the demo catalog file when it is present', () => {
    const file = join(__dirname, '../../../../packages/catalog/data/demo-catalog.json');
    if (!existsSync(file)) return; // written by the catalog work; the list above is its contract
    const text = readFileSync(file, 'utf8');
    for (const id of RAIL_PROVIDER_IDS) expect(text).toContain(`"${id}"`);
  });

  it('bind every action of every acting meta-tool, charge and pay on at least two Brazilian rails', () => {
    for (const tool of ACTING_META_TOOLS)
      for (const action of META_TOOL_ACTIONS[tool] as readonly string[]) {
        const bound = RAILS.filter((r) => r.tool === tool && r.actions[action]);
        expect({ tool, action, bound: bound.length > 0 }).toEqual({ tool, action, bound: true });
      }
    for (const [tool, action] of [
      ['codespar_charge', 'charge'],
      ['codespar_pay', 'pay'],
    ] as const) {
      const providers = new Set(
        RAILS.filter((r) => r.tool === tool && r.actions[action] && r.countries.includes('BR')).map(
          (r) => r.provider_id,
        ),
      );
      expect(providers.size).toBeGreaterThanOrEqual(2);
    }
  });

  it('call only demo catalog tools that say how to reach them, and say which API they model', () => {
    const file = join(__dirname, '../../../../packages/catalog/data/demo-catalog.json');
    const catalog = JSON.parse(readFileSync(file, 'utf8')) as {
      servers: Array<{ id: string; tools: Array<{ name: string; http_method?: string; endpoint_template?: string }> }>;
    };
    const servers = new Map(catalog.servers.map((s) => [s.id, s]));
    for (const rail of RAILS) {
      const actions = Object.entries(rail.actions);
      if (actions.length === 0) continue;
      expect({ rail: rail.id, models: typeof rail.models }).toEqual({ rail: rail.id, models: 'string' });
      const server = servers.get(rail.provider_id);
      expect({ rail: rail.id, inCatalog: Boolean(server) }).toEqual({ rail: rail.id, inCatalog: true });
      for (const [action, b] of actions)
        for (const name of [
          b.catalog_tool,
          ...b.before.map((st) => st.catalog_tool),
          ...b.after.map((st) => st.catalog_tool),
        ]) {
          const tool = server!.tools.find((t) => t.name === name);
          expect({
            rail: rail.id,
            action,
            name,
            callable: Boolean(tool?.http_method && tool.endpoint_template),
          }).toEqual({
            rail: rail.id,
            action,
            name,
            callable: true,
          });
        }
    }
  });

  it('declare lookups that read through a GET catalog tool taking the reference they send, and find the call in its answer', async () => {
    const file = join(__dirname, '../../../../packages/catalog/data/demo-catalog.json');
    const catalog = JSON.parse(readFileSync(file, 'utf8')) as {
      servers: Array<{
        id: string;
        tools: Array<{
          name: string;
          http_method?: string;
          endpoint_template?: string;
          parameters?: { query?: string[] };
        }>;
      }>;
    };
    let declared = 0;
    for (const rail of RAILS)
      for (const [action, b] of Object.entries(rail.actions)) {
        if (!b.lookup) continue;
        declared++;
        const tool = catalog.servers
          .find((s) => s.id === rail.provider_id)
          ?.tools.find((t) => t.name === b.lookup!.catalog_tool);
        expect({ rail: rail.id, action, method: tool?.http_method }).toEqual({ rail: rail.id, action, method: 'GET' });
        const input = (await jsonata(b.lookup.request).evaluate({
          idempotency_key: 'rota-k1',
          input: {},
          action,
        })) as Record<string, unknown>;
        // Every field the lookup sends is a query parameter of the tool or a placeholder of its path.
        const pathParams = [...(tool?.endpoint_template ?? '').matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        for (const name of Object.keys(input))
          expect([...(tool?.parameters?.query ?? []), ...pathParams]).toContain(name);
        // An external reference lookup asks for exactly what the binding's request sets from the idempotency key.
        if (b.lookup.by === 'external_reference') expect(Object.values(input)).toContain('rota-k1');
        const made = { id: 123, external_reference: 'rota-k1', status: 'pending' };
        // Search answers come as a bare list (Openpay) or a list under `results` / `data` (Mercado Pago and others).
        const shapes = (items: unknown[]) => [items, { results: items }, { data: items }];
        const findIn = async (body: unknown) =>
          (await jsonata(b.lookup!.found).evaluate({ response: { status: 200, body }, input: {}, action })) ?? null;
        const found = await Promise.all(shapes([made]).map(findIn));
        expect({ rail: rail.id, found: found.some((f) => JSON.stringify(f) === JSON.stringify(made)) }).toEqual({
          rail: rail.id,
          found: true,
        });
        const none = await Promise.all(shapes([]).map(findIn));
        expect({ rail: rail.id, none: none.filter((f) => f !== null) }).toEqual({ rail: rail.id, none: [] });
      }
    expect(declared).toBeGreaterThan(0);
  });

  it('use real ISO codes and price every currency they accept', () => {
    for (const r of RAILS) {
      // Crypto rails move coins, named by their ticker.
      const known = (c: string) => isIsoCurrency(c) || (r.tool === 'codespar_crypto_pay' && c in COIN_DECIMALS);
      for (const c of r.countries) expect(c === '*' || isIsoCountry(c)).toBe(true);
      if (r.currencies !== '*') {
        for (const c of r.currencies) {
          expect(known(c)).toBe(true);
          expect(r.cost.fixed_minor[c]).toEqual(expect.any(Number));
        }
      }
      for (const [c, v] of Object.entries(r.cost.fixed_minor)) {
        expect(known(c)).toBe(true);
        expect(Number.isInteger(v) && v >= 0).toBe(true);
      }
      expect(r.cost.bps).toBeGreaterThanOrEqual(0);
      expect(r.recipient_kinds.length).toBeGreaterThan(0);
    }
  });

  it('only use methods their tool schema accepts', () => {
    for (const r of RAILS) {
      const field = METHOD_FIELD[r.tool];
      if (!field) continue;
      const schema = META_TOOLS.find((t) => t.name === r.tool)!.inputSchema.properties[field]!;
      expect(schema.enum).toContain(r.method);
    }
  });

  it('move money the way their tool does', () => {
    for (const r of RAILS) {
      const money = META_TOOLS.find((t) => t.name === r.tool)!.money;
      expect(r.direction).toBe(money === 'in' ? 'in' : money === 'out' ? 'out' : 'none');
      if (r.direction !== 'in') expect(r.refunds).toBe(false);
    }
  });

  it('carry every operation somewhere', () => {
    for (const op of PATH_C_OPERATIONS)
      expect(RAILS.some((r) => carries(r, op) && r.tool === TOOL_FOR_OPERATION[op])).toBe(true);
  });

  it('cost the fixed part plus basis points, rounded up', () => {
    const card = RAILS.find((r) => r.id === 'asaas.card.in')!;
    expect(railCost(card, 'BRL', 4990)).toEqual({
      cost_minor: 49 + Math.ceil((4990 * 299) / 10000),
      fixed_minor: 49,
      variable_minor: 150,
      fixed_known: true,
    });
    expect(railCost(card, 'BRL', undefined).cost_minor).toBe(49);
    expect(railCost(card, 'USD', 100).fixed_known).toBe(false);
  });

  it('accept the example rail of docs/rails.md, whose mappings give a valid result', async () => {
    const doc = readFileSync(join(__dirname, '../../../../docs/rails.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Adding a rail'));
    const example = /```json\n([\s\S]*?)```/.exec(section)![1]!;
    const dir = mkdtempSync(join(tmpdir(), 'rota-rails-'));
    try {
      writeFileSync(join(dir, 'acme.json'), example);
      const [rail] = loadRails(dir);
      expect(rail).toMatchObject({ id: 'acme.pix.out', tool: 'codespar_pay' });
      const pay = rail!.actions.pay!;
      const amount = { minor: '4990', major: '49.90', value: 49.9, currency: 'BRL', exponent: 2 };
      expect(
        await jsonata(pay.request).evaluate({ input: { recipient: 'ana@example.com' }, amount, idempotency_key: 'k1' }),
      ).toEqual({
        amount_cents: 4990,
        key: 'ana@example.com',
        reference: 'k1',
      });
      const result = await jsonata(pay.result).evaluate({
        response: { status: 201, body: { id: 'p1', state: 'PENDING', amount_cents: 4990 } },
      });
      expect(resultSchema('codespar_pay', 'pay')!.safeParse(result).success).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
