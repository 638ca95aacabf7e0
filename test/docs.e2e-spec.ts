import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { currentEmbeddingModel, importCatalog, parseCatalogValue, substituteSandboxUrl } from '@rota/catalog';
import { startSandbox, type Sandbox } from '../apps/sandbox/src';
import { startStack, type Stack } from './helpers/stack';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '..');
const DOCS_URL = 'http://127.0.0.1:3000';

/** The fenced blocks of one language between a heading and the next heading of the same level. */
function blocks(file: string, heading: string, lang: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`${file}: no heading "${heading}"`);
  const level = heading.match(/^#+/)![0];
  const rest = text.slice(start + heading.length + 1);
  const next = rest.search(new RegExp(`^${level} `, 'm'));
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/**
 * Every top-level JSON object in a terminal transcript. `curl -s` prints a
 * body without a final newline, so the next command's output may follow on
 * the same line.
 */
function jsonObjects(text: string): any[] {
  const found: any[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0 && --depth === 0) {
      found.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  return found;
}

/** Runs a script with bash, strict, in the repository root. */
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
 * The documentation's shell examples, run as written against a fresh stack.
 * The one change is the gateway address: the stack listens on a random port
 * instead of 3000. The CLI they call is the built one (`pnpm rota`).
 */
describe('docs that run', () => {
  let stack: Stack;
  let sandbox: Sandbox;
  let env: Record<string, string>;

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'packages/cli/dist/main.js'))) throw new Error('build the CLI first: pnpm exec turbo run build --filter=@rota/cli...');
    stack = await startStack({ env: { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', ROTA_DISCOVER_TIMEOUT_MS: '30000', ROTA_RPC_TIMEOUT_MS: '35000' } });
    // The quick start assumes the demo catalog; the providers it names are
    // loaded from it (the whole catalog would keep the embedder busy for the
    // length of the test on a small machine).
    // The sandbox on a free port plays the demo providers' test environment.
    sandbox = await startSandbox({ port: 0 });
    const text = substituteSandboxUrl(readFileSync(join(ROOT, 'packages/catalog/data/demo-catalog.json'), 'utf8'), sandbox.url);
    const demo = JSON.parse(text) as { servers: Array<{ id: string }> };
    const named = { ...demo, servers: demo.servers.filter((s) => ['asaas', 'zapi', 'viacep'].includes(s.id)) };
    await importCatalog(stack.db.prisma, parseCatalogValue(named), { model: currentEmbeddingModel(stack.env) });
    env = { ...stack.env, ROTA_URL: stack.url, ROTA_DEBUG: '' };
    delete env.ROTA_API_KEY;
    delete env.ROTA_PROFILE;
  });
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
  });

  const localise = (script: string) => script.split(DOCS_URL).join(stack.url);

  it('docs/sessions.md quick start: curl, then the CLI', async () => {
    const shell = blocks('docs/sessions.md', '## Quick start', 'bash');
    expect(shell.length).toBeGreaterThanOrEqual(2);
    const r = await bash(localise(shell.join('\n')), env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    // `echo $SES` prints the id of the curl session; the CLI's session shows in its close line.
    const ses = lines.filter((l) => /^ses_[A-Za-z0-9]+$/.test(l));
    expect(ses).toHaveLength(1);
    const cliClosed = r.stdout.match(/^closed (ses_[A-Za-z0-9]+) at \S+$/m);
    expect(cliClosed).not.toBeNull();
    ses.push(cliClosed![1]!);
    const json = jsonObjects(r.stdout);
    const discover = json.find((j) => j.tool === 'codespar_discover');
    expect(discover).toMatchObject({ success: true, data: { use_case: 'gerar uma cobrança pix' } });
    expect(json.find((j) => j.status === 'closed')).toMatchObject({ id: ses[0], status: 'closed' });
    expect(r.stdout).toMatch(/recommended: /);
    const sessions = await stack.db.prisma.session.findMany({ where: { id: { in: ses } } });
    expect(sessions.map((s) => s.status).sort()).toEqual(['closed', 'closed']);
  });

  it('docs/sessions.md raw tool walkthrough: connect, session, a charge, its replay, a proxy GET', async () => {
    const shell = blocks('docs/sessions.md', '## A raw tool call, end to end', 'bash');
    expect(shell).toHaveLength(1);
    const charges = sandbox.control.counters().charges_created;
    const r = await bash(localise(shell[0]!), env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = jsonObjects(r.stdout);
    expect(json.find((j) => j.server_id === 'asaas')).toMatchObject({ environment: 'test', status: 'connected', has_credentials: true });
    const charge = json.find((j) => j.tool === 'asaas/create_payment');
    expect(charge).toMatchObject({ success: true, server: 'asaas', data: { status: 200, body: { object: 'payment', billingType: 'PIX', value: 49.9 } } });
    expect(r.stdout).toMatch(/^idempotent-replayed: true\r?$/im);
    expect(json.find((j) => j.proxy_call_id)).toMatchObject({ status: 200, data: { id: charge.data.body.id } });
    expect(json.find((j) => j.status === 'closed')).toBeDefined();
    // One charge for the two requests with the same key.
    expect(sandbox.control.counters().charges_created).toBe(charges + 1);
    expect(r.stdout).not.toContain('sandbox-asaas-key');
  });

  it('README path A example', async () => {
    const [example] = blocks('README.md', '### Path A: `POST /v1/tools/search`', 'bash');
    const { key } = await stack.key(['servers:read']);
    const r = await bash(localise(example!), { ...env, ROTA_API_KEY: key });
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({ intent: 'quero cobrar R$ 50 de um cliente via pix', source: 'fallback' });
    expect(body.hits[0].tool_name).toBe('codespar_charge');
  });
});
