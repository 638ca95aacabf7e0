/**
 * `@rota/sdk/anthropic`: a session's meta-tools as Anthropic Messages tools,
 * and their `tool_use` blocks run through the session.
 *
 * ```ts
 * const tools = anthropicTools(await metaToolDefinitions(rota));
 * const message = await anthropic.messages.create({ model, max_tokens, messages, tools });
 * const results = await Promise.all(message.content.filter((b) => b.type === 'tool_use').map((b) => runAnthropicToolUse(session, b)));
 * ```
 */
import type { Tool, ToolResultBlockParam, ToolUseBlock } from '@anthropic-ai/sdk/resources/messages';
import type { Session } from './index.js';
import { runToolCall, toolResultText, type ToolDefinition } from './tools.js';

export { metaToolDefinitions, type ToolDefinition } from './tools.js';

/** The definitions as `tools` for `messages.create`. */
export function anthropicTools(defs: readonly ToolDefinition[]): Tool[] {
  return defs.map((d) => ({
    name: d.name,
    description: d.description,
    input_schema: { ...d.inputSchema, type: 'object' },
  }));
}

/** Runs one `tool_use` block through the session and answers the `tool_result` block for the next user message. */
export async function runAnthropicToolUse(session: Session, block: ToolUseBlock): Promise<ToolResultBlockParam> {
  const r = await runToolCall(session, block.name, block.input);
  return {
    type: 'tool_result',
    tool_use_id: block.id,
    content: toolResultText(r),
    ...(r.success ? {} : { is_error: true }),
  };
}
