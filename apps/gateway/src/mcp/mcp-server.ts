import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import {
  AppError,
  discoverOutputSchema,
  IDEMPOTENCY_KEY,
  LIST_TOOLS_TOOL,
  MCP_INSTRUCTIONS,
  META_TOOL_ANNOTATIONS,
  metaToolsDocument,
  type ExecuteResult,
} from '@rota/contracts';

/**
 * What `tools/list` answers: exactly the 15 published meta-tools, the same
 * definitions as /meta-tools.json, with their behaviour hints and, for
 * discover, the shape of its result.
 */
export const PUBLISHED_TOOLS: Tool[] = metaToolsDocument().tools.map((t) => ({
  ...t,
  annotations: META_TOOL_ANNOTATIONS[t.name],
  ...(t.name === 'codespar_discover' ? { outputSchema: discoverOutputSchema() } : {}),
})) as unknown as Tool[];

/** Names the MCP transports accept: the published meta-tools plus the built-in `codespar_list_tools`. */
export const CALLABLE_OVER_MCP: ReadonlySet<string> = new Set([...PUBLISHED_TOOLS.map((t) => t.name), LIST_TOOLS_TOOL]);

export type ExecuteFn = (
  tool: string,
  input: Record<string, unknown>,
  idempotencyKey: string | undefined,
  approvalId: string | undefined,
) => Promise<{ result: ExecuteResult; replayed: boolean }>;

/** The `_meta` key that marks a result replayed from an earlier call with the same idempotency key (HTTP says `Idempotent-Replayed: true`). */
export const REPLAYED_META = 'rota/replayed';

const APPROVAL_ID = /^[A-Za-z0-9_-]{1,200}$/;

function toolResult(payload: Record<string, unknown>, isError: boolean): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload, isError };
}

/**
 * One MCP server for one HTTP request. The low-level `Server` is used rather
 * than `McpServer` because the tool definitions are served as the JSON Schema
 * the contracts generate from their zod inputs, the very bytes of
 * `/meta-tools.json`, not converted again by the SDK.
 *
 * A call that names no tool at all is a JSON-RPC `-32602` (`Unknown tool`),
 * as the MCP specification's error handling asks: there is nothing the model
 * could correct by reading a result. A catalog tool (`server/tool`) exists
 * but is not served here: that, and every other refusal of a call, is a tool
 * result with `isError: true` and a code, so agents read it like any tool
 * answer and can act on it.
 */
export function createMcpServer(execute: ExecuteFn): Server {
  const server = new Server(
    { name: 'rota', version: '0.1.0' },
    { capabilities: { tools: { listChanged: false } }, instructions: MCP_INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: PUBLISHED_TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    if (!CALLABLE_OVER_MCP.has(name) && !name.includes('/')) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${name}. This server serves the tools tools/list names and ${LIST_TOOLS_TOOL}.`,
      );
    }
    if (!CALLABLE_OVER_MCP.has(name)) {
      return toolResult(
        {
          code: 'tool_not_published',
          message: `${name} is not published on this transport; it accepts the published meta-tools and ${LIST_TOOLS_TOOL}. Catalog tools run only through POST /v1/sessions/{id}/execute.`,
          tool: name,
        },
        true,
      );
    }
    // MCP carries the idempotency key in the request's _meta, as HTTP does in a header.
    const key = request.params._meta?.idempotency_key;
    if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
      return toolResult(
        {
          code: 'invalid_idempotency_key',
          message: 'params._meta.idempotency_key must be 1 to 255 printable ASCII characters.',
        },
        true,
      );
    }
    // A retried call that needed an approval names it here, as HTTP does in Rota-Approval-Id.
    const approval = request.params._meta?.approval_id;
    if (approval !== undefined && (typeof approval !== 'string' || !APPROVAL_ID.test(approval))) {
      return toolResult(
        { code: 'invalid_body', message: 'params._meta.approval_id must be an approval id (apr_…).' },
        true,
      );
    }
    try {
      const { result, replayed } = await execute(
        name,
        (request.params.arguments ?? {}) as Record<string, unknown>,
        key,
        approval,
      );
      const answer = toolResult(result as unknown as Record<string, unknown>, !result.success);
      return replayed ? { ...answer, _meta: { [REPLAYED_META]: true } } : answer;
    } catch (err) {
      // A policy refusal carries the same fields as over HTTP, and no code.
      if (err instanceof AppError && err.code === 'policy_denied') return toolResult({ ...(err.details ?? {}) }, true);
      if (err instanceof AppError)
        return toolResult(
          {
            ...(err.details ?? {}),
            code: err.code,
            message: err.status >= 500 ? 'The call could not be completed; try again.' : err.message,
          },
          true,
        );
      throw err;
    }
  });
  return server;
}
