import { HttpException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { RotaRouteConfig } from '../http/route';

/**
 * What the MCP endpoints answer in JSON-RPC rather than in the REST
 * envelope: a body that is not JSON (`-32700`) and a `tools/call` whose
 * params are not a call (`-32602`). Both are refused before the MCP SDK sees
 * the message, which would otherwise answer the first in the REST envelope
 * (the body parser runs before any handler) and the second with an internal
 * error carrying a raw validation dump.
 */

/** The operation ids whose errors are JSON-RPC messages. */
const MCP_OPERATIONS = new Set(['mcpProject', 'mcpSession']);

type JsonRpcId = string | number | null;

export function jsonRpcError(id: JsonRpcId, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id });
}

/** True for the POST routes that speak MCP. */
export function isMcpRequest(req: FastifyRequest): boolean {
  const def = (req.routeOptions?.config as RotaRouteConfig | undefined)?.rota;
  return def !== undefined && MCP_OPERATIONS.has(def.operationId);
}

/**
 * The body parser's refusal of a body that is not JSON (empty included).
 * Nest hands Fastify's error over as a 400 `HttpException` that keeps only
 * Fastify's message, which for both cases names the JSON content type.
 */
export function isJsonParseFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof SyntaxError || code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return true;
  return (
    err instanceof HttpException &&
    err.getStatus() === 400 &&
    /content-type is set to 'application\/json'/.test(err.message)
  );
}

export const PARSE_ERROR_BODY = jsonRpcError(null, -32700, 'Parse error: the request body is not valid JSON.');

/**
 * A readable `-32602` for a `tools/call` request whose params cannot name a
 * call, or null when the message is fine (or not a `tools/call`).
 */
export function invalidToolCall(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || (body as { method?: unknown }).method !== 'tools/call') return null;
  const { id, params } = body as { id?: JsonRpcId; params?: unknown };
  const reply = (message: string) => jsonRpcError(id ?? null, -32602, `Invalid params: ${message}`);
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return reply('tools/call needs params with the name of the tool to call (see tools/list).');
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (name === undefined) return reply('tools/call needs params.name, the name of the tool to call (see tools/list).');
  if (typeof name !== 'string' || name.length === 0)
    return reply('params.name must be a non-empty string naming a tool (see tools/list).');
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return reply('params.arguments must be an object of the tool’s input fields.');
  return null;
}

/**
 * Parses `ROTA_MCP_ALLOWED_ORIGINS`: a comma-separated list of origins
 * (`https://app.example.com`), or `*` for any.
 */
export function parseAllowedOrigins(raw: string): { any: boolean; origins: Set<string> } {
  const items = raw
    .split(',')
    .map((s) => s.trim().replace(/\/+$/, '').toLowerCase())
    .filter(Boolean);
  return { any: items.includes('*'), origins: new Set(items.filter((i) => i !== '*')) };
}

/**
 * Streamable HTTP asks servers to check `Origin`, so a web page cannot
 * drive a local gateway through the browser (DNS rebinding). A request
 * without `Origin` (any non-browser client) passes; one with an Origin
 * passes only when the list names it.
 */
export function originAllowed(origin: string | undefined, allowed: { any: boolean; origins: Set<string> }): boolean {
  if (origin === undefined) return true;
  if (allowed.any) return true;
  return allowed.origins.has(origin.trim().replace(/\/+$/, '').toLowerCase());
}
