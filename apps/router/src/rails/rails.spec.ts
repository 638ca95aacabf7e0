import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isIsoCountry, isIsoCurrency, META_TOOLS, PATH_C_OPERATIONS } from '@rota/contracts';
import { carries, railCost, TOOL_FOR_OPERATION } from './rail';
import { RAILS, RAIL_PROVIDER_IDS } from './rails';

/** The provider ids the demo catalog promises to contain. */
const DEMO_CATALOG_IDS =
  `asaas mercadopago pagarme efi pagseguro iugu stripe adyen ebanx conekta openpay stp wompi epayco payu kushki transbank flow khipu culqi niubiz
focusnfe nuvemfiscal enotas facturama facturapi alegra melhorenvio correios loggi skydropx envia chilexpress zapi twilio sendgrid zenvia gupshup
belvo pluggy inter wise idwall unico truora metamap bitso circle mercadobitcoin bling omie tiny vtex nuvemshop shopify mercadolivre blnk`.split(/\s+/);

const METHOD_FIELD: Record<string, string | undefined> = { codespar_charge: 'method', codespar_pay: 'method', codespar_notify: 'channel' };

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

  it('use real ISO codes and price every currency they accept', () => {
    for (const r of RAILS) {
      for (const c of r.countries) expect(c === '*' || isIsoCountry(c)).toBe(true);
      if (r.currencies !== '*') {
        for (const c of r.currencies) {
          expect(isIsoCurrency(c)).toBe(true);
          expect(r.cost.fixed_minor[c]).toEqual(expect.any(Number));
        }
      }
      for (const [c, v] of Object.entries(r.cost.fixed_minor)) {
        expect(isIsoCurrency(c)).toBe(true);
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
    for (const op of PATH_C_OPERATIONS) expect(RAILS.some((r) => carries(r, op) && r.tool === TOOL_FOR_OPERATION[op])).toBe(true);
  });

  it('cost the fixed part plus basis points, rounded up', () => {
    const card = RAILS.find((r) => r.id === 'asaas.card.in')!;
    expect(railCost(card, 'BRL', 4990)).toEqual({ cost_minor: 49 + Math.ceil((4990 * 299) / 10000), fixed_minor: 49, variable_minor: 150, fixed_known: true });
    expect(railCost(card, 'BRL', undefined).cost_minor).toBe(49);
    expect(railCost(card, 'USD', 100).fixed_known).toBe(false);
  });
});
