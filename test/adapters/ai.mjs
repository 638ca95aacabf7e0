// generateText from the Vercel AI SDK with a Rota session's meta-tools, on the
// OpenAI provider's Chat Completions model. Env: ROTA_URL, ROTA_API_KEY,
// MODEL_BASE_URL. Prints what happened as JSON.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs } from 'ai';
import { Rota } from '../../packages/sdk/dist/esm/index.js';
import { aiTools, metaToolDefinitions } from '../../packages/sdk/dist/esm/ai.js';

const rota = new Rota({ apiKey: process.env.ROTA_API_KEY, baseUrl: process.env.ROTA_URL });
const provider = createOpenAI({ apiKey: 'sk-fake', baseURL: process.env.MODEL_BASE_URL });
const session = await rota.sessions.create('user_adapters', { servers: ['asaas'] });
const tools = await aiTools(session, await metaToolDefinitions(rota));
const result = await generateText({
  model: provider.chat('gpt-fake'),
  prompt: 'Send the customer a WhatsApp message about their order.',
  tools,
  stopWhen: stepCountIs(3),
  maxRetries: 0,
});
await session.close();
const toolResults = result.steps.flatMap((s) => s.toolResults.map((r) => ({ toolName: r.toolName, output: r.output })));
console.log(JSON.stringify({ tools: Object.keys(tools).length, results: toolResults, final: result.text }));
