// An agent loop on the OpenAI SDK whose tools are a Rota session's meta-tools.
// Env: ROTA_URL, ROTA_API_KEY, MODEL_BASE_URL. Prints what happened as JSON.
import OpenAI from 'openai';
import { Rota } from '../../packages/sdk/dist/esm/index.js';
import { metaToolDefinitions, openaiTools, runOpenAIToolCall } from '../../packages/sdk/dist/esm/openai.js';

const rota = new Rota({ apiKey: process.env.ROTA_API_KEY, baseUrl: process.env.ROTA_URL });
const openai = new OpenAI({ apiKey: 'sk-fake', baseURL: process.env.MODEL_BASE_URL, maxRetries: 0 });
const session = await rota.sessions.create('user_adapters', { servers: ['asaas'] });
const tools = openaiTools(await metaToolDefinitions(rota));
const messages = [{ role: 'user', content: 'Send the customer a WhatsApp message about their order.' }];
const results = [];
for (let turn = 0; turn < 3; turn++) {
  const completion = await openai.chat.completions.create({ model: 'gpt-fake', messages, tools });
  const message = completion.choices[0].message;
  messages.push(message);
  if (!message.tool_calls?.length) break;
  for (const call of message.tool_calls) {
    const result = await runOpenAIToolCall(session, call);
    results.push(result);
    messages.push(result);
  }
}
await session.close();
console.log(JSON.stringify({ tools: tools.length, results, final: messages[messages.length - 1] }));
