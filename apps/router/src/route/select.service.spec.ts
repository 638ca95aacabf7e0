import type { RouterSelectRequest, Tenant } from '@rota/contracts';
import type { EligibilityService, EligibilitySet } from '../eligibility/eligibility.service';
import type { TelemetryStore } from '../telemetry/telemetry.store';
import { emptyStats, type WindowStats } from '../telemetry/window';
import { decide, executableRails, SelectService } from './select.service';

const CHARGE: RouterSelectRequest = {
  tool: 'codespar_charge',
  action: 'charge',
  method: 'pix',
  currency: 'BRL',
  amount_minor: '4990',
};
const tenant: Tenant = { org_id: 'org_1', project_id: 'proj_1', environment: 'test' };

function set(providers: EligibilitySet['providers']): EligibilitySet {
  return {
    org_id: 'org_1',
    project_id: 'proj_1',
    environment: 'test',
    providers,
    catalog: Object.keys(providers),
    refreshed_at: '',
  };
}

function stats(attempts: number, successes: number): WindowStats {
  return { ...emptyStats(), attempts, successes };
}

describe('executableRails', () => {
  it('keeps only rails that carry the tool and action with the call’s method and currency', () => {
    const rails = executableRails(CHARGE);
    expect(rails.length).toBeGreaterThanOrEqual(2);
    for (const r of rails) {
      expect(r).toMatchObject({ tool: 'codespar_charge', method: 'pix' });
      expect(r.actions.charge).toBeDefined();
    }
    expect(executableRails({ ...CHARGE, currency: 'JPY' })).toEqual([]);
  });

  it('pins a follow-up to the rail that created its object', () => {
    const [first] = executableRails(CHARGE);
    expect(executableRails({ tool: 'codespar_charge', action: 'refund', rail_id: first!.id }).map((r) => r.id)).toEqual(
      first!.actions.refund ? [first!.id] : [],
    );
  });
});

describe('decide', () => {
  const fits = executableRails(CHARGE);
  const providers = [...new Set(fits.map((r) => r.provider_id))];

  it('refuses connection_required, naming the providers, when none of the rails’ providers is usable', () => {
    const sandboxOnly = set(Object.fromEntries(providers.map((p) => [p, 'sandbox' as const])));
    const r = decide(CHARGE, fits, sandboxOnly, new Map(), emptyStats);
    expect(r).toEqual({
      refusal: {
        code: 'connection_required',
        message: expect.stringContaining('Connect one of'),
        providers: [...providers].sort(),
      },
    });
  });

  it('ranks by telemetry: a rail failing over the window drops below a healthy one', () => {
    const [a, b] = providers as [string, string];
    const connected = set({ [a]: 'connected', [b]: 'connected' });
    const healthyA = new Map([
      [`${a}|codespar_charge`, stats(500, 499)],
      [`${b}|codespar_charge`, stats(500, 200)],
    ]);
    const healthyB = new Map([
      [`${a}|codespar_charge`, stats(500, 200)],
      [`${b}|codespar_charge`, stats(500, 499)],
    ]);
    const first = (m: Map<string, WindowStats>) => {
      const r = decide(CHARGE, fits, connected, m, emptyStats);
      if (!('candidates' in r)) throw new Error('expected candidates');
      return r.candidates[0]!.provider_id;
    };
    expect(first(healthyA)).toBe(a);
    expect(first(healthyB)).toBe(b);
  });

  it('hands each candidate the binding of the requested action', () => {
    const r = decide(
      CHARGE,
      fits,
      set(Object.fromEntries(providers.map((p) => [p, 'connected' as const]))),
      new Map(),
      emptyStats,
    );
    if (!('candidates' in r)) throw new Error('expected candidates');
    for (const c of r.candidates) expect(c.binding).toEqual(fits.find((f) => f.id === c.rail_id)!.actions.charge);
  });
});

describe('SelectService', () => {
  const eligibility = (providers: EligibilitySet['providers']) =>
    ({ get: async () => set(providers) }) as unknown as EligibilityService;
  const telemetry = {
    read: async (_env: string, pairs: unknown[]) => pairs.map(() => emptyStats()),
  } as unknown as TelemetryStore;
  const providers = [...new Set(executableRails(CHARGE).map((r) => r.provider_id))];
  const all = Object.fromEntries(providers.map((p) => [p, 'connected' as const]));

  it('answers no_rail when nothing in the rail catalog runs the call', async () => {
    const r = await new SelectService(eligibility(all), telemetry, emptyStats).select(tenant, {
      ...CHARGE,
      method: 'teleport',
    });
    expect(r).toMatchObject({ refusal: { code: 'no_rail', providers: [] } });
  });

  it('applies a policy’s providers before ranking, and refuses not_allowed only when none remains', async () => {
    const service = new SelectService(eligibility(all), telemetry, emptyStats);
    const only = providers[1]!;
    const narrowed = await service.select(tenant, { ...CHARGE, providers: [only] });
    expect('candidates' in narrowed && narrowed.candidates.map((c) => c.provider_id)).toEqual(
      executableRails(CHARGE)
        .filter((r) => r.provider_id === only)
        .map(() => only),
    );
    const none = await service.select(tenant, { ...CHARGE, providers: ['nobody'] });
    expect(none).toMatchObject({ refusal: { code: 'not_allowed', providers: [...providers].sort() } });
  });
});
