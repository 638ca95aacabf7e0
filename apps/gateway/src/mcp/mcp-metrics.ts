import { counter } from '@rota/service-kit';
import { CALLABLE_OVER_MCP } from './mcp-server';

/** JSON-RPC methods counted under their own name; anything else is `other`, so a client cannot add series. */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'notifications/initialized',
  'notifications/cancelled',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'prompts/list',
]);

// Registered when the MCP controller loads, so the series is exported before the first message.
const total = counter({
  name: 'rota_mcp_requests_total',
  help: 'JSON-RPC messages the MCP endpoints received, by method (`other` for unknown ones, `none` for responses) and, for tools/call, the tool (a published meta-tool, or `other`).',
  labelNames: ['method', 'tool'],
});

/** The labels of one MCP message: bounded sets only (method names from the protocol, tool names from the published list). */
export function mcpLabels(body: unknown): { method: string; tool: string } {
  const msg =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as { method?: unknown; params?: { name?: unknown } })
      : {};
  const method = typeof msg.method !== 'string' ? 'none' : KNOWN_METHODS.has(msg.method) ? msg.method : 'other';
  if (method !== 'tools/call') return { method, tool: '' };
  const name = msg.params?.name;
  return { method, tool: typeof name === 'string' && CALLABLE_OVER_MCP.has(name) ? name : 'other' };
}

/** Counts one message received on an MCP endpoint. */
export function countMcpMessage(body: unknown): void {
  total.inc(mcpLabels(body));
}
