import { RAILS } from '../rails/rails';
import { railCost, type Rail } from '../rails/rail';
import { rankRoutes } from '../route/scoring';
import { emptyStats } from '../telemetry/window';
import { FxRatesService, FxTable } from './fx-rates';

const at = (d: string) => new Date(`${d}T00:00:00Z`);

describe('FxTable', () => {
  const table = new FxTable([
    { base: 'USD', quote: 'BRL', rate: 5, fetchedAt: at('2026-11-30') },
    { base: 'USD', quote: 'MXN', rate: 20, fetchedAt: at('2026-11-28') },
    { base: 'EUR', quote: 'USD', rate: 0, fetchedAt: at('2026-11-30') },
  ]);

  it('converts directly, inversely and through a currency both are quoted against', () => {
    expect(table.convert('USD', 'BRL')).toEqual({ rate: 5, asOf: at('2026-11-30') });
    expect(table.convert('BRL', 'USD')!.rate).toBeCloseTo(0.2, 12);
    const crossed = table.convert('BRL', 'MXN')!;
    expect(crossed.rate).toBeCloseTo(4, 12);
    expect(crossed.via).toBe('USD');
    // A crossing is as old as its older rate.
    expect(crossed.asOf).toEqual(at('2026-11-28'));
  });

  it('has nothing for a pair it cannot join, and ignores rates that are not positive', () => {
    expect(table.convert('BRL', 'CLP')).toBeNull();
    expect(table.convert('EUR', 'USD')).toBeNull();
    expect(table.convert('CLP', 'CLP')!.rate).toBe(1);
  });
});

describe('railCost across currencies', () => {
  const rail = (fixed: Record<string, number>, bps = 0) =>
    ({ ...RAILS[0]!, cost: { fixed_minor: fixed, bps } }) as Rail;
  const fx = new FxTable([
    { base: 'USD', quote: 'BRL', rate: 5.1234, fetchedAt: at('2026-11-30') },
    { base: 'USD', quote: 'CLP', rate: 950, fetchedAt: at('2026-11-30') },
  ]);

  it('keeps the rail’s own price in the intent’s currency', () => {
    const cost = railCost(rail({ BRL: 99, USD: 10 }), 'BRL', 10_000, fx);
    expect(cost).toMatchObject({ cost_minor: 99, fixed_known: true });
    expect(cost.converted).toBeUndefined();
  });

  it('converts a fee priced elsewhere with integer minor units, rounding up, between exponents', () => {
    // USD 0.30 → BRL 1.537… → 154 centavos; plus 2.9 % of BRL 100.00.
    expect(railCost(rail({ USD: 30 }, 290), 'BRL', 10_000, fx)).toMatchObject({
      cost_minor: 154 + 290,
      fixed_minor: 154,
      fixed_known: true,
      converted: { currency: 'USD', minor: 30 },
    });
    // CLP has no minor unit: CLP 4500 → USD 4.736… → 474 cents.
    expect(railCost(rail({ CLP: 4500 }), 'USD', undefined, fx).fixed_minor).toBe(474);
  });

  it('counts the fee as unknown when no rate joins the currencies', () => {
    expect(railCost(rail({ MXN: 250 }, 100), 'BRL', 10_000, fx)).toEqual({
      cost_minor: 100,
      fixed_minor: 0,
      variable_minor: 100,
      fixed_known: false,
    });
    expect(railCost(rail({ USD: 30 }), 'BRL', undefined)).toMatchObject({ fixed_known: false });
  });

  it('changes a ranking that the missing price decided', () => {
    const cheapHere = { ...rail({ BRL: 500 }), id: 'a.label.none', provider_id: 'a' } as Rail;
    const dearElsewhere = { ...rail({ USD: 1000 }), id: 'b.label.none', provider_id: 'b' } as Rail;
    const intent = { operation: 'ship', currency: 'BRL', country: 'BR' } as const;
    const candidates = [cheapHere, dearElsewhere].map((r) => ({
      rail: r,
      connection: 'connected' as const,
      stats: emptyStats(),
    }));
    // Without rates the USD 10.00 label counts as free and ranks first.
    expect(rankRoutes(intent, candidates)[0]!.rail.id).toBe('b.label.none');
    const priced = rankRoutes(intent, candidates, undefined, fx);
    expect(priced[0]!.rail.id).toBe('a.label.none');
    expect(priced[1]!.cost_minor).toBe(5124);
    expect(priced[1]!.reasons.join(' ')).toMatch(
      /a fixed USD 10\.00 converted at 5\.12340 BRL per USD, rate of 2026-11-30/,
    );
  });
});

describe('FxRatesService', () => {
  it('reads once per interval, shares a read in flight, and keeps the last table when a read fails', async () => {
    let now = 0;
    let reads = 0;
    let fail = false;
    const prisma = {
      $queryRaw: (async () => {
        reads++;
        await new Promise((r) => setTimeout(r, 5));
        if (fail) throw new Error('down');
        return [{ base: 'USD', quote: 'BRL', rate: String(5 + reads), fetched_at: at('2026-11-30') }];
      }) as never,
    };
    const errors: unknown[] = [];
    const fx = new FxRatesService(
      prisma,
      1000,
      (e) => errors.push(e),
      () => now,
    );
    const [a, b] = await Promise.all([fx.current(), fx.current()]);
    expect(reads).toBe(1);
    expect(a).toBe(b);
    expect(a.convert('USD', 'BRL')!.rate).toBe(6);
    now = 500;
    expect((await fx.current()).convert('USD', 'BRL')!.rate).toBe(6);
    expect(reads).toBe(1);
    now = 1500;
    fail = true;
    expect((await fx.current()).convert('USD', 'BRL')!.rate).toBe(6);
    expect(reads).toBe(2);
    expect(errors).toHaveLength(1);
    now = 3000;
    fail = false;
    expect((await fx.current()).convert('USD', 'BRL')!.rate).toBe(8);
  });
});
