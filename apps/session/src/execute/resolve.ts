import { Inject, Injectable } from '@nestjs/common';
import {
  AppError,
  isActingMetaTool,
  isMetaToolName,
  LIST_TOOLS_TOOL,
  META_TOOLS,
  type ExecuteCommand,
  type Scope,
  type Tenant,
} from '@rota/contracts';
import { CONFIG, LOGGER, type Logger } from '@rota/service-kit';
import type { SessionConfig } from '../config';
import { callableCandidates } from '../tools/callable-name';
import { ToolsRepository } from '../tools/tools.repository';
import type { CallContext, EarlyCall, Resolved } from './executors';
import { CatalogSchemas, checkMetaArgs, type ArgsCheck } from './validate';

/**
 * The scope each tool action needs beyond the route's own `tools:execute`.
 *
 * Reading connection state needs what `GET /v1/connections` needs
 * (`servers:read`); changing connections or saved profiles needs what
 * `POST /v1/connections` needs (`connections:write`). Everything else,
 * `codespar_discover` included, runs on `tools:execute`.
 *
 * The gate is checked on every call. Reading connections through
 * `codespar_manage_connections` is always refused without `servers:read`,
 * as `GET /v1/connections` is; the other actions are refused only when the
 * deployment sets `META_TOOL_ACTION_SCOPES_ENFORCE=true`.
 */
const MANAGE_CONNECTIONS: Record<string, Scope> = {
  list: 'servers:read',
  status: 'servers:read',
  get_profile: 'servers:read',
  initiate: 'connections:write',
  connect_start: 'connections:write',
  connect_finish: 'connections:write',
  save_profile: 'connections:write',
};

export function requiredScope(tool: string, input: Record<string, unknown>): Scope {
  if (tool === 'codespar_manage_connections') {
    const action = typeof input.action === 'string' ? input.action : 'list';
    return MANAGE_CONNECTIONS[action] ?? 'connections:write';
  }
  return 'tools:execute';
}

/** Whether the action's scope is checked whatever `META_TOOL_ACTION_SCOPES_ENFORCE` says: reading connection state. */
export function alwaysGated(tool: string, scope: Scope): boolean {
  return tool === 'codespar_manage_connections' && scope === 'servers:read';
}

const META_SCHEMAS = new Map(META_TOOLS.map((t) => [t.name, t]));
const META_MONEY = new Map(META_TOOLS.map((t) => [t.name, t.money]));

/** Whether a call may move money: its row is then flushed to disk before the answer. Raw provider tools count as money-moving. */
export function movesMoney(r: Resolved): boolean {
  if (r.kind === 'raw') return true;
  return r.name !== LIST_TOOLS_TOOL && META_MONEY.get(r.name) !== 'none';
}

/**
 * A key acts in one environment only: meta-tool arguments may repeat the
 * key's `environment` but never name the other one.
 */
export function otherEnvironment(input: Record<string, unknown>, tenant: Tenant): boolean {
  return input.environment !== undefined && input.environment !== tenant.environment;
}

/**
 * Finds the tool a name means and checks its arguments: `codespar_list_tools`,
 * the published meta-tools, then the catalog by `server/tool` limited to the
 * context's providers; coercion, then every keyword of the tool's schema;
 * the per-action scope.
 */
@Injectable()
export class ToolResolver {
  private readonly catalogSchemas = new CatalogSchemas();

  constructor(
    @Inject(CONFIG) private readonly config: SessionConfig,
    private readonly tools: ToolsRepository,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  /** A meta-tool's arguments, checked once when the request arrives: the prefetches and checkArgs share the result. */
  early(cmd: ExecuteCommand, tenant: Tenant): { metaArgs: ArgsCheck | null; early: EarlyCall } {
    const metaArgs = isMetaToolName(cmd.tool) ? checkMetaArgs(cmd.input, META_SCHEMAS.get(cmd.tool)!) : null;
    const usable = metaArgs?.ok && !otherEnvironment(metaArgs.value, tenant) ? metaArgs : null;
    return { metaArgs, early: { cmd, tenant, metaArgs: usable } };
  }

  async resolve(
    cmd: ExecuteCommand,
    ctx: CallContext,
  ): Promise<Resolved | { kind: 'ambiguous'; candidates: string[] } | null> {
    if (cmd.tool === LIST_TOOLS_TOOL) return { kind: 'rota', name: LIST_TOOLS_TOOL, schema: null };
    if (isMetaToolName(cmd.tool)) {
      const schema = META_SCHEMAS.get(cmd.tool)!;
      return isActingMetaTool(cmd.tool)
        ? { kind: 'rail', name: cmd.tool, schema }
        : { kind: 'rota', name: cmd.tool, schema };
    }
    // server/tool, or the aliases server.tool and SERVER_TOOL; the longest
    // server id that names an existing tool wins.
    let found: { rank: number; name: string; server: string; schema: unknown } | null = null;
    for (const c of callableCandidates(cmd.tool, ctx.servers)) {
      if (found && c.rank < found.rank) break;
      const tool = await this.tools.findTool(c.server, c.tool, ctx.tenant.project_id);
      if (!tool) continue;
      // Two servers of the same specificity both have such a tool: refuse rather than guess.
      if (found) return { kind: 'ambiguous', candidates: [found.name, `${tool.serverId}/${tool.toolName}`] };
      found = {
        rank: c.rank,
        name: `${tool.serverId}/${tool.toolName}`,
        server: tool.serverId,
        schema: tool.inputSchema,
      };
    }
    return found ? { kind: 'raw', name: found.name, server: found.server, schema: found.schema } : null;
  }

  /** Coercion, then every keyword of the tool's schema. */
  checkArgs(resolved: Resolved, input: Record<string, unknown>, metaArgs: ArgsCheck | null): ArgsCheck {
    if (resolved.kind === 'raw') {
      const checked = this.catalogSchemas.check(input, resolved.schema);
      // A catalog defect, not the caller's: the call goes on with coerced arguments.
      if (checked.ok && checked.unchecked)
        this.log.warn(
          { tool: resolved.name, reason: checked.unchecked },
          'catalog input schema does not compile; arguments not validated',
        );
      return checked;
    }
    if (resolved.schema === null) return { ok: true, value: { ...input } };
    return metaArgs ?? checkMetaArgs(input, resolved.schema);
  }

  /** The per-action scope gate (403), only when enforced. */
  checkScope(tool: string, input: Record<string, unknown>, scopes: readonly string[]): void {
    const scope = requiredScope(tool, input);
    if ((this.config.META_TOOL_ACTION_SCOPES_ENFORCE || alwaysGated(tool, scope)) && !scopes.includes(scope)) {
      throw new AppError('forbidden', `API key does not have the '${scope}' scope.`);
    }
  }
}
