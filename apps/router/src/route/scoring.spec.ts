import { PathCIntent, type PathCIntentInput } from '@rota/contracts';
import { RAILS } from '../rails/rails';
import { bucketOf, emptyStats, type WindowStats } from '../telemetry/window';
import { DEFAULT_WEIGHTS, PRIOR_SUCCESS_RATE, rankRoutes, type Candidate } from './scoring';

const rail = (id: string) => RAILS.find((r) => r.id === id)!;
const intent = (i: Partial<PathCIntentInput> = {}) =>
  PathCIntent.parse({ operation: 'charge', currency: 'BRL', country: 'BR', amount_minor: 4990, ...i });

function stats(attempts: number, successes: number, latencyMs: number): WindowStats {
  const s = emptyStats();
  s.attempts = attempts;
  s.successes = successes;
  s.latency_sum_ms = attempts * latencyMs;
  s.histogram[bucketOf(latencyMs)] = attempts;
  return s;
}

const cand = (
  id: string,
  st: WindowStats = emptyStats(),
  connection: Candidate['connection'] = 'connected',
): Candidate => ({
  rail: rail(id),
  connection,
  stats: st,
});

describe('rankRoutes', () => {
  it('prefers the cheaper rail when nothing else differs much, and says why with numbers', () => {
    const [first, second] = rankRoutes(intent(), [cand('asaas.pix.in'), cand('pagarme.pix.in')]);
    // pagarme: 1.19% of 49.90 = 0.60; asaas: 0.99 flat.
    expect(first!.rail.provider_id).toBe('pagarme');
    expect(first!.cost_minor).toBe(60);
    expect(second!.cost_minor).toBe(99);
    expect(first!.reasons.join(' ')).toContain('BRL 0.60');
    expect(second!.reasons[0]).toMatch(/^Ranked 2 of 2 with a score of 0\.\d{3}, 0\.\d{3} below pagarme pix\.$/);
    expect(second!.success_rate).toBe(PRIOR_SUCCESS_RATE);
  });

  it('drops a failing provider below a healthy one once telemetry shows it', () => {
    const before = rankRoutes(intent(), [cand('pagarme.pix.in'), cand('asaas.pix.in')]);
    expect(before[0]!.rail.provider_id).toBe('pagarme');
    const after = rankRoutes(intent(), [
      cand('pagarme.pix.in', stats(40, 4, 300)),
      cand('asaas.pix.in', stats(40, 40, 350)),
    ]);
    expect(after.map((r) => r.rail.provider_id)).toEqual(['asaas', 'pagarme']);
    expect(after[1]!.success_rate).toBe(0.1);
    expect(after[1]!.reasons.join(' ')).toContain('Succeeded in 4 of 40 calls');
  });

  it('lets a slow median push a rail down', () => {
    const r = rankRoutes(intent({ amount_minor: undefined }), [
      cand('efi.pix.in', stats(50, 50, 4000)),
      cand('pagarme.pix.in', stats(50, 50, 200)),
    ]);
    expect(r[0]!.rail.provider_id).toBe('pagarme');
    expect(r[1]!.latency_p50_ms).toBeGreaterThan(3000);
  });

  it('penalises rails slower than the urgency asked', () => {
    const r = rankRoutes(intent({ urgency: 'instant' }), [cand('asaas.boleto.in'), cand('asaas.pix.in')]);
    expect(r[0]!.rail.method).toBe('pix');
    expect(r[1]!.reasons.join(' ')).toContain('slower than the instant urgency asked');
  });

  it('follows configured weights: with only cost weighted, the cheapest wins whatever its record', () => {
    const w = { ...DEFAULT_WEIGHTS, success: 0, latency: 0, urgency: 0, connection: 0, cost: 1 };
    const r = rankRoutes(intent(), [cand('pagarme.pix.in', stats(40, 0, 300)), cand('asaas.pix.in')], w);
    expect(r[0]!.rail.provider_id).toBe('pagarme');
  });

  it('ranks a connected provider above the same offer through the sandbox', () => {
    const r = rankRoutes(intent(), [
      cand('efi.pix.in', emptyStats(), 'sandbox'),
      cand('pagarme.pix.in', emptyStats(), 'connected'),
    ]);
    expect(r[0]!.rail.provider_id).toBe('pagarme');
    expect(r[1]!.reasons.join(' ')).toContain('shared sandbox');
  });
});
