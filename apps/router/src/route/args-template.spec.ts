import { META_TOOLS, PathCIntent, type JsonSchema, type PathCIntentInput } from '@rota/contracts';
import type { Rail } from '../rails/rail';
import { RAILS } from '../rails/rails';
import { amountFor, buildArgsTemplate } from './args-template';

const rail = (id: string): Rail => RAILS.find((r) => r.id === id)!;
const intent = (i: PathCIntentInput) => PathCIntent.parse(i);

/** Every field of the template is one the tool's schema declares, with a value it accepts. */
function expectAcceptedBy(tool: string, template: Record<string, unknown>) {
  const schema = META_TOOLS.find((t) => t.name === tool)!.inputSchema;
  for (const [field, value] of Object.entries(template)) {
    if (field === 'missing') continue;
    const prop: JsonSchema | undefined = schema.properties[field];
    expect(prop).toBeDefined();
    if (prop!.enum) expect(prop!.enum).toContain(value);
    if (prop!.type === 'integer') expect(Number.isInteger(value)).toBe(true);
    if (prop!.type === 'number' || prop!.type === 'integer') {
      expect(typeof value).toBe('number');
      if (prop!.minimum !== undefined) expect(value as number).toBeGreaterThanOrEqual(prop!.minimum);
    }
    if (prop!.type === 'string') expect(typeof value).toBe('string');
    if (prop!.type === 'object') expect(typeof value).toBe('object');
  }
  // Every field the schema requires is either filled or named in `missing`.
  for (const req of schema.required)
    expect(Object.keys(template).includes(req) || (template['missing'] as string[]).includes(req)).toBe(true);
}

describe('amountFor', () => {
  it('uses the ISO 4217 exponent: BRL has two decimals, CLP none, codespar_pay takes minor units', () => {
    expect(amountFor('codespar_charge', 4990, 'BRL')).toBe(49.9);
    expect(amountFor('codespar_checkout', 4990, 'BRL')).toBe(49.9);
    expect(amountFor('codespar_charge', 4990, 'CLP')).toBe(4990);
    expect(amountFor('codespar_pay', 4990, 'BRL')).toBe(4990);
    expect(amountFor('codespar_pay', 4990, 'CLP')).toBe(4990);
    expect(amountFor('codespar_charge', 1, 'USD')).toBe(0.01);
  });
});

describe('buildArgsTemplate', () => {
  it('codespar_charge for a charge: action, method, amount in major units, currency, country, metadata', () => {
    const t = buildArgsTemplate(
      intent({ operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 4990, metadata: { order: 'A1' } }),
      rail('asaas.pix.in'),
    );
    expect(t).toEqual({
      action: 'charge',
      method: 'pix',
      amount: 49.9,
      currency: 'BRL',
      country: 'BR',
      metadata: { order: 'A1' },
      missing: ['description', 'buyer'],
    });
    expectAcceptedBy('codespar_charge', t);
  });

  it('codespar_charge in CLP keeps whole pesos', () => {
    const t = buildArgsTemplate(
      intent({ operation: 'charge', currency: 'CLP', country: 'CL', amount_minor: 15000 }),
      rail('transbank.card.in'),
    );
    expect(t['amount']).toBe(15000);
    expectAcceptedBy('codespar_charge', t);
  });

  it('codespar_charge for a refund: action refund and charge_id missing', () => {
    const t = buildArgsTemplate(
      intent({ operation: 'refund', currency: 'MXN', country: 'MX', amount_minor: 25050 }),
      rail('conekta.card.in'),
    );
    expect(t).toEqual({
      action: 'refund',
      method: 'card',
      amount: 250.5,
      currency: 'MXN',
      country: 'MX',
      missing: ['charge_id', 'description', 'buyer'],
    });
    expectAcceptedBy('codespar_charge', t);
  });

  it('names the amount as missing rather than dropping it silently', () => {
    const t = buildArgsTemplate(intent({ operation: 'charge', currency: 'BRL', country: 'BR' }), rail('asaas.pix.in'));
    expect(t['amount']).toBeUndefined();
    expect(t.missing).toContain('amount');
    expectAcceptedBy('codespar_charge', t);
  });

  it('codespar_pay: action pay, amount in minor units, no metadata (the tool has no such field)', () => {
    const t = buildArgsTemplate(
      intent({ operation: 'payout', currency: 'MXN', country: 'MX', amount_minor: 300000, metadata: { ref: 'x' } }),
      rail('stp.spei.out'),
    );
    expect(t).toEqual({
      action: 'pay',
      method: 'spei',
      amount: 300000,
      currency: 'MXN',
      country: 'MX',
      missing: ['recipient'],
    });
    expectAcceptedBy('codespar_pay', t);
  });

  it('codespar_pay in CLP', () => {
    const t = buildArgsTemplate(
      intent({ operation: 'payout', currency: 'CLP', country: 'CL', amount_minor: 45000 }),
      rail('wise.wire.out'),
    );
    expect(t['amount']).toBe(45000);
    expectAcceptedBy('codespar_pay', t);
  });

  it('codespar_invoice: action issue with the document type of the rail', () => {
    expect(
      buildArgsTemplate(
        intent({ operation: 'issue_invoice', currency: 'BRL', country: 'BR' }),
        rail('focusnfe.nfse.none'),
      ),
    ).toEqual({
      action: 'issue',
      type: 'nfse',
      missing: ['recipient', 'items'],
    });
    const cfdi = buildArgsTemplate(
      intent({ operation: 'issue_invoice', currency: 'MXN', country: 'MX', amount_minor: 100 }),
      rail('facturapi.cfdi.none'),
    );
    expect(cfdi).toEqual({ action: 'issue', type: 'invoice', missing: ['recipient', 'items'] });
    expectAcceptedBy('codespar_invoice', cfdi);
  });

  it('codespar_notify: the channel of the rail', () => {
    const t = buildArgsTemplate(
      intent({ operation: 'send_notification', currency: 'MXN', country: 'MX' }),
      rail('twilio.whatsapp.none'),
    );
    expect(t).toEqual({ channel: 'whatsapp', missing: ['to', 'message'] });
    expectAcceptedBy('codespar_notify', t);
  });

  it('codespar_ship: action quote, service level from the urgency, metadata', () => {
    const t = buildArgsTemplate(
      intent({ operation: 'ship', currency: 'BRL', country: 'BR', urgency: 'no_rush', metadata: { order: 7 } }),
      rail('correios.label.none'),
    );
    expect(t).toEqual({
      action: 'quote',
      service_level: 'cheapest',
      metadata: { order: 7 },
      missing: ['origin', 'destination', 'items'],
    });
    expectAcceptedBy('codespar_ship', t);
  });

  it('every seed rail yields a template its tool accepts', () => {
    // Path C routes five tools; rails of the others are only run by execute.
    const routed = ['codespar_charge', 'codespar_pay', 'codespar_invoice', 'codespar_notify', 'codespar_ship'];
    for (const r of RAILS.filter((x) => routed.includes(x.tool))) {
      const op =
        r.tool === 'codespar_charge'
          ? 'charge'
          : r.tool === 'codespar_pay'
            ? 'payout'
            : r.tool === 'codespar_invoice'
              ? 'issue_invoice'
              : r.tool === 'codespar_notify'
                ? 'send_notification'
                : 'ship';
      const currency = r.currencies === '*' ? 'USD' : r.currencies[0]!;
      expectAcceptedBy(
        r.tool,
        buildArgsTemplate(
          intent({
            operation: op,
            currency,
            country: 'BR',
            amount_minor: 1234,
            urgency: 'instant',
            metadata: { a: 1 },
          }),
          r,
        ),
      );
    }
  });
});
