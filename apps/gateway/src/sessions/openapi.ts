import {
  ConnectionCreateRequest,
  ConnectionDeleted,
  ConnectionList,
  ConnectionView,
  ExecuteRequest,
  ExecuteResult,
  SessionClosed,
  SessionCreated,
  SessionCreateRequest,
  SessionView,
} from '@rota/contracts';
import { z } from 'zod';
import type { RouteDoc } from '../openapi/routes';

/** A JSON-RPC 2.0 message or batch, as MCP's Streamable HTTP transport carries it. */
const JsonRpcMessage = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number()]).optional(),
  method: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});
const JsonRpcBody = z.union([JsonRpcMessage, z.array(JsonRpcMessage)]);

const mcpPost = (path: string, summary: string, errors: number[]): RouteDoc => ({
  method: 'post',
  path,
  summary,
  tag: 'mcp',
  scope: 'tools:execute',
  request: JsonRpcBody,
  response: JsonRpcBody,
  errors,
  success: 200,
});
const mcpRefused = (method: 'get' | 'delete', path: string): RouteDoc => ({
  method,
  path,
  summary: 'Not available: the MCP endpoints are stateless (405 method_not_allowed, Allow: POST)',
  tag: 'mcp',
  scope: 'tools:execute',
  errors: [401, 403, 405],
  success: 405,
});

/** Sessions, execute, connections and the two MCP transports. */
export const SESSION_ROUTES: RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/sessions',
    summary: 'Open a session over 1 to 20 providers',
    tag: 'sessions',
    scope: 'sessions:create',
    request: SessionCreateRequest,
    response: SessionCreated,
    errors: [400, 401, 403, 503, 504],
    success: 201,
  },
  { method: 'get', path: '/v1/sessions/{id}', summary: 'Read a session of the key’s project and environment', tag: 'sessions', scope: 'sessions:create', response: SessionView, errors: [401, 403, 404] },
  {
    method: 'delete',
    path: '/v1/sessions/{id}',
    summary: 'Close a session (idempotent: keeps the first closed_at)',
    tag: 'sessions',
    scope: 'sessions:create',
    response: SessionClosed,
    errors: [401, 403, 404],
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/execute',
    summary: 'Run a meta-tool, codespar_list_tools or a catalog tool (server/tool) in the session',
    tag: 'sessions',
    scope: 'tools:execute',
    request: ExecuteRequest,
    response: ExecuteResult,
    errors: [400, 401, 403, 404, 409, 503, 504],
  },
  {
    method: 'post',
    path: '/v1/connections',
    summary: 'Store a provider’s credentials for the key’s project and environment (201 new, 200 replaced)',
    tag: 'connections',
    scope: 'connections:write',
    request: ConnectionCreateRequest,
    response: ConnectionView,
    errors: [400, 401, 403],
    success: 201,
  },
  { method: 'get', path: '/v1/connections', summary: 'List the connections of the key’s project and environment', tag: 'connections', scope: 'servers:read', response: ConnectionList, errors: [400, 401, 403] },
  { method: 'delete', path: '/v1/connections/{id}', summary: 'Delete a connection and its credentials', tag: 'connections', scope: 'connections:write', response: ConnectionDeleted, errors: [401, 403, 404] },
  mcpPost('/mcp', 'MCP (Streamable HTTP, stateless): the project’s agent transport; tools/list answers the 15 published meta-tools', [401, 403]),
  mcpPost('/v1/sessions/{id}/mcp', 'MCP (Streamable HTTP, stateless) bound to one session', [401, 403, 404]),
  mcpRefused('get', '/mcp'),
  mcpRefused('delete', '/mcp'),
  mcpRefused('get', '/v1/sessions/{id}/mcp'),
  mcpRefused('delete', '/v1/sessions/{id}/mcp'),
];
