/**
 * `@rota/sdk/openai`: a session's meta-tools as OpenAI Chat Completions
 * tools, and their calls run through the session.
 *
 * ```ts
 * const tools = openaiTools(await metaToolDefinitions(rota));
 * const completion = await openai.chat.completions.create({ model, messages, tools });
 * for (const call of completion.choices[0].message.tool_calls ?? []) messages.push(await runOpenAIToolCall(session, call));
 * ```
 */
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import type { Session } from './index.js';
import { runToolCall, toolResultText, type ToolDefinition } from './tools.js';

export { metaToolDefinitions, type ToolDefinition } from './tools.js';

/** The definitions as `tools` for `chat.completions.create`. */
export function openaiTools(defs: readonly ToolDefinition[]): ChatCompletionFunctionTool[] {
  return defs.map((d) => ({
    type: 'function',
    function: { name: d.name, description: d.description, parameters: d.inputSchema },
  }));
}

/** Runs one tool call of an assistant message through the session and answers the `tool` message to append. */
export async function runOpenAIToolCall(
  session: Session,
  call: ChatCompletionMessageToolCall,
): Promise<ChatCompletionToolMessageParam> {
  if (call.type !== 'function')
    return {
      role: 'tool',
      tool_call_id: call.id,
      content: JSON.stringify({ success: false, code: 'unsupported_tool_type' }),
    };
  const r = await runToolCall(session, call.function.name, call.function.arguments);
  return { role: 'tool', tool_call_id: call.id, content: toolResultText(r) };
}
