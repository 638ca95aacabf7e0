import type { PathCIntent, RouterSelectRequest, RouterSelectResponse, Tenant } from '@rota/contracts';
import type { EligibilityService, EligibilitySet } from '../eligibility/eligibility.service';
import { FxTable, type FxRatesService } from '../fx/fx-rates';
import { servesCountry, servesCurrency, type Rail } from '../rails/rail';
import { RAILS } from '../rails/rails';
import type { TelemetryStore } from '../telemetry/telemetry.store';
import type { WindowStats } from '../telemetry/window';
import { rankRoutes, type Weights } from './scoring';

/**
 * Whether a rail's method is what the call asks for. codespar_invoice's
 * `invoice` type is any fiscal document other than Brazil's NF-e and NFS-e:
 * a Mexican CFDI or a generic invoice.
 */
function methodFits(rail: Rail, method: string): boolean {
  if (rail.method === method) return true;
  return rail.tool === 'codespar_invoice' && method === 'invoice' && rail.method === 'cfdi';
}

/** Rails that can run this call at all, whoever the tenant is. */
export function executableRails(req: RouterSelectRequest, rails: readonly Rail[] = RAILS): Rail[] {
  return rails.filter(
    (r) =>
      r.tool === req.tool &&
      r.actions[req.action] !== undefined &&
      (req.rail_id === undefined || r.id === req.rail_id) &&
      (req.method === undefined || methodFits(r, req.method)) &&
      (req.currency === undefined || servesCurrency(r, req.currency)) &&
      (req.country === undefined || servesCountry(r, req.country)),
  );
}

/**
 * The routing decision, pure: the tenant's usable rails for the call, best
 * first, scored exactly as path C scores them (success over the window,
 * latency, cost, connection). A rail is usable when its provider is
 * connected or needs no connection: execution sends credentials, so a
 * provider path C ranks only as "sandbox available" is not enough.
 */
export function decide(
  req: RouterSelectRequest,
  fits: readonly Rail[],
  set: EligibilitySet,
  stats: ReadonlyMap<string, WindowStats>,
  empty: () => WindowStats,
  weights?: Weights,
  fx?: FxTable,
): RouterSelectResponse {
  const usable = fits.filter(
    (r) => set.providers[r.provider_id] === 'connected' || set.providers[r.provider_id] === 'not_required',
  );
  if (usable.length === 0) {
    const providers = [...new Set(fits.map((r) => r.provider_id))].sort();
    return {
      refusal: {
        code: 'connection_required',
        message: `No provider that can run ${req.tool} ${req.action} is connected in the ${set.environment} environment. Connect one of: ${providers.join(', ')}.`,
        providers,
      },
    };
  }
  // Scoring reads only the currency, amount and urgency of an intent.
  const intent = {
    operation: 'charge',
    currency: req.currency ?? 'USD',
    country: req.country ?? 'BR',
    ...(req.amount_minor !== undefined ? { amount_minor: Number(req.amount_minor) } : {}),
  } as PathCIntent;
  const ranked = rankRoutes(
    intent,
    usable.map((rail) => ({
      rail,
      connection: set.providers[rail.provider_id]!,
      stats: stats.get(`${rail.provider_id}|${rail.tool}`) ?? empty(),
    })),
    weights,
    fx,
  );
  return {
    candidates: ranked.map((r) => ({
      rail_id: r.rail.id,
      provider_id: r.rail.provider_id,
      binding: r.rail.actions[req.action]!,
    })),
  };
}

/** `router.select`: the ranked rails an acting meta-tool call may run on, for the request's tenant. */
export class SelectService {
  constructor(
    private readonly eligibility: EligibilityService,
    private readonly telemetry: TelemetryStore,
    private readonly empty: () => WindowStats,
    private readonly weights?: Weights,
    private readonly fx?: FxRatesService,
  ) {}

  async select(tenant: Tenant, req: RouterSelectRequest): Promise<RouterSelectResponse> {
    const fits = executableRails(req);
    if (fits.length === 0) {
      const what = `${req.tool} ${req.action}${req.method ? ` by ${req.method}` : ''}${req.currency ? ` in ${req.currency}` : ''}${req.country ? ` (${req.country})` : ''}`;
      return {
        refusal: {
          code: 'no_rail',
          message: `No rail in Rota's rail catalog runs ${what}. Nothing was sent.`,
          providers: [],
        },
      };
    }
    const allowed = req.providers ? fits.filter((r) => req.providers!.includes(r.provider_id)) : fits;
    if (allowed.length === 0) {
      const providers = [...new Set(fits.map((r) => r.provider_id))].sort();
      return {
        refusal: {
          code: 'not_allowed',
          message: `Policy allows none of the providers that can run ${req.tool} ${req.action} here. Nothing was sent.`,
          providers,
        },
      };
    }
    return this.rank(tenant, req, allowed);
  }

  private async rank(tenant: Tenant, req: RouterSelectRequest, fits: Rail[]): Promise<RouterSelectResponse> {
    const pairs = [
      ...new Map(
        fits.map((r) => [`${r.provider_id}|${r.tool}`, { provider_id: r.provider_id, tool: r.tool }]),
      ).values(),
    ];
    const [set, stats, fx] = await Promise.all([
      this.eligibility.get(tenant),
      this.telemetry.read(tenant.environment, pairs),
      this.fx?.current() ?? FxTable.EMPTY,
    ]);
    const byPair = new Map(pairs.map((p, i) => [`${p.provider_id}|${p.tool}`, stats[i]!]));
    return decide(req, fits, set, byPair, this.empty, this.weights, fx);
  }
}
