import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../apps/sandbox/src';
import { startStack, type Stack } from './helpers/stack';

jest.setTimeout(300_000);

const ROOT = join(__dirname, '..');
const DOCS_URL = 'http://127.0.0.1:3000';

/** The fenced bash blocks between a heading and the next heading of the same level. */
function bashBlocks(file: string, heading: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`${file}: no heading "${heading}"`);
  const level = heading.match(/^#+/)![0];
  const rest = text.slice(start + heading.length + 1);
  const next = rest.search(new RegExp(`^${level} `, 'm'));
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Every line of a transcript that is one JSON object. */
function jsonLines(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

function bash(script: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * docs/connections.md's walk-through, run as written against a fresh stack
 * with the demo catalog and the sandbox. The one change is the gateway
 * address: the stack listens on a random port instead of 3000, so the script
 * text is rewritten, and `curl` rewrites the one address it learns at run
 * time (the callback URL the sandbox redirects to, built from the public URL).
 */
describe('docs/connections.md walk-through', () => {
  let stack: Stack;
  let sandbox: Sandbox;

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'packages/cli/dist/main.js')))
      throw new Error('build the CLI first: pnpm --filter @rota/cli build');
    sandbox = await startSandbox({ port: 0 });
    stack = await startStack({
      demoCatalog: true,
      env: {
        ROTA_SANDBOX_URL: sandbox.url,
        ROTA_RPC_TIMEOUT_MS: '15000',
        ROTA_PROVIDER_TIMEOUT_MS: '3000',
        ROTA_LOCAL_EMBEDDER: 'hash',
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
  });

  it('live refuses with what to connect; test connects Asaas and Mercado Pago from a session and charges', async () => {
    const [script] = bashBlocks('docs/connections.md', '## A scripted walk-through');
    expect(script).toBeDefined();
    const shim = `curl() { local from='${DOCS_URL}' to='${stack.url}' a=() x; for x in "$@"; do a+=("\${x//"$from"/$to}"); done; command curl "\${a[@]}"; }\n`;
    const env: Record<string, string> = { ...stack.env, ROTA_DEBUG: '' };
    delete env.ROTA_API_KEY;
    delete env.ROTA_PROFILE;
    const charges = sandbox.control.counters().charges_created;
    const r = await bash(shim + script!.split(DOCS_URL).join(stack.url), env);
    expect({ code: r.code, stderr: r.stderr, stdout: r.code === 0 ? '' : r.stdout }).toEqual({
      code: 0,
      stderr: '',
      stdout: '',
    });
    const out = jsonLines(r.stdout);

    expect(out[0]).toMatchObject({
      error: 'eligibility_empty',
      detail: expect.stringMatching(/would fix it: .*asaas/),
    });
    expect(out.find((j) => j.data?.code === 'connection_required')).toMatchObject({
      success: false,
      server: null,
      data: { connect: expect.arrayContaining(['asaas']) },
    });
    expect(out.find((j) => j.data?.action === 'initiate')).toMatchObject({
      success: true,
      data: { method: 'credentials', fields: [{ name: 'api_key' }] },
    });
    const connected = out.filter((j) => j.data?.action === 'connect_finish');
    expect(connected.map((j) => j.data.connection.server_id)).toEqual(['asaas', 'mercadopago']);
    expect(out.find((j) => j.tool === 'codespar_charge' && j.success)).toMatchObject({
      data: { amount_minor: 4990, currency: 'BRL', method: 'pix' },
    });
    expect(sandbox.control.counters().charges_created).toBe(charges + 1);
    expect(out.find((j) => j.status === 'connected' && j.server_id === 'mercadopago')).toMatchObject({
      environment: 'test',
    });
    expect(out.find((j) => j.error === 'oauth_state_invalid')).toBeDefined();
    for (const secret of ['sandbox-mp-secret', 'sandbox-asaas-key'].map((s) => `"${s}"`)) {
      // Sent by the script, never answered back.
      expect(out.some((j) => JSON.stringify(j).includes(secret))).toBe(false);
    }
  });
});
