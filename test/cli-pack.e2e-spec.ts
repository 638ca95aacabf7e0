import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { META_TOOL_NAMES } from '@rota/contracts';
import { startStack, type Stack } from './helpers/stack';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '..');

/**
 * The CLI as a user installs it: bundled and packed (`packages/cli/scripts/bundle.mjs
 * --tarball`), installed with npm into an empty folder with nothing else of the
 * repository beside it, then driven through its installed `rota` and through
 * the MCP entry it writes, started the way Claude Desktop starts one.
 */
describe('the packed CLI, installed alone', () => {
  let stack: Stack;
  let dir: string;
  let rotaBin: string;
  let key: string;
  // What a desktop app gives the process it starts: no ROTA_* variables, a short PATH.
  let desktopEnv: Record<string, string>;

  /** Runs the installed CLI; asynchronously, since the stack it talks to runs in this process. */
  const rota = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [rotaBin, ...args], { cwd: dir, env: { ...desktopEnv, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  beforeAll(async () => {
    stack = await startStack({
      env: { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', NL_EXTRACTOR: '', ROTA_RPC_TIMEOUT_MS: '20000' },
    });
    key = (await stack.key(['servers:read', 'sessions:create', 'tools:execute'])).key;
    dir = mkdtempSync(join(tmpdir(), 'rota-pack-'));
    const tarball = execFileSync(process.execPath, [join(ROOT, 'packages/cli/scripts/bundle.mjs'), '--tarball', dir], {
      encoding: 'utf8',
    }).trim();
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{"name":"app","version":"1.0.0","private":true}\n');
    // The tarball has no dependencies: the install must not need a registry.
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', tarball], {
      cwd: app,
      stdio: 'pipe',
    });
    rotaBin = join(app, 'node_modules', '@rota', 'cli', 'dist', 'bin.js');
    desktopEnv = { HOME: join(dir, 'home'), PATH: '/usr/bin:/bin' };
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await stack?.close();
  });

  it('installs with no dependency and no workspace link, and knows its version', async () => {
    const installed = JSON.parse(readFileSync(join(rotaBin, '..', '..', 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(installed.bin).toEqual({ rota: 'dist/bin.js' });
    expect(installed.dependencies).toBeUndefined();
    const version = await rota(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(
      JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')).version,
    );
  });

  it('answers HTTP commands and refuses the database ones with a reason', async () => {
    const search = await rota(['search', 'send a whatsapp notification', '--json'], {
      ROTA_URL: stack.url,
      ROTA_API_KEY: key,
    });
    expect(search.status).toBe(0);
    expect(JSON.parse(search.stdout).hits.length).toBeGreaterThan(0);
    const keys = await rota(['keys', 'list']);
    expect(keys.status).toBe(1);
    expect(keys.stderr).toMatch(/opens the database/);
    const refused = await rota(['sessions', 'show', 'ses_missing', '--json'], {
      ROTA_URL: stack.url,
      ROTA_API_KEY: key,
    });
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: 'session_not_found', status: 404 });
  });

  it('writes a Claude Desktop entry without a key that starts, initializes and lists the 15 meta-tools', async () => {
    const login = await rota(['login', '--url', stack.url, '--api-key', key]);
    expect(login.stderr).toBe('');
    expect(login.status).toBe(0);
    const config = await rota(['mcp', 'config', '--client', 'claude-desktop']);
    expect(config.status).toBe(0);
    expect(config.stdout).not.toContain(key);
    const entry = (
      JSON.parse(config.stdout) as {
        mcpServers: { rota: { command: string; args: string[]; env?: Record<string, string> } };
      }
    ).mcpServers.rota;
    expect(entry.args).toEqual([rotaBin, 'mcp', 'stdio', '--profile', 'default']);

    // Claude Desktop starts `command` with `args` and the entry's env over its own, from a directory of its choosing.
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...desktopEnv, ...(entry.env ?? {}) },
      cwd: tmpdir(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBeTruthy();
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toHaveLength(15);
      expect([...tools].sort()).toEqual([...META_TOOL_NAMES].sort());
    } finally {
      await client.close();
    }
  });
});
