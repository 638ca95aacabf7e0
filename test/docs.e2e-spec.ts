import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * Turns the TypeScript examples of a page into one module Jest can load:
 * the imports stay on top, everything else becomes the body of an async
 * function (the examples await at the top level, which CommonJS cannot), and
 * the function answers the constants the examples declared at the top level,
 * so a test can look at what they produced.
 */
function tsModule(sources: string[]): string {
  const code = sources.join('\n');
  const importRe = /^import\s[\s\S]*?\sfrom\s+['"][^'"]+['"];?[ \t]*$/gm;
  const imports = code.match(importRe) ?? [];
  const body = code.replace(importRe, '');
  const names = new Set<string>();
  for (const m of body.matchAll(/^(?:const|let|var)\s+(?:\{([^}]*)\}|(\w+))/gm)) {
    if (m[2]) names.add(m[2]);
    for (const part of (m[1] ?? '').split(',')) {
      const name = part.split(':').pop()!.split('=')[0]!.replace('...', '').trim();
      if (name) names.add(name);
    }
  }
  return `${imports.join('\n')}\n\nexport default async function docsExample(): Promise<Record<string, any>> {\n${body}\nreturn { ${[...names].join(', ')} };\n}\n`;
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
  /**
   * Where the TypeScript examples are written to run: two levels under the
   * repository root (a test file's depth, which the sandbox example's
   * relative import assumes), in the git-ignored `.rota`.
   */
  let tsDir: string;
  let tsCount = 0;

  /**
   * Runs TypeScript examples (together, as one module) through Jest's own
   * transform, so `@rota/sdk` is the SDK built from its sources. They read
   * ROTA_URL and ROTA_API_KEY from the environment, as the page says.
   */
  async function runTs(sources: string[], vars: Record<string, string>): Promise<Record<string, any>> {
    const file = join(tsDir, `example-${++tsCount}.ts`);
    writeFileSync(file, tsModule(sources.map(localise)));
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    Object.assign(process.env, vars);
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require(file) as { default: () => Promise<Record<string, any>> };
      return await mod.default();
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'packages/cli/dist/main.js')))
      throw new Error('build the CLI first: pnpm exec turbo run build --filter=@rota/cli...');
    stack = await startStack({
      env: {
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        ROTA_DISCOVER_TIMEOUT_MS: '30000',
        ROTA_RPC_TIMEOUT_MS: '35000',
      },
    });
    // The quick start assumes the demo catalog; the providers it names are
    // loaded from it (the whole catalog would keep the embedder busy for the
    // length of the test on a small machine).
    // The sandbox on a free port plays the demo providers' test environment.
    sandbox = await startSandbox({ port: 0 });
    const text = substituteSandboxUrl(
      readFileSync(join(ROOT, 'packages/catalog/data/demo-catalog.json'), 'utf8'),
      sandbox.url,
    );
    const demo = JSON.parse(text) as { servers: Array<{ id: string }> };
    const named = { ...demo, servers: demo.servers.filter((s) => ['asaas', 'zapi', 'viacep'].includes(s.id)) };
    await importCatalog(stack.db.prisma, parseCatalogValue(named), { model: currentEmbeddingModel(stack.env) });
    env = { ...stack.env, ROTA_URL: stack.url, ROTA_DEBUG: '' };
    delete env.ROTA_API_KEY;
    delete env.ROTA_PROFILE;
    mkdirSync(join(ROOT, '.rota'), { recursive: true });
    tsDir = mkdtempSync(join(ROOT, '.rota', 'docs-'));
  });
  afterAll(async () => {
    if (tsDir) rmSync(tsDir, { recursive: true, force: true });
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
    expect(json.find((j) => j.server_id === 'asaas')).toMatchObject({
      environment: 'test',
      status: 'connected',
      has_credentials: true,
    });
    const charge = json.find((j) => j.tool === 'asaas/create_payment');
    expect(charge).toMatchObject({
      success: true,
      server: 'asaas',
      data: { status: 200, body: { object: 'payment', billingType: 'PIX', value: 49.9 } },
    });
    expect(r.stdout).toMatch(/^idempotent-replayed: true\r?$/im);
    expect(json.find((j) => j.proxy_call_id)).toMatchObject({ status: 200, data: { id: charge.data.body.id } });
    expect(json.find((j) => j.status === 'closed')).toBeDefined();
    // One charge for the two requests with the same key.
    expect(sandbox.control.counters().charges_created).toBe(charges + 1);
    expect(r.stdout).not.toContain('sandbox-asaas-key');
  });

  it('docs/sessions.md quick start: the SDK example', async () => {
    const [sdk] = blocks('docs/sessions.md', '## Quick start', 'ts').filter((b) => b.includes("from '@rota/sdk'"));
    const { key } = await stack.key(['servers:read', 'sessions:create', 'tools:execute']);
    const { session, found } = await runTs([sdk!], { ROTA_URL: stack.url, ROTA_API_KEY: key });
    expect(session.id).toMatch(/^ses_/);
    expect(Array.isArray(found.meta_tools)).toBe(true);
    expect(found.use_case).toBe('gerar uma cobrança pix');
    expect(found.recommended ?? found.recommended_reason).toBeTruthy();
    expect((await stack.db.prisma.session.findUniqueOrThrow({ where: { id: session.id } })).status).toBe('closed');
  });

  it('docs/sessions.md quick start: the MCP example', async () => {
    const [mcp] = blocks('docs/sessions.md', '## Quick start', 'ts').filter((b) =>
      b.includes('@modelcontextprotocol/sdk'),
    );
    const { key } = await stack.key(['servers:read', 'sessions:create', 'tools:execute']);
    const { tools, found } = await runTs([mcp!], { ROTA_URL: stack.url, ROTA_API_KEY: key });
    expect(tools).toHaveLength(15);
    expect(found.isError).toBe(false);
    expect(JSON.stringify(found.structuredContent)).toContain('"use_case":"send a WhatsApp message"');
  });

  it('docs/sdk.md: the examples, run in order as one program', async () => {
    const examples = blocks('docs/sdk.md', '# TypeScript SDK (`@rota/sdk`)', 'ts');
    expect(examples.length).toBeGreaterThanOrEqual(2);
    const { key } = await stack.key(['servers:read', 'sessions:create', 'tools:execute']);
    const out = await runTs(examples, { ROTA_API_KEY: key });
    expect(out.rota.baseUrl).toBe(stack.url);
    expect(out.hits.hits.length).toBeGreaterThan(0);
    expect(out.rail).toMatch(/^codespar_charge via \w+$|^none \(424 \w+\)$/);
    expect(out.found).toMatchObject({ use_case: 'gerar uma cobrança pix', meta_tools: expect.any(Array) });
    expect(out.listed).toMatchObject({ success: true, status: 200, code: null });
    expect(out.late).toMatchObject({ success: false, status: 409, code: 'session_not_active' });
    expect(out.closedAgain.closed_at).toBe(out.closed.closed_at);
    expect(out.refusal).toMatchObject({ status: 404, code: 'session_not_found', requestId: expect.any(String) });
    expect(out.mcp.headers.Authorization).toBe(`Bearer ${key}`);
    expect(['healthy', 'degraded', 'down']).toContain(out.health.status);
    expect(out.spoken).toMatch(/^\d+\.\d+\.\d+$/);
    expect(out.accepted).toEqual({ type: 'system.health.degraded', data: {} });
    expect(out.forged).toBeNull();
  });

  it('docs/sessions.md: idempotency over MCP _meta', async () => {
    const [example] = blocks('docs/sessions.md', '### Idempotency and approvals over `_meta`', 'ts');
    const { key } = await stack.key(['servers:read', 'sessions:create', 'tools:execute']);
    const before = await stack.db.prisma.sessionToolCall.count();
    const { first, again, bad, session } = await runTs([example!], { ROTA_URL: stack.url, ROTA_API_KEY: key });
    expect(first.isError).toBe(false);
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(bad).toMatchObject({ isError: true, structuredContent: { code: 'invalid_idempotency_key' } });
    // Two calls with one key: one call recorded.
    expect(await stack.db.prisma.sessionToolCall.count({ where: { sessionId: session.id } })).toBe(1);
    expect(await stack.db.prisma.sessionToolCall.count()).toBe(before + 1);
  });

  it('docs/sandbox.md: the in-test example', async () => {
    const [example] = blocks('docs/sandbox.md', '### In tests', 'ts');
    const { sandbox: started, charges } = await runTs([example!], {});
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(charges).toBe(0);
  });

  it('docs/mocks.md: define and list mocks, then a call answered by one', async () => {
    const [shell] = blocks('docs/mocks.md', '## Defining and listing', 'bash');
    const before = sandbox.control.counters().requests_total;
    const r = await bash(localise(shell!), env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = jsonObjects(r.stdout);
    expect(json.find((j) => j.tool === 'asaas/create_payment' && j.id?.startsWith('mck_'))).toMatchObject({
      times: 2,
      remaining: 2,
    });
    expect(json.find((j) => j.tool === 'codespar_charge' && j.id?.startsWith('mck_'))).toMatchObject({
      times: 1,
      remaining: 1,
    });
    const listed = json.find((j) => Array.isArray(j.mocks));
    expect(listed.mocks.map((m: { tool: string }) => m.tool)).toEqual(['asaas/create_payment', 'codespar_charge']);
    expect(json.find((j) => j.tool_call_id)).toMatchObject({
      success: true,
      server: 'asaas',
      data: { id: 'pay_mock', status: 'PENDING' },
    });
    // The mocked call never reached the provider.
    expect(sandbox.control.counters().requests_total).toBe(before);
  });

  it('docs/logs.md quick start: list a session’s calls, then read them from the stream', async () => {
    const [shell] = blocks('docs/logs.md', '## Quick start', 'bash');
    const r = await bash(localise(shell!), env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = jsonObjects(r.stdout);
    const page = json.find((j) => Array.isArray(j.logs));
    expect(page.logs).toEqual([
      expect.objectContaining({ tool: 'codespar_list_tools', outcome: 'success', user_id: 'user_123' }),
    ]);
    const event = json.find((j) => j.event === 'call');
    expect(event).toMatchObject({
      id: expect.stringMatching(/^\d+-\d+$/),
      data: { id: page.logs[0].id, session_id: page.logs[0].session_id },
    });
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
