/**
 * `@rota/sdk/ai`: a session's meta-tools as Vercel AI SDK tools (`ai`, an
 * optional peer dependency), executed through the session when the model
 * calls them.
 *
 * ```ts
 * const result = await generateText({ model, prompt, tools: await aiTools(session, await metaToolDefinitions(rota)), stopWhen: stepCountIs(3) });
 * ```
 */
import type { JSONSchema7, ToolSet } from 'ai' with { 'resolution-mode': 'import' };
import type { Session } from './index.js';
import { runToolCall, type ToolDefinition } from './tools.js';

export { metaToolDefinitions, type ToolDefinition } from './tools.js';

/**
 * The definitions as a `tools` set whose `execute` runs each call in the
 * session and answers the execute body (a refusal included). Async because
 * `ai` ships ES modules only, which the CommonJS build loads with `import()`.
 */
export async function aiTools(session: Session, defs: readonly ToolDefinition[]): Promise<ToolSet> {
  const { dynamicTool, jsonSchema } = await import('ai');
  const tools: ToolSet = {};
  for (const d of defs) {
    tools[d.name] = dynamicTool({
      description: d.description,
      inputSchema: jsonSchema(d.inputSchema as JSONSchema7),
      execute: async (input) => {
        const r = await runToolCall(session, d.name, input);
        return r.success
          ? { success: true, data: r.data }
          : { success: false, code: r.code, error: r.error, data: r.data };
      },
    });
  }
  return tools;
}
