import {
  rollUpHealth,
  type AnyHealthCheck,
  type ConnectionsCheck,
  type CredentialsCheckResult,
  type DatabaseCheck,
  type CredentialsCheck,
  type EmbeddingsCheck,
  type FxCheck,
  type HealthChecks,
  type HealthHistory,
  type HealthHistoryQuery,
  type HealthReport,
  type HealthScope,
  type HealthStatus,
  type Tenant,
  type TelemetryCheck,
} from '@rota/contracts';
import { gauge } from '@rota/service-kit';
import type { Logger } from 'pino';
import {
  DEPLOYMENT_SCOPE,
  projectScope,
  type HealthRepository,
  type HealthScopeRef,
  type SnapshotRow,
} from './health.repository';

/** Telemetry counts a project idle when it has connections and no provider attempt within this many hours. */
export const TELEMETRY_WINDOW_HOURS = 24;
/** Embedding coverage under this is `low`. */
export const LOW_COVERAGE = 0.5;

export interface HealthDeps {
  repo: HealthRepository;
  /** Catalog counts for the current model (`CatalogRepository.counts`). */
  catalogCounts(model: string): Promise<{ tools: number; embedded: number }>;
  /** The embedding model vectors must have. */
  model: string;
  /** Asks the session service to seal and open a canary (`session.credentials.check`) within `timeoutMs`. */
  credentials(timeoutMs: number): Promise<CredentialsCheckResult>;
  /** Whether an FX source (`ROTA_FX_URL`) is configured. */
  fxSourceConfigured: boolean;
  fxStaleHours: number;
  /** Budget of each check. */
  budgetMs: number;
  retentionDays: number;
  log: Pick<Logger, 'info' | 'warn'>;
}

/** A check as its probe returns it; `run` adds the scope and the time taken. */
type Body<T extends AnyHealthCheck> = Omit<T, 'scope' | 'ms'>;

class BudgetExceeded extends Error {}

const errorText = (err: unknown) =>
  err instanceof BudgetExceeded ? err.message : `The check failed: ${(err as Error)?.message ?? String(err)}`;

const DEPLOYMENT_CHECKS = ['database', 'credentials', 'embeddings', 'fx'] as const;
type ProjectCheckName = 'telemetry' | 'connections';

const checkOk = gauge({
  name: 'rota_health_check_ok',
  help: 'Deployment-wide health checks from the worker’s last evaluation: 1 nominal, 0 off nominal.',
  labelNames: ['check'],
});
const healthStatus = gauge({
  name: 'rota_health_status',
  help: 'The deployment’s health from the worker’s last evaluation: 1 on the current status, 0 on the others.',
  labelNames: ['status'],
});
const coverageRatio = gauge({
  name: 'rota_embedding_coverage_ratio',
  help: 'Share of catalog tools holding a vector of the current embedding model (0..1), from the worker’s last health evaluation.',
});
const catalogTools = gauge({
  name: 'rota_catalog_tools',
  help: 'Catalog tools, all of them and those with a vector of the current model, from the worker’s last health evaluation.',
  labelNames: ['state'],
});

/**
 * The health rollup: six checks, each under its own budget, rolled up as
 * contracts say (`rollUpHealth`). Evaluated on every `GET /v1/health` and by
 * the scheduled `health.evaluate` job, which keeps snapshots. A change of a
 * scope's stored status writes one `system.health.*` event (see
 * `HealthRepository.transition`).
 */
export class HealthService {
  /** Set while the scheduled evaluation finds the database down: the change it could not store. */
  private outage?: { since: Date; checks: Partial<HealthChecks> };
  private readonly transitionListeners: (() => void)[] = [];

  constructor(private readonly deps: HealthDeps) {}

  /** Called after an evaluation stored a transition (and its event): the runner dispatches the outbox at once. */
  onTransition(listener: () => void): void {
    this.transitionListeners.push(listener);
  }

  /** Runs `fn` within the budget; its failure or a timeout becomes `fallback(message)`. */
  private async run<T extends AnyHealthCheck>(
    scope: HealthScope,
    fn: () => Promise<Body<T>>,
    fallback: (message: string) => Body<T>,
  ): Promise<T> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    let body: Body<T>;
    try {
      body = await Promise.race([
        fn(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new BudgetExceeded(`No answer within ${this.deps.budgetMs} ms.`)),
            this.deps.budgetMs,
          );
        }),
      ]);
    } catch (err) {
      body = fallback(errorText(err));
    } finally {
      clearTimeout(timer);
    }
    return { ...body, scope, ms: Math.round(performance.now() - started) } as T;
  }

  private database(): Promise<DatabaseCheck> {
    return this.run<DatabaseCheck>(
      'deployment',
      async () => {
        await this.deps.repo.ping();
        return { ok: true, status: 'up' };
      },
      (message) => ({ ok: false, status: 'down', message: `The database is unreachable. ${message}` }),
    );
  }

  private credentials(): Promise<CredentialsCheck> {
    return this.run<CredentialsCheck>(
      'deployment',
      async () => {
        const r = await this.deps.credentials(this.deps.budgetMs);
        return r.ok
          ? { ok: true, status: 'up', key_id: r.key_id }
          : { ok: false, status: 'down', key_id: r.key_id, message: r.message };
      },
      (message) => ({
        ok: false,
        status: 'down',
        key_id: null,
        message: `The credential store did not answer. ${message}`,
      }),
    );
  }

  private embeddings(): Promise<EmbeddingsCheck> {
    const { model } = this.deps;
    return this.run<EmbeddingsCheck>(
      'deployment',
      async () => {
        const { tools, embedded } = await this.deps.catalogCounts(model);
        const coverage = tools === 0 ? 0 : Math.round((embedded / tools) * 10_000) / 10_000;
        if (embedded === 0) {
          const message =
            tools === 0
              ? 'The catalog holds no tool: discover finds nothing.'
              : `No tool has a ${model} vector yet: discover ranks by text only.`;
          return { ok: false, status: 'empty', model, tools, embedded, coverage, message };
        }
        if (embedded / tools < LOW_COVERAGE) {
          return {
            ok: false,
            status: 'low',
            model,
            tools,
            embedded,
            coverage,
            message: `${embedded} of ${tools} tools have a ${model} vector.`,
          };
        }
        return { ok: true, status: 'ok', model, tools, embedded, coverage };
      },
      (message) => ({ ok: false, status: 'unknown', model, tools: null, embedded: null, coverage: null, message }),
    );
  }

  private fx(): Promise<FxCheck> {
    const { fxSourceConfigured: configured, fxStaleHours } = this.deps;
    return this.run<FxCheck>(
      'deployment',
      async () => {
        const { pairs, stale, oldest } = await this.deps.repo.fxFreshness(fxStaleHours);
        const facts = {
          source_configured: configured,
          pairs,
          stale_pairs: stale,
          oldest_fetched_at: oldest?.toISOString() ?? null,
        };
        if (pairs === 0 && !configured) return { ok: true, status: 'not_configured', ...facts };
        if (pairs === 0)
          return {
            ok: false,
            status: 'missing',
            ...facts,
            message: 'An FX source is configured and no rate is stored yet.',
          };
        if (stale > 0)
          return {
            ok: false,
            status: 'stale',
            ...facts,
            message: `${stale} of ${pairs} currency pairs were fetched more than ${fxStaleHours} hours ago.`,
          };
        return { ok: true, status: 'fresh', ...facts };
      },
      (message) => ({
        ok: false,
        status: 'unknown',
        source_configured: configured,
        pairs: null,
        stale_pairs: null,
        oldest_fetched_at: null,
        message,
      }),
    );
  }

  private connections(providers: Promise<string[]>): Promise<ConnectionsCheck> {
    return this.run<ConnectionsCheck>(
      'project',
      async () => {
        const list = await providers;
        if (list.length === 0)
          return {
            ok: false,
            status: 'none',
            count: 0,
            providers: list,
            message: 'No provider is connected: nothing can be called.',
          };
        if (list.length < 3)
          return {
            ok: false,
            status: 'partial',
            count: list.length,
            providers: list,
            message: `${list.length} provider(s) connected; the router has little to choose from.`,
          };
        return { ok: true, status: 'wired', count: list.length, providers: list };
      },
      (message) => ({ ok: false, status: 'unknown', count: null, providers: [], message }),
    );
  }

  private telemetry(
    projectId: string,
    environment: 'live' | 'test',
    providers: Promise<string[]>,
  ): Promise<TelemetryCheck> {
    return this.run<TelemetryCheck>(
      'project',
      async () => {
        const [list, { attempts, last }] = await Promise.all([
          providers,
          this.deps.repo.providerAttempts(projectId, environment, TELEMETRY_WINDOW_HOURS),
        ]);
        const facts = { attempts_24h: attempts, last_attempt_at: last?.toISOString() ?? null };
        if (list.length === 0) return { ok: true, status: 'no_connections', ...facts };
        if (attempts === 0)
          return {
            ok: false,
            status: 'idle',
            ...facts,
            message: `Connections exist and no provider was called in ${TELEMETRY_WINDOW_HOURS} hours.`,
          };
        return { ok: true, status: 'active', ...facts };
      },
      (message) => ({ ok: false, status: 'unknown', attempts_24h: null, last_attempt_at: null, message }),
    );
  }

  private async deploymentChecks(): Promise<Pick<HealthChecks, (typeof DEPLOYMENT_CHECKS)[number]>> {
    const [database, credentials, embeddings, fx] = await Promise.all([
      this.database(),
      this.credentials(),
      this.embeddings(),
      this.fx(),
    ]);
    return { database, credentials, embeddings, fx };
  }

  private async projectChecks(
    projectId: string,
    environment: 'live' | 'test',
  ): Promise<Pick<HealthChecks, ProjectCheckName>> {
    const providers = this.deps.repo.connectedProviders(projectId, environment);
    // Both checks read it, each within its own budget; an early failure must not go unhandled.
    providers.catch(() => undefined);
    const [telemetry, connections] = await Promise.all([
      this.telemetry(projectId, environment, providers),
      this.connections(providers),
    ]);
    return { telemetry, connections };
  }

  /**
   * `GET /v1/health`: every check now, for the caller's project and
   * environment (deployment-wide only for an operator). Changes of the
   * stored statuses are recorded, with their events; nothing else is stored.
   */
  async report(tenant: Tenant | undefined): Promise<HealthReport> {
    const [deployment, project] = await Promise.all([
      this.deploymentChecks(),
      tenant ? this.projectChecks(tenant.project_id, tenant.environment) : Promise.resolve(undefined),
    ]);
    const checks: HealthChecks = { ...deployment, ...project };
    if (deployment.database.ok) {
      await this.record(DEPLOYMENT_SCOPE, deployment, false);
      if (tenant && project)
        await this.record(projectScope(tenant.org_id, tenant.project_id, tenant.environment), project, false);
    }
    return {
      status: rollUpHealth(checks),
      evaluated_at: new Date().toISOString(),
      project_id: tenant?.project_id ?? null,
      environment: tenant?.environment ?? null,
      checks,
    };
  }

  /**
   * The scheduled evaluation: the deployment and every project and
   * environment with a connection or a stored status, each stored as a
   * snapshot. While the database is down nothing can be stored; the first
   * run after it is back records the outage it saw (`down`) before the
   * current status, so the change is paged even though it was never stored
   * while it lasted.
   */
  async evaluateAll(): Promise<{ status: HealthStatus; projects: number; transitions: number }> {
    const deployment = await this.deploymentChecks();
    const status = rollUpHealth(deployment);
    this.publishGauges(deployment, status);
    if (!deployment.database.ok) {
      this.outage ??= { since: new Date(), checks: deployment };
      this.deps.log.warn({ status }, 'health: the database is down; the change is recorded once it is back');
      return { status, projects: 0, transitions: 0 };
    }
    let transitions = 0;
    if (this.outage) {
      if (await this.recordOutage(this.outage)) {
        transitions++;
        for (const listener of this.transitionListeners) listener();
      }
      this.outage = undefined;
    }
    if (await this.record(DEPLOYMENT_SCOPE, deployment, true)) transitions++;
    const scopes = await this.deps.repo.projectScopes();
    for (const scope of scopes) {
      const checks = await this.projectChecks(scope.projectId!, scope.environment!);
      if (await this.record(scope, checks, true)) transitions++;
    }
    await this.deps.repo.pruneSnapshots(this.deps.retentionDays);
    return { status, projects: scopes.length, transitions };
  }

  /** The outage seen while the database was down, stored as a change to `down` unless a change was stored since it began. */
  private async recordOutage(outage: { since: Date; checks: Partial<HealthChecks> }): Promise<boolean> {
    const stored = await this.deps.repo.stored(DEPLOYMENT_SCOPE.key);
    if (stored && (stored.status === 'down' || stored.since >= outage.since)) return false;
    return this.deps.repo.transition(
      DEPLOYMENT_SCOPE,
      stored,
      'down',
      {
        type: 'system.health.degraded',
        payload: this.eventPayload(DEPLOYMENT_SCOPE, 'down', stored?.status ?? null, outage.checks, outage.since),
      },
      outage.checks,
    );
  }

  /** Stores the scope's status: a change (with its event and snapshot), or else an unchanged evaluation. Returns whether it changed. */
  private async record(scope: HealthScopeRef, checks: Partial<HealthChecks>, snapshot: boolean): Promise<boolean> {
    const status = rollUpHealth(checks);
    try {
      const stored = await this.deps.repo.stored(scope.key);
      if (stored?.status === status) {
        await this.deps.repo.unchanged(scope, status, checks, snapshot);
        return false;
      }
      const type = status === 'healthy' ? 'system.health.recovered' : 'system.health.degraded';
      // A scope first seen healthy has nothing to report.
      const event =
        !stored && status === 'healthy'
          ? null
          : ({ type, payload: this.eventPayload(scope, status, stored?.status ?? null, checks, new Date()) } as const);
      const changed = await this.deps.repo.transition(scope, stored, status, event, checks);
      if (changed)
        this.deps.log.info({ scope: scope.key, from: stored?.status ?? null, to: status }, 'health status changed');
      if (changed && event) for (const listener of this.transitionListeners) listener();
      else if (snapshot) await this.deps.repo.unchanged(scope, status, checks, snapshot);
      return changed && event !== null;
    } catch (err) {
      this.deps.log.warn({ scope: scope.key, err: (err as Error).message }, 'health: could not store the evaluation');
      return false;
    }
  }

  private eventPayload(
    scope: HealthScopeRef,
    status: HealthStatus,
    previous: HealthStatus | null,
    checks: Partial<HealthChecks>,
    at: Date,
  ) {
    return {
      scope: (scope.projectId ? 'project' : 'deployment') as HealthScope,
      org_id: scope.orgId,
      project_id: scope.projectId,
      environment: scope.environment,
      status,
      previous_status: previous,
      checks: (Object.entries(checks) as [string, AnyHealthCheck | undefined][])
        .filter(([, c]) => c && !c.ok)
        .map(([name, c]) => ({ name, status: c!.status, ...(c!.message ? { message: c!.message } : {}) })),
      at: at.toISOString(),
    };
  }

  private publishGauges(deployment: Pick<HealthChecks, (typeof DEPLOYMENT_CHECKS)[number]>, status: HealthStatus) {
    for (const name of DEPLOYMENT_CHECKS) checkOk.set({ check: name }, deployment[name].ok ? 1 : 0);
    for (const s of ['healthy', 'degraded', 'down'] as const) healthStatus.set({ status: s }, s === status ? 1 : 0);
    const e = deployment.embeddings;
    if (e.tools !== null && e.embedded !== null) {
      catalogTools.set({ state: 'total' }, e.tools);
      catalogTools.set({ state: 'embedded' }, e.embedded);
      coverageRatio.set(e.tools === 0 ? 0 : e.embedded / e.tools);
    }
  }

  /** `GET /v1/health/history`: deployment-wide snapshots and, for a project key, its project and environment's. */
  async history(query: HealthHistoryQuery, tenant: Tenant | undefined): Promise<HealthHistory> {
    const keys: string[] = [];
    if (query.scope !== 'project') keys.push(DEPLOYMENT_SCOPE.key);
    if (query.scope !== 'deployment' && tenant)
      keys.push(projectScope(tenant.org_id, tenant.project_id, tenant.environment).key);
    const rows = await this.deps.repo.snapshots(keys, {
      limit: query.limit + 1,
      beforeId: query.cursor === undefined ? undefined : BigInt(query.cursor),
      transitionsOnly: query.transitions === 'true',
    });
    const page = rows.slice(0, query.limit);
    return {
      snapshots: page.map(toSnapshot),
      next_cursor: rows.length > query.limit ? String(page[page.length - 1]!.id) : null,
    };
  }
}

function toSnapshot(r: SnapshotRow) {
  return {
    id: String(r.id),
    scope: (r.project_id ? 'project' : 'deployment') as HealthScope,
    project_id: r.project_id,
    environment: r.environment,
    status: r.status,
    previous_status: r.previous_status,
    checks: r.checks as Partial<HealthChecks>,
    evaluated_at: r.evaluated_at.toISOString(),
  };
}
