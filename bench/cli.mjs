// `pnpm bench cli`: how fast the `rota` executable starts, against `node -e 0`
// measured in the same run. Two figures: `rota --version` (start to exit) and
// the MCP stdio handshake (start of `rota mcp stdio` to the answer of
// `tools/list`, after `initialize`) through the relay to a private gateway.
// Both for the packed CLI (packages/cli/pack, what users install; built here)
// and for the checkout's build (packages/cli/dist).
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './lib/common.mjs';
import { benchStack, createKey } from './lib/stack.mjs';

const RUNS = 15;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function timeExit(args) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - t0) / 1e6)
        : reject(new Error(`${args.join(' ')} exited ${code}`)),
    );
  });
}

/** Spawns the relay, sends initialize, then tools/list; resolves to ms until the tools/list answer. */
function timeHandshake(bin, env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin, 'mcp', 'stdio'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let buf = '';
    const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('no handshake within 30 s'));
    }, 30_000);
    child.stdout.on('data', (c) => {
      buf += c.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (msg.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (msg.id === 2) {
          const ms = Number(process.hrtime.bigint() - t0) / 1e6;
          clearTimeout(timer);
          if (msg.result?.tools?.length !== 15)
            reject(new Error(`tools/list answered ${JSON.stringify(msg).slice(0, 200)}`));
          child.stdin.end();
          child.once('exit', () => resolve(ms));
        }
      }
    });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    });
  });
}

/** The same three requests straight from this process: what the gateway itself takes for the handshake. */
async function timeDirect(base, key) {
  const t0 = process.hrtime.bigint();
  const headers = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const post = async (body, extra = {}) => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...headers, ...extra },
      body: JSON.stringify(body),
    });
    await res.text();
    return res;
  };
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  const sid = init.headers.get('mcp-session-id');
  const extra = sid ? { 'mcp-session-id': sid } : {};
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, extra);
  await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, extra);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export async function cliBench() {
  execFileSync(process.execPath, [join(ROOT, 'packages/cli/scripts/bundle.mjs')], { stdio: 'inherit' });
  const packed = join(ROOT, 'packages/cli/pack/dist/bin.js');
  const checkout = join(ROOT, 'packages/cli/dist/bin.js');
  const stack = await benchStack({ ROTA_DEV_MODE: 'true' }, ['search', 'session']);
  try {
    const key = createKey('servers:read,sessions:create,tools:execute');
    const env = { ROTA_URL: stack.base, ROTA_API_KEY: key };
    const base = [];
    const direct = [];
    const version = { packed: [], checkout: [] };
    const stdio = { packed: [], checkout: [] };
    // Interleaved, so a busy moment of the machine weighs on every figure alike.
    for (let i = 0; i < RUNS + 2; i++) {
      const b = await timeExit(['-e', '0']);
      const d = await timeDirect(stack.base, key);
      const vp = await timeExit([packed, '--version']);
      const vc = await timeExit([checkout, '--version']);
      const sp = await timeHandshake(packed, env);
      const sc = await timeHandshake(checkout, env);
      if (i < 2) continue; // warm-up
      base.push(b);
      direct.push(d);
      version.packed.push(vp);
      version.checkout.push(vc);
      stdio.packed.push(sp);
      stdio.checkout.push(sc);
    }
    const b = median(base);
    const d = median(direct);
    const row = (label, xs, gateway = 0) => {
      const m = median(xs);
      const own = gateway
        ? `   (${(m - b - gateway).toFixed(0)} ms beyond node -e 0 and the gateway's ${gateway.toFixed(0)} ms)`
        : '';
      console.log(
        `  ${label.padEnd(52)} ${m.toFixed(0).padStart(5)} ms   node -e 0 + ${(m - b).toFixed(0).padStart(4)} ms${own}`,
      );
    };
    console.log(`\ncli: start times, median of ${RUNS} runs (target: within node -e 0 + 200 ms)`);
    console.log(`  ${'node -e 0'.padEnd(52)} ${b.toFixed(0).padStart(5)} ms`);
    console.log(`  ${'the same handshake over HTTP from this process'.padEnd(52)} ${d.toFixed(0).padStart(5)} ms`);
    row('rota --version (packed)', version.packed);
    row('rota --version (checkout build)', version.checkout);
    row('rota mcp stdio: initialize + tools/list (packed)', stdio.packed, d);
    row('rota mcp stdio: initialize + tools/list (checkout)', stdio.checkout, d);
  } finally {
    await stack.close();
  }
}
