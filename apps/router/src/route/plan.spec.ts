import { PathCIntent, type PathCIntentInput } from '@rota/contracts';
import type { ConnectionState, EligibilitySet } from '../eligibility/eligibility.service';
import { RAILS, RAIL_PROVIDER_IDS } from '../rails/rails';
import { planRoutes } from './plan';

const intent = (i: PathCIntentInput) => PathCIntent.parse(i);
const set = (
  providers: Record<string, ConnectionState>,
  catalog: readonly string[] = RAIL_PROVIDER_IDS,
): EligibilitySet => ({
  org_id: 'o',
  project_id: 'p',
  environment: 'live',
  providers,
  catalog: [...catalog],
  refreshed_at: new Date(0).toISOString(),
});

describe('planRoutes', () => {
  it('routes over the eligible rails that carry the operation in that currency and country', () => {
    const plan = planRoutes(
      intent({ operation: 'charge', currency: 'BRL', country: 'BR' }),
      set({ asaas: 'connected', stp: 'connected' }),
    );
    expect(plan.kind).toBe('routes');
    // asaas.card.in is in the rail files for planning but binds no charge: it is never offered.
    if (plan.kind === 'routes')
      expect(plan.routes.map((r) => r.rail.id).sort()).toEqual(['asaas.boleto.in', 'asaas.pix.in']);
  });

  it('never routes over, offers or names a rail that cannot run the operation', () => {
    // Every Brazilian charge rail's provider connected: only the bound ones come back.
    const providers = Object.fromEntries(RAILS.map((r) => [r.provider_id, 'connected' as const]));
    const plan = planRoutes(intent({ operation: 'charge', currency: 'BRL', country: 'BR' }), set(providers));
    if (plan.kind !== 'routes') throw new Error(plan.kind);
    for (const r of plan.routes)
      expect({ id: r.rail.id, bound: r.rail.actions.charge !== undefined }).toEqual({ id: r.rail.id, bound: true });
    // Nothing connected: the providers named as the fix all bind a charge in Brazil.
    const empty = planRoutes(intent({ operation: 'charge', currency: 'BRL', country: 'BR' }), set({}));
    if (empty.kind !== 'eligibility_empty') throw new Error(empty.kind);
    const named = /fix it: (.*)\.$/.exec(empty.detail)![1]!.split(', ');
    const bound = new Set(
      RAILS.filter((r) => r.actions.charge && r.countries.includes('BR')).map((r) => r.provider_id),
    );
    for (const p of named) expect({ p, bound: bound.has(p) }).toEqual({ p, bound: true });
    expect(empty.detail).not.toMatch(/ebanx|efi|iugu|pagarme|pagseguro|adyen/);
  });

  it('applies the method and recipient filters', () => {
    const plan = planRoutes(
      intent({ operation: 'charge', currency: 'BRL', country: 'BR', recipient_kind: 'cpf', method: 'boleto' }),
      set({ asaas: 'connected' }),
    );
    if (plan.kind !== 'routes') throw new Error(plan.kind);
    expect(plan.routes.map((r) => r.rail.id)).toEqual(['asaas.boleto.in']);
  });

  it('eligibility_empty names the providers that would fix it', () => {
    const plan = planRoutes(
      intent({ operation: 'payout', currency: 'MXN', country: 'MX' }),
      set({ asaas: 'connected' }),
    );
    expect(plan.kind).toBe('eligibility_empty');
    if (plan.kind === 'eligibility_empty') expect(plan.detail).toMatch(/openpay, wise\.$/);
  });

  it('eligibility_empty says so when nothing in the catalog serves the combination', () => {
    const plan = planRoutes(intent({ operation: 'ship', currency: 'UYU', country: 'UY' }), set({}));
    expect(plan).toMatchObject({
      kind: 'eligibility_empty',
      detail: expect.stringContaining('Nothing in the catalog'),
    });
  });

  it('direction_blocked for a refund when every eligible rail only collects', () => {
    const plan = planRoutes(
      intent({ operation: 'refund', currency: 'MXN', country: 'MX' }),
      set({ openpay: 'connected' }),
    );
    expect(plan).toMatchObject({ kind: 'direction_blocked', detail: expect.stringContaining('openpay spei') });
  });

  it('direction_blocked for a charge where the only rails pay out and no provider collects', () => {
    const payoutOnly = RAILS.filter((r) => r.id === 'wise.spei.out');
    const plan = planRoutes(
      intent({ operation: 'charge', currency: 'MXN', country: 'MX' }),
      set({ wise: 'connected' }),
      payoutOnly,
    );
    expect(plan).toMatchObject({ kind: 'direction_blocked', detail: expect.stringContaining('wise spei') });
    // A payout rail that binds nothing is planning data: it blocks nothing and is named nowhere.
    const unbound = planRoutes(
      intent({ operation: 'charge', currency: 'UYU', country: 'UY' }),
      set({ wise: 'connected' }),
    );
    expect(unbound).toMatchObject({ kind: 'eligibility_empty', detail: expect.not.stringContaining('wise') });
  });

  it('is eligibility_empty, not direction_blocked, when connecting a catalog provider would help', () => {
    // asaas only collects BRL here, but asaas itself and others pay out in Brazil.
    const plan = planRoutes(
      intent({ operation: 'payout', currency: 'BRL', country: 'BR' }),
      set({ pagseguro: 'connected' }),
    );
    expect(plan.kind).toBe('eligibility_empty');
  });

  it('ignores providers missing from the catalog when naming fixes', () => {
    const plan = planRoutes(intent({ operation: 'payout', currency: 'MXN', country: 'MX' }), set({}, ['asaas']));
    expect(plan).toMatchObject({
      kind: 'eligibility_empty',
      detail: expect.stringContaining('Nothing in the catalog'),
    });
  });
});
