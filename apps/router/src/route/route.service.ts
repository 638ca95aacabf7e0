import {
  AppError,
  type RailMethod,
  type MetaToolsDiscoverRequest,
  type MetaToolsDiscoverResponse,
  type PathCIntent,
  type Tenant,
} from '@rota/contracts';
import { currentTenant } from '@rota/service-kit';
import type Redis from 'ioredis';
import type { EligibilityService, EligibilitySet } from '../eligibility/eligibility.service';
import { FxTable, type FxRatesService } from '../fx/fx-rates';
import { MONEY_OPERATIONS } from '../rails/rail';
import type { TelemetryStore } from '../telemetry/telemetry.store';
import { emptyStats } from '../telemetry/window';
import type { IntentExtractor } from '../nl/extractor';
import { buildArgsTemplate } from './args-template';
import { candidatePairs, planRoutes, type Plan } from './plan';
import { rankRoutes, type Weights } from './scoring';

export interface RouteLogger {
  info(meta: Record<string, unknown>, msg: string): void;
}

export interface RouteServiceOptions {
  prefix: string;
  repairCooldownMs: number;
  weights: Weights;
}

/** One cooldown per tenant: a repair in one environment says nothing about the other's set. */
export function repairCooldownKey(prefix: string, t: Tenant): string {
  return `${prefix}:router:repair:${t.org_id}:${t.project_id}:${t.environment}`;
}

/**
 * Path C: resolve the intent, look up the project's eligible rails, rank
 * them and answer; on a 424, repair the eligibility set at most once per
 * cooldown window per tenant, across every replica.
 */
export class RouteService {
  constructor(
    private readonly redis: Redis,
    private readonly eligibility: EligibilityService,
    private readonly telemetry: TelemetryStore,
    private readonly extractor: IntentExtractor | null,
    private readonly options: RouteServiceOptions,
    private readonly log: RouteLogger,
    private readonly fx?: FxRatesService,
  ) {}

  /** Routes for the request's tenant: its eligible rails depend on its connections and environment. */
  async route(body: MetaToolsDiscoverRequest): Promise<MetaToolsDiscoverResponse> {
    const tenant = currentTenant();
    const intent = 'intent' in body ? body.intent : await this.extract(body.description);
    if (intent.amount_minor === 0 && MONEY_OPERATIONS[intent.operation]) {
      throw new AppError('invalid_body', 'The request body is invalid.', {
        issues: [
          {
            path: ['intent', 'amount_minor'],
            message: `a ${intent.operation} needs an amount above 0`,
            code: 'too_small',
          },
        ],
      });
    }

    // The eligibility set and the telemetry of every pair that could qualify, read together.
    const pairs = candidatePairs(intent);
    const [set, stats, fx] = await Promise.all([
      this.eligibility.get(tenant),
      this.telemetry.read(tenant.environment, pairs),
      this.fx?.current() ?? FxTable.EMPTY,
    ]);
    let plan = planRoutes(intent, set);
    if (plan.kind !== 'routes') plan = await this.repairAndRetry(tenant, intent, plan);
    if (plan.kind !== 'routes') throw new AppError(plan.kind, messageFor(plan.kind), { detail: plan.detail });

    const byPair = new Map(pairs.map((p, i) => [`${p.provider_id}|${p.tool}`, stats[i]!]));
    const ranked = rankRoutes(
      intent,
      plan.routes.map((r) => ({ ...r, stats: byPair.get(`${r.rail.provider_id}|${r.rail.tool}`) ?? emptyStats() })),
      this.options.weights,
      fx,
    );
    const [best, ...rest] = ranked;
    return {
      recommended: {
        tool: best!.rail.tool,
        rail: best!.rail.method as RailMethod,
        provider_id: best!.rail.provider_id,
        args_template: buildArgsTemplate(intent, best!.rail),
        reasons: best!.reasons,
      },
      alternatives: rest.map((r) => ({
        tool: r.rail.tool,
        rail: r.rail.method as RailMethod,
        provider_id: r.rail.provider_id,
        cost_minor: r.cost_minor,
        mean_latency_ms: r.mean_latency_ms,
        latency_p50_ms: r.latency_p50_ms,
        success_rate: Number(r.success_rate.toFixed(4)),
        reasons: r.reasons,
      })),
      resolved_intent: intent,
    };
  }

  /**
   * The one write this read route makes. The cooldown is stamped in Redis
   * (SET NX) before anything else, so only one caller per window and per
   * tenant, on any replica, gets to re-seed; everyone else answers from
   * what is stored.
   */
  private async repairAndRetry(tenant: Tenant, intent: PathCIntent, first: Plan): Promise<Plan> {
    const key = repairCooldownKey(this.options.prefix, tenant);
    const stamped = await this.redis.set(key, new Date().toISOString(), 'PX', this.options.repairCooldownMs, 'NX');
    if (stamped !== 'OK') {
      this.log.info(
        { org_id: tenant.org_id, project_id: tenant.project_id, environment: tenant.environment, refusal: first.kind },
        'eligibility repair suppressed: cooldown active',
      );
      return first;
    }
    const set: EligibilitySet = await this.eligibility.refresh(tenant);
    const retried = planRoutes(intent, set);
    this.log.info(
      {
        org_id: tenant.org_id,
        project_id: tenant.project_id,
        environment: tenant.environment,
        refusal: first.kind,
        outcome: retried.kind,
        providers: Object.keys(set.providers).length,
      },
      'eligibility repaired and lookup retried',
    );
    return retried;
  }

  private async extract(description: string): Promise<PathCIntent> {
    if (!this.extractor) {
      throw new AppError(
        'nl_unavailable',
        'Descriptions are not enabled on this deployment; send a structured intent instead.',
      );
    }
    const out = await this.extractor.extract(description);
    if (out.kind === 'intent') return out.intent;
    if (out.kind === 'unmappable') throw new AppError('intent_unmappable', out.reason);
    // The local parser is no dependency: text it cannot read is the caller's to
    // fix, a 400, never a 5xx. A 502 means the model answered nothing usable.
    if (this.extractor.name === 'local')
      throw new AppError('intent_unmappable', `${out.reason} Rephrase it, or send a structured intent.`);
    throw new AppError('nl_extraction_failed', `${out.reason} Rephrase it, or send a structured intent.`);
  }
}

function messageFor(code: 'eligibility_empty' | 'direction_blocked'): string {
  return code === 'eligibility_empty'
    ? 'No eligible rail for this operation, currency and country. Connecting a provider that serves it is the fix.'
    : 'Every eligible rail moves money the wrong way for this operation. Connecting another provider does not fix it.';
}
