import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, type DiscoverResult, type Environment, type Tenant } from '@rota/contracts';
import { CONFIG, requestContext, RpcClient } from '@rota/service-kit';
import { failureData } from '../calls/call-book';
import type { SessionConfig } from '../config';
import { ConnectionsRepository } from '../connections/connections.repository';
import { connectionStatus } from '../connections/connections.service';
import { ManageConnectionsService, redactCredentialsInPlace } from '../connections/manage/manage.service';
import { ok, type CallContext, type EarlyCall, type ExecCall, type Executor, type Outcome } from '../execute/executors';
import { ToolsRepository } from '../tools/tools.repository';
import { getStarted, listTools, type ProviderState } from './builtins';

/** A discover search started when the request arrived, and when. */
interface EarlyDiscover {
  result: Promise<DiscoverResult>;
  started: number;
}

/**
 * The meta-tools Rota answers from its own data: `codespar_list_tools`,
 * `codespar_discover` (the search service), `codespar_get_started` and
 * `codespar_manage_connections` (connections/manage). A published meta-tool
 * that is neither one of these nor an acting one has no executor yet.
 */
@Injectable()
export class MetaToolExecutor implements Executor<'rota'> {
  constructor(
    @Inject(CONFIG) private readonly config: SessionConfig,
    private readonly tools: ToolsRepository,
    private readonly connections: ConnectionsRepository,
    private readonly manage: ManageConnectionsService,
    private readonly rpc: RpcClient,
  ) {}

  /**
   * `codespar_discover` reads the catalog for the caller's project and
   * environment and depends on nothing the session checks produce, so the
   * search starts at once, in parallel with the session lookup. Its answer is
   * used only when every check before dispatch passes, in the documented
   * order; otherwise it is dropped. A pure read: starting it early changes
   * nothing but the latency.
   */
  prefetch({ cmd, metaArgs }: EarlyCall): EarlyDiscover | null {
    if (cmd.tool !== 'codespar_discover' || !metaArgs) return null;
    const started = performance.now();
    const result = this.searchDiscover(metaArgs.value);
    // Nobody may await it (an earlier check refuses the call): that is not an error.
    result.catch(() => undefined);
    return { result, started };
  }

  async run(call: ExecCall<Extract<ExecCall['resolved'], { kind: 'rota' }>>, prefetched: unknown): Promise<Outcome> {
    const { ctx, input } = call;
    switch (call.resolved.name) {
      case 'codespar_list_tools':
        return ok(await this.listTools(ctx));
      case 'codespar_discover':
        return this.discover((prefetched as EarlyDiscover | null)?.result ?? this.searchDiscover(input));
      case 'codespar_get_started':
        return ok(
          getStarted({
            environment: ctx.tenant.environment,
            providers: await this.usableProviders(ctx, ctx.tenant.environment),
            inSession: ctx.sessionId !== null,
          }),
        );
      case 'codespar_manage_connections':
        return this.manageConnections(input, ctx);
      default: {
        const message = `${call.resolved.name} has no executor in this release; nothing was sent to any provider.`;
        return {
          success: false,
          data: failureData('not_implemented', message),
          error: message,
          server: null,
          record: true,
        };
      }
    }
  }

  /** The search service reads the catalog for the tenant this request carries. */
  private searchDiscover(input: Record<string, unknown>): Promise<DiscoverResult> {
    const deadline = requestContext.getStore()?.deadline;
    const left = deadline ? deadline - Date.now() - 100 : Infinity;
    const timeoutMs = Math.max(50, Math.min(this.config.ROTA_DISCOVER_TIMEOUT_MS, left));
    return this.rpc.send('search.discover', { input }, { timeoutMs });
  }

  /** The search service's answer as a call outcome. Its `invalid_args` becomes a result and writes nothing. */
  private async discover(search: Promise<DiscoverResult>): Promise<Outcome> {
    try {
      return ok(await search);
    } catch (err) {
      if (err instanceof AppError && err.code === 'invalid_args') {
        return {
          success: false,
          data: failureData('invalid_args', err.message, err.details ?? {}),
          error: err.message,
          server: null,
          record: false,
        };
      }
      throw err;
    }
  }

  private async listTools(ctx: CallContext) {
    const [catalog, servers] = await Promise.all([
      this.tools.listTools(ctx.servers, ctx.tenant.project_id),
      this.providerStates(ctx.tenant, ctx.tenant.environment, ctx.servers),
    ]);
    return listTools(catalog, servers);
  }

  /** Every action lives in connections/manage; this only adapts the result. */
  private async manageConnections(input: Record<string, unknown>, ctx: CallContext): Promise<Outcome> {
    const done = await this.manage.run(input, { tenant: ctx.tenant, sessionId: ctx.sessionId, servers: ctx.servers });
    // `input` is the object the call row records: credentials sent to connect_start or connect_finish leave it here.
    redactCredentialsInPlace(input);
    return { ...done, server: null };
  }

  /** The project's connected providers plus the context's own providers, each with its status. */
  private async usableProviders(ctx: CallContext, environment: Environment): Promise<ProviderState[]> {
    const [connected, named] = await Promise.all([
      this.providerStates(ctx.tenant, environment, null),
      this.providerStates(ctx.tenant, environment, ctx.servers),
    ]);
    const byId = new Map([...connected, ...named].map((p) => [p.id, p]));
    return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  private async providerStates(
    tenant: Tenant,
    environment: Environment,
    ids: readonly string[] | null,
  ): Promise<ProviderState[]> {
    const rows = await this.connections.providerStates(tenant.project_id, environment, ids);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      category: r.category,
      authType: r.authType,
      status: connectionStatus(r.authType, r.connectedAt !== null),
      connectedAt: r.connectedAt,
    }));
  }
}
