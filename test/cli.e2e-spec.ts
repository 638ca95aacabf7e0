import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { META_TOOL_NAMES } from '@rota/contracts';
import { newId } from '@rota/db';
import { run } from '@rota/cli';
import { freePort } from '@rota/service-kit/testing/redis-server';
import { insertOtherProject, insertProviders } from './helpers/session-fixtures';
import { http, startStack, type Stack } from './helpers/stack';

jest.setTimeout(90_000);

/** A stack trace line, which no error output may contain. */
const STACK_LINE = /\bat \S+ \(?\S+:\d+/;

describe('the rota CLI over HTTP', () => {
  let stack: Stack;
  let key: string;
  let configDir: string;

  /** Runs the CLI in-process with the gateway and key in its environment (overridable). */
  async function rota(argv: string[], env: Record<string, string | undefined> = {}) {
    let stdout = '';
    let stderr = '';
    const code = await run(argv, {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      env: { ROTA_URL: stack.url, ROTA_API_KEY: key, ROTA_CONFIG_DIR: configDir, ...env },
    });
    return { code, stdout, stderr };
  }

  beforeAll(async () => {
    // Generous deadlines: the machine running the suite may be busy.
    stack = await startStack({
      env: {
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        NL_EXTRACTOR: '',
        ROTA_RPC_TIMEOUT_MS: '20000',
        ROTA_DISCOVER_TIMEOUT_MS: '15000',
        // The webhook subscribed below points at loopback, which production refuses.
        ROTA_WEBHOOK_ALLOW_PRIVATE: 'true',
      },
    });
    await insertProviders(stack.db.prisma, await insertOtherProject(stack.db.prisma));
    await stack.db.prisma.provider.upsert({
      where: { id_owner: { id: 'asaas', owner: '' } },
      create: {
        id: 'asaas',
        name: 'Asaas',
        description: 'Pix, boleto and card payments in Brazil',
        category: 'payments',
        country: 'BR',
        countries: ['BR'],
        authType: 'api_key',
        selfServeAuth: true,
        baseUrls: { live: 'https://asaas.invalid' },
      },
      update: { authType: 'api_key', sandboxAvailable: false },
    });
    key = (await stack.key(['servers:read', 'sessions:create', 'tools:execute'])).key;
    configDir = mkdtempSync(join(tmpdir(), 'rota-cli-'));
  });
  afterAll(() => stack.close());

  it('policy set and get go through the API with a key, and a refused write exits 1', async () => {
    const writer = (await stack.key(['servers:read', 'policy:write'])).key;
    const file = join(configDir, 'rules.json');
    writeFileSync(
      file,
      JSON.stringify([{ type: 'max_amount', tool: 'codespar_pay', currency: 'BRL', max_minor: 50000 }]),
    );
    const set = await rota(['policy', 'set', file, '--json'], { ROTA_API_KEY: writer });
    expect(set.code).toBe(0);
    const stored = JSON.parse(set.stdout);
    expect(stored.rules).toEqual([
      expect.objectContaining({ id: expect.any(String), type: 'max_amount', tool: 'codespar_pay', max_minor: 50000 }),
    ]);
    const got = await rota(['policy', 'get']);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain('max_amount');
    const refused = await rota(['policy', 'set', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('rate-limits, approvals and usage go through the API; the requesting key cannot approve', async () => {
    const admin = (await stack.key(['servers:read', 'policy:write', 'approvals:write'])).key;
    const requester = (await stack.key(['servers:read', 'sessions:create', 'tools:execute', 'approvals:write'])).key;
    const auth = { authorization: `Bearer ${admin}` };
    const limitsFile = join(configDir, 'limits.json');
    writeFileSync(limitsFile, JSON.stringify([{ scope: 'tool', target: 'codespar_checkout', per_minute: 1000 }]));
    try {
      const set = await rota(['rate-limits', 'set', limitsFile, '--json'], { ROTA_API_KEY: admin });
      expect(set.code).toBe(0);
      expect(JSON.parse(set.stdout).limits).toEqual([{ scope: 'tool', target: 'codespar_checkout', per_minute: 1000 }]);
      const got = await rota(['rate-limits', 'get']);
      expect(got).toMatchObject({ code: 0, stderr: '' });
      expect(got.stdout).toMatch(/tool\s+codespar_checkout\s+-\s+1000/);

      // A call above an approval threshold opens an approval.
      const rules = [
        { type: 'approval_above', tool: 'codespar_pay', currency: 'BRL', above_minor: 100, ttl_seconds: 600 },
      ];
      expect((await http(`${stack.url}/v1/policy`, { method: 'PUT', headers: auth, json: { rules } })).status).toBe(
        200,
      );
      const ses = await http(`${stack.url}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${requester}` },
        json: { servers: ['zzpay'], user_id: 'user_cli' },
      });
      const refused = await http(`${stack.url}/v1/sessions/${ses.json.id}/execute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${requester}` },
        json: {
          tool: 'codespar_pay',
          input: { action: 'pay', method: 'pix', amount: 5000, currency: 'BRL', recipient: 'pix-key-cli' },
        },
      });
      expect(refused.status).toBe(403);
      const id = refused.json.approval_id as string;
      expect(id).toMatch(/^apr_/);

      const pending = await rota(['approvals', 'list', '--status', 'pending', '--json']);
      expect(pending.code).toBe(0);
      expect(JSON.parse(pending.stdout).approvals.map((a: { id: string }) => a.id)).toContain(id);
      const table = await rota(['approvals', 'list']);
      expect(table.stdout).toMatch(new RegExp(`${id}\\s+pending\\s+codespar_pay pay\\s+5000 BRL\\s+user_cli`));

      const own = await rota(['approvals', 'approve', id], { ROTA_API_KEY: requester });
      expect(own.code).toBe(1);
      expect(own.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(own.stderr).toContain('forbidden');
      const approved = await rota(['approvals', 'approve', id], { ROTA_API_KEY: admin });
      expect(approved).toMatchObject({ code: 0, stdout: `${id} approved (codespar_pay pay)\n` });
      const again = await rota(['approvals', 'deny', id], { ROTA_API_KEY: admin });
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('approval_not_pending');

      const usage = await rota(['usage', '--json']);
      expect(usage.code).toBe(0);
      expect(JSON.parse(usage.stdout)).toMatchObject({
        environment: 'live',
        quota: { plan: expect.any(String), limit: expect.any(Number) },
      });
      expect((await rota(['usage'])).stdout).toMatch(/^live \d{4}-\d{2}-01 to .*: \d+ calls\n/);
      await http(`${stack.url}/v1/sessions/${ses.json.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${requester}` },
      });
    } finally {
      await http(`${stack.url}/v1/policy`, { method: 'PUT', headers: auth, json: { rules: [] } });
      await http(`${stack.url}/v1/rate-limits`, { method: 'PUT', headers: auth, json: { limits: [] } });
    }
  });

  it('--version prints the version and exits 0', async () => {
    const r = await rota(['--version']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout.trim()).toBe(
      JSON.parse(readFileSync(join(__dirname, '../packages/cli/package.json'), 'utf8')).version,
    );
  });

  it('search --json exits 0 with the API’s body', async () => {
    const r = await rota(['search', 'send a whatsapp notification to a customer', '--limit', '2', '--json']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const body = JSON.parse(r.stdout);
    const direct = await http(`${stack.url}/v1/tools/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      json: { intent: 'send a whatsapp notification to a customer', limit: 2 },
    });
    expect({ ...body, elapsed_ms: 0 }).toEqual({ ...direct.json, elapsed_ms: 0 });
  });

  it('discover exits 0 without --servers: it picks providers from the catalog, never an empty list', async () => {
    const r = await rota(['discover', 'send a whatsapp', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.use_case).toBe('send a whatsapp');
    expect(Array.isArray(result.meta_tools)).toBe(true);
    // The session it opened is closed again.
    const sessions = await stack.db.prisma.session.findMany({ where: { projectId: 'proj_dev' } });
    expect(sessions.length).toBeGreaterThan(0);
    for (const s of sessions) expect(s.servers.length).toBeGreaterThan(0);
    expect(sessions.every((s) => s.closedAt !== null)).toBe(true);
    const human = await rota(['discover', 'send a whatsapp', '--servers', 'zzmsg']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/recommended: /);
  });

  it('route prints the rail, and a 424’s error and detail with exit 1', async () => {
    await stack.db.prisma.connection.create({
      data: { id: newId('conn'), projectId: 'proj_dev', environment: 'live', serverId: 'asaas', status: 'connected' },
    });
    const ok = await rota([
      'route',
      '--operation',
      'charge',
      '--currency',
      'BRL',
      '--country',
      'BR',
      '--amount',
      '4990',
    ]);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(/^codespar_charge via asaas \(\w+\)\n/);
    const json = await rota(['route', '--operation', 'charge', '--currency', 'BRL', '--country', 'BR', '--json']);
    expect(JSON.parse(json.stdout).recommended).toMatchObject({ tool: 'codespar_charge', provider_id: 'asaas' });

    const refused = await rota(['route', '--operation', 'charge', '--currency', 'JPY', '--country', 'JP']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    const lines = refused.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const direct = await http(`${stack.url}/v1/meta-tools/discover`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      json: { intent: { operation: 'charge', currency: 'JPY', country: 'JP' } },
    });
    expect(direct.status).toBeGreaterThanOrEqual(400);
    expect(lines[0]).toContain(`error: ${direct.json.error}: `);
    if (direct.json.detail) expect(lines[0]).toContain(direct.json.detail);
  });

  it('tools meta prints the 15 meta-tools with no gateway and no key', async () => {
    const port = await freePort();
    const r = await rota(['tools', 'meta'], { ROTA_URL: `http://127.0.0.1:${port}`, ROTA_API_KEY: undefined });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const rows = r.stdout.trimEnd().split('\n').slice(1);
    expect(rows.map((l) => l.split(/\s+/)[0]).sort()).toEqual([...META_TOOL_NAMES].sort());
    const one = await rota(['tools', 'meta', 'codespar_discover', '--json'], { ROTA_URL: `http://127.0.0.1:${port}` });
    expect(JSON.parse(one.stdout)).toMatchObject({ name: 'codespar_discover', inputSchema: { type: 'object' } });
  });

  it('sessions create, show and close, and tool runs in a session', async () => {
    const created = await rota(['sessions', 'create', '--servers', 'zzpay,zzopen', '--user', 'user_123']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const id = created.stdout.trim();
    expect(id).toMatch(/^ses_/);
    const shown = await rota(['sessions', 'show', id, '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      id,
      status: 'active',
      servers: ['zzpay', 'zzopen'],
      user_id: 'user_123',
    });

    const listed = await rota(['tool', 'codespar_list_tools', '--session', id]);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.stringify(JSON.parse(listed.stdout))).toContain('zzpay/create_payment');

    const file = join(configDir, 'input.json');
    writeFileSync(file, JSON.stringify({ use_case: '' }));
    const bad = await rota(['tool', 'codespar_discover', '--input-file', file, '--session', id]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: invalid_args: .+\n$/);

    const closed = await rota(['sessions', 'close', id, '--json']);
    const again = await rota(['sessions', 'close', id, '--json']);
    expect(JSON.parse(again.stdout).closed_at).toBe(JSON.parse(closed.stdout).closed_at);

    const onClosed = await rota(['tool', 'codespar_get_started', '--arg', 'goal=charge', '--session', id]);
    expect(onClosed.code).toBe(1);
    expect(onClosed.stderr).toMatch(/^error: session_not_active: .*\[HTTP 409, request \S+\]\n$/);
  });

  it('a 4xx exits 1 and a refused connection exits 2, each with one line on stderr and no stack', async () => {
    const missing = await rota(['sessions', 'show', 'ses_missing']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/^error: session_not_found: .*\[HTTP 404, request \S+\]\n$/);

    const badKey = await rota(['search', 'pix'], { ROTA_API_KEY: 'csk_live_00000000000000000000000000000000' });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/^error: unauthorized: /);

    const port = await freePort();
    const down = await rota(['search', 'pix'], { ROTA_URL: `http://127.0.0.1:${port}` });
    expect(down.code).toBe(2);
    expect(down.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(down.stderr).toMatch(/^error: network_error: /);

    const noKey = await rota(['search', 'pix'], { ROTA_API_KEY: undefined });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toBe('error: no API key: set ROTA_API_KEY (and ROTA_URL), or run `rota login`\n');
    for (const r of [missing, badKey, down, noKey]) expect(r.stderr).not.toMatch(STACK_LINE);
  });

  it('login saves a profile (owner-only) that the HTTP commands then use', async () => {
    const login = await rota(['login', '--url', stack.url, '--api-key', key, '--profile', 'ci'], {
      ROTA_URL: undefined,
      ROTA_API_KEY: undefined,
    });
    expect(login).toMatchObject({ code: 0, stderr: '' });
    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const who = await rota(['whoami', '--json'], { ROTA_URL: undefined, ROTA_API_KEY: undefined });
    expect(JSON.parse(who.stdout)).toEqual({ url: stack.url, key_prefix: key.slice(0, 12) });
    const search = await rota(['search', 'charge a customer', '--json'], {
      ROTA_URL: undefined,
      ROTA_API_KEY: undefined,
    });
    expect(search.code).toBe(0);

    const wrong = await rota(['login', '--url', stack.url, '--api-key', 'csk_live_00000000000000000000000000000000'], {
      ROTA_URL: undefined,
      ROTA_API_KEY: undefined,
    });
    expect(wrong.code).toBe(1);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles).not.toHaveProperty('default');
  });

  it('mcp stdio bridges a stdio-only client to the gateway', async () => {
    const created = await rota(['sessions', 'create', '--servers', 'zzpay']);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(__dirname, '../packages/cli/dist/main.js'), 'mcp', 'stdio', '--session', created.stdout.trim()],
      env: { PATH: process.env.PATH ?? '', ROTA_URL: stack.url, ROTA_API_KEY: key, ROTA_CONFIG_DIR: configDir },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-only', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...META_TOOL_NAMES]);
      const listed = await client.callTool({ name: 'codespar_list_tools', arguments: {} });
      expect(listed.isError).toBe(false);
      expect(JSON.stringify(listed.structuredContent)).toContain('zzpay/create_payment');
    } finally {
      await client.close();
    }
  });

  it('mcp config prints and merges the entry of each client, naming the saved profile and holding no key', async () => {
    // Without a saved profile there is nothing for the relay to read: refused, with the reason as JSON under --json.
    const none = await rota(['mcp', 'config', '--client', 'cursor', '--json'], {
      ROTA_CONFIG_DIR: join(configDir, 'empty'),
    });
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout)).toMatchObject({ error: 'profile_not_found' });
    expect((await rota(['login', '--profile', 'desk'])).code).toBe(0);

    const bin = join(__dirname, '../packages/cli/dist/bin.js');
    const cursor = await rota(['mcp', 'config', '--client', 'cursor', '--session', 'ses_abc'], {
      ROTA_PROFILE: 'desk',
    });
    expect(cursor.code).toBe(0);
    expect(JSON.parse(cursor.stdout)).toEqual({
      mcpServers: {
        rota: { command: process.execPath, args: [bin, 'mcp', 'stdio', '--profile', 'desk', '--session', 'ses_abc'] },
      },
    });
    const vscode = JSON.parse((await rota(['mcp', 'config', '--client', 'vscode'], { ROTA_PROFILE: 'desk' })).stdout);
    expect(vscode).toEqual({
      servers: { rota: { type: 'stdio', command: process.execPath, args: [bin, 'mcp', 'stdio', '--profile', 'desk'] } },
    });

    const file = join(configDir, 'claude_desktop_config.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { other: { command: 'x' } }, theme: 'dark' }));
    const written = await rota(['mcp', 'config', '--client', 'claude-desktop', '--write', '--file', file], {
      ROTA_PROFILE: 'desk',
    });
    expect(written).toMatchObject({ code: 0, stdout: `wrote rota to ${file}\n` });
    const text = readFileSync(file, 'utf8');
    expect(JSON.parse(text)).toEqual({
      theme: 'dark',
      mcpServers: {
        other: { command: 'x' },
        rota: { command: process.execPath, args: [bin, 'mcp', 'stdio', '--profile', 'desk'] },
      },
    });
    expect(text).not.toContain(key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const bad = await rota(['mcp', 'config', '--client', 'zed']);
    expect(bad.code).toBe(1);
  });

  it('webhooks delete and replay and router candidates take --json', async () => {
    const ops = (await stack.key(['servers:read', 'webhooks:write'])).key;
    const created = await rota(
      ['webhooks', 'create', '--url', 'http://127.0.0.1:9/cli-json', '--events', 'call.failed', '--json'],
      { ROTA_API_KEY: ops },
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const hook = JSON.parse(created.stdout) as { id: string };

    // A dead delivery to replay, as the worker leaves one after its last failed attempt.
    const event = await stack.db.prisma.event.create({
      data: {
        id: newId('evt'),
        type: 'call.failed',
        orgId: 'org_dev',
        projectId: 'proj_dev',
        environment: 'live',
        payload: {},
        dispatchedAt: new Date(),
      },
    });
    const dead = await stack.db.prisma.webhookDelivery.create({
      data: { id: newId('wdl'), subscriptionId: hook.id, eventId: event.id, status: 'dead', attempts: [] },
    });
    const replayed = await rota(['webhooks', 'replay', hook.id, dead.id, '--json'], { ROTA_API_KEY: ops });
    expect(replayed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(replayed.stdout)).toMatchObject({ id: dead.id, status: 'pending' });
    const unknown = await rota(['webhooks', 'replay', hook.id, 'wdl_missing', '--json'], { ROTA_API_KEY: ops });
    expect(unknown.code).toBe(1);
    // The refusal reaches stdout as JSON too, so a script reads why.
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      error: 'webhook_delivery_not_found',
      status: 404,
      request_id: expect.any(String),
    });
    expect(unknown.stderr).toMatch(/^error: webhook_delivery_not_found: .*\[HTTP 404, request \S+\]\n$/);

    const deleted = await rota(['webhooks', 'delete', hook.id, '--json'], { ROTA_API_KEY: ops });
    expect(deleted).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(deleted.stdout)).toMatchObject({ id: hook.id });

    const report = await rota(['router', 'candidates', '--json'], { ROTA_API_KEY: ops });
    expect(report).toMatchObject({ code: 0, stderr: '' });
    const body = JSON.parse(report.stdout) as { candidates: unknown[] };
    expect(Array.isArray(body.candidates)).toBe(true);
    const out = join(configDir, 'candidates.json');
    const written = await rota(['router', 'candidates', '--out', out, '--json'], { ROTA_API_KEY: ops });
    expect(written).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(written.stdout)).toEqual({ out, candidates: body.candidates.length });
    expect(JSON.parse(readFileSync(out, 'utf8')).candidates).toHaveLength(body.candidates.length);
  });

  it('a 5xx exits 2 with one line on stderr', async () => {
    // With the search service gone, the gateway cannot answer path A.
    await stack.services.search.app.close();
    const r = await rota(['search', 'pix', '--json'], {});
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      error: expect.any(String),
      status: expect.any(Number),
      request_id: expect.any(String),
    });
    expect(r.stderr).toMatch(/^error: \w+: .*\[HTTP 5\d\d, request \S+\]\n$/);
  });
});
