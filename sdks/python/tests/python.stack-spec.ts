import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentEmbeddingModel, importCatalog, parseCatalogValue, substituteSandboxUrl } from '@rota/catalog';
import { startSandbox, type Sandbox } from '../../../apps/sandbox/src';
import { startStack, type Stack } from '../../../test/helpers/stack';

const ROOT = join(__dirname, '..', '..', '..');
const PY = join(ROOT, 'sdks', 'python');

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd = PY,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/**
 * The Python SDK's tests, run by pytest against a stack booted here: the
 * gateway and services on their own database and Redis prefix, the sandbox
 * playing the demo providers' test environment.
 */
describe('Python SDK (pytest) against the stack', () => {
  let stack: Stack;
  let sandbox: Sandbox;

  beforeAll(async () => {
    stack = await startStack({
      env: {
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        ROTA_DISCOVER_TIMEOUT_MS: '30000',
        ROTA_RPC_TIMEOUT_MS: '35000',
      },
    });
    sandbox = await startSandbox({ port: 0 });
    const text = substituteSandboxUrl(
      readFileSync(join(ROOT, 'packages/catalog/data/demo-catalog.json'), 'utf8'),
      sandbox.url,
    );
    const demo = JSON.parse(text) as { servers: Array<{ id: string }> };
    const named = { ...demo, servers: demo.servers.filter((s) => ['asaas', 'zapi', 'viacep'].includes(s.id)) };
    await importCatalog(stack.db.prisma, parseCatalogValue(named), { model: currentEmbeddingModel(stack.env) });
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
    await sandbox?.close();
  });

  it('the committed webhook vectors are what the npm standardwebhooks package writes today', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rota-vectors-'));
    try {
      const r = await run(
        process.execPath,
        [join(PY, 'scripts', 'webhook-vectors.cjs'), join(dir, 'v.json')],
        process.env,
      );
      expect(r).toEqual({ code: 0, out: '' });
      expect(readFileSync(join(dir, 'v.json'), 'utf8')).toBe(
        readFileSync(join(PY, 'tests', 'fixtures', 'webhook-vectors.json'), 'utf8'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pytest passes, and collected tests', async () => {
    const live = await stack.key(['servers:read', 'sessions:create', 'tools:execute', 'logs:read']);
    const test = await stack.key(['servers:read', 'sessions:create', 'tools:execute', 'connections:write'], {
      environment: 'test',
    });
    const env = {
      ...process.env,
      ROTA_TEST_URL: stack.url,
      ROTA_TEST_LIVE_KEY: live.key,
      ROTA_TEST_KEY: test.key,
      ROTA_TEST_SANDBOX_URL: sandbox.url,
      // The sandbox's control API listens apart from the providers and asks for its own token.
      ROTA_TEST_SANDBOX_CONTROL_URL: sandbox.controlUrl ?? '',
      ROTA_TEST_SANDBOX_CONTROL_TOKEN: sandbox.controlToken ?? '',
      PYTHONDONTWRITEBYTECODE: '1',
    };
    const r = await run('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests'], env);
    // Exit code 5 is pytest's "no tests collected": a failure here like any other.
    if (r.code !== 0) throw new Error(`pytest exited ${r.code}:\n${r.out}`);
    const passed = /(\d+) passed/.exec(r.out);
    expect(Number(passed?.[1])).toBeGreaterThanOrEqual(15);
    expect(r.out).not.toMatch(/skipped|xfail/);
  }, 240_000);
});
