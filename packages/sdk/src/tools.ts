/**
 * What the framework adapters share: a session's meta-tools as plain
 * definitions, and one way to run a call and turn its answer into text a
 * model reads.
 */
import type { ExecuteResponse, Rota, Session } from './index.js';

/** One tool a model may call: a published meta-tool, with its JSON Schema. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** The session's meta-tools (`GET /v1/meta-tools.json`), optionally only some of them. Throws `RotaError`. */
export async function metaToolDefinitions(rota: Rota, only?: readonly string[]): Promise<ToolDefinition[]> {
  const doc = await rota.metaTools.list();
  return doc.tools
    .filter((t) => !only || only.includes(t.name))
    .map((t) => ({ name: t.name, description: t.description, inputSchema: { ...t.inputSchema, type: 'object' } }));
}

/**
 * Runs a model's tool call through the session. A refusal is data, never a
 * throw (the model reads it like any tool failure and may change course);
 * arguments that are not a JSON object are refused the same way.
 */
export async function runToolCall(session: Session, name: string, args: unknown): Promise<ExecuteResponse> {
  const input = typeof args === 'string' ? parseArguments(args) : args;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      success: false,
      data: { code: 'invalid_arguments', message: 'the tool arguments must be a JSON object' },
      error: 'the tool arguments must be a JSON object',
      duration: 0,
      server: null,
      tool: name,
      tool_call_id: null,
      called_at: new Date().toISOString(),
      status: 0,
      code: 'invalid_arguments',
      requestId: null,
      replayed: false,
      idempotencyKey: '',
    };
  }
  return session.execute(name, input as Record<string, unknown>);
}

function parseArguments(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return null;
  }
}

/** What the model is shown of an answer: success and data, or the refusal's code and message. */
export function toolResultText(r: ExecuteResponse): string {
  return JSON.stringify(
    r.success ? { success: true, data: r.data } : { success: false, code: r.code, error: r.error, data: r.data },
  );
}
