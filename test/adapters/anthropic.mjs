// An agent loop on the Anthropic SDK whose tools are a Rota session's meta-tools.
// Env: ROTA_URL, ROTA_API_KEY, MODEL_BASE_URL. Prints what happened as JSON.
import Anthropic from '@anthropic-ai/sdk';
import { Rota } from '../../packages/sdk/dist/esm/index.js';
import { anthropicTools, metaToolDefinitions, runAnthropicToolUse } from '../../packages/sdk/dist/esm/anthropic.js';

const rota = new Rota({ apiKey: process.env.ROTA_API_KEY, baseUrl: process.env.ROTA_URL });
const anthropic = new Anthropic({ apiKey: 'sk-ant-fake', baseURL: process.env.MODEL_BASE_URL, maxRetries: 0 });
const session = await rota.sessions.create('user_adapters', { servers: ['asaas'] });
const tools = anthropicTools(await metaToolDefinitions(rota));
const messages = [{ role: 'user', content: 'Send the customer a WhatsApp message about their order.' }];
const results = [];
for (let turn = 0; turn < 3; turn++) {
  const message = await anthropic.messages.create({ model: 'claude-fake', max_tokens: 512, messages, tools });
  messages.push({ role: 'assistant', content: message.content });
  const uses = message.content.filter((b) => b.type === 'tool_use');
  if (uses.length === 0) break;
  const blocks = await Promise.all(uses.map((b) => runAnthropicToolUse(session, b)));
  results.push(...blocks);
  messages.push({ role: 'user', content: blocks });
}
await session.close();
console.log(JSON.stringify({ tools: tools.length, results, final: messages[messages.length - 1] }));
