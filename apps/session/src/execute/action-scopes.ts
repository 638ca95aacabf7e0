import type { Scope } from '@rota/contracts';

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
