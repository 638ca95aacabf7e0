// Path A benchmark: POST /v1/tools/search through the gateway in fallback
// mode (no model key) at 50 concurrent, against the bare transport round trip
// measured in the same run, plus the in-process cost of one classification.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, fmt, load, table } from './lib/common.mjs';
import { benchStack, createKey } from './lib/stack.mjs';

const require = createRequire(import.meta.url);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const INTENTS = [
  'quero cobrar um cliente via pix',
  'emitir nota fiscal de serviço para o cliente',
  'send a whatsapp message to the buyer',
  'necesito generar una guía de envío',
  'qual o saldo da minha carteira?',
];

function inProcess() {
  const { classifyLexical } = require(join(ROOT, 'apps/search/dist/tools-search/lexical.js'));
  require(join(ROOT, 'packages/lexicon/dist/index.js')).warmUp();
  for (let i = 0; i < 2000; i++) classifyLexical(INTENTS[i % INTENTS.length], 3);
  const samples = [];
  for (let i = 0; i < 20000; i++) {
    const t0 = process.hrtime.bigint();
    classifyLexical(INTENTS[i % INTENTS.length], 3);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length * 0.5)], p99: samples[Math.floor(samples.length * 0.99)] };
}

export async function pathA() {
  const cls = inProcess();
  const key = createKey('servers:read');
  const stack = await benchStack();
  try {
    // Alternate the two routes over several rounds and keep the median of
    // each, so a noisy neighbour on a shared machine skews both alike.
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    const t = [];
    const q = [];
    for (let i = 0; i < rounds; i++) {
      t.push(await load({ url: `${stack.base}/bench/transport`, connections: 50, seconds: SECONDS }));
      q.push(
        await load({
          url: `${stack.base}/v1/tools/search`,
          method: 'POST',
          headers: { authorization: `Bearer ${key}` },
          body: { intent: INTENTS[i % INTENTS.length], limit: 3 },
          connections: 50,
          seconds: SECONDS,
        }),
      );
    }
    const median = (xs, f) => xs.map(f).sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const transport = { rps: median(t, (x) => x.rps), p50: median(t, (x) => x.p50), p99: median(t, (x) => x.p99) };
    const search = { rps: median(q, (x) => x.rps), p50: median(q, (x) => x.p50), p99: median(q, (x) => x.p99) };
    console.log(
      `\n## Path A: POST /v1/tools/search (fallback mode) vs bare transport round trip, 50 concurrent (median of ${rounds} alternating rounds)`,
    );
    table([
      {
        route: 'bare transport (GET /bench/transport)',
        'req/s': fmt(transport.rps, 0),
        'p50 ms': transport.p50,
        'p99 ms': transport.p99,
        ratio: '1.00',
      },
      {
        route: 'POST /v1/tools/search',
        'req/s': fmt(search.rps, 0),
        'p50 ms': search.p50,
        'p99 ms': search.p99,
        ratio: fmt(search.rps / transport.rps, 2),
      },
    ]);
    console.log(`lexical classification in process: p50 ${fmt(cls.p50, 3)} ms, p99 ${fmt(cls.p99, 3)} ms`);
  } finally {
    await stack.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await pathA();
  process.exit(0);
}
