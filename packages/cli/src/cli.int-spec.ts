import { API_KEY_PATTERN } from '@rota/contracts';
import { ApiKeyRepository, seed } from '@rota/db';
import { createTestDatabase, type TestDatabase } from '@rota/db/testing';
import { run } from './main';

/** Runs the CLI in-process against the test database and captures its output. */
async function rota(db: TestDatabase, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: { DATABASE_URL: db.url },
  });
  return { code, stdout, stderr };
}

describe('rota CLI', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('keys create prints only the new key', async () => {
    const res = await rota(db, 'keys', 'create', '--scopes', 'servers:read, tools:execute');
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.stdout).toMatch(/^csk_live_[A-Za-z0-9]{32}\n$/);
    const key = res.stdout.trim();
    expect(key).toMatch(API_KEY_PATTERN);
    await expect(new ApiKeyRepository(db.prisma).findActiveByKey(key)).resolves.toMatchObject({
      projectId: 'proj_dev',
      orgId: 'org_dev',
      environment: 'live',
      scopes: ['servers:read', 'tools:execute'],
    });
  });

  it('keys create honours --environment, --project and --name', async () => {
    const project = await rota(db, 'projects', 'create', 'Shop');
    expect(project.code).toBe(0);
    const projectId = project.stdout.trim();
    expect(projectId).toMatch(/^proj_[A-Za-z0-9]+$/);

    const res = await rota(
      db,
      'keys',
      'create',
      '--scopes',
      'catalog:write',
      '--environment',
      'test',
      '--project',
      projectId,
      '--name',
      'ci',
    );
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^csk_test_/);
    const [row] = await db.prisma.apiKey.findMany({ where: { projectId } });
    expect(row).toMatchObject({ name: 'ci', environment: 'test', scopes: ['catalog:write'] });
  });

  it('creates operator keys with --operator, and refuses admin on a project key', async () => {
    const res = await rota(db, 'keys', 'create', '--operator', '--name', 'ops');
    expect(res.code).toBe(0);
    const found = await new ApiKeyRepository(db.prisma).findActiveByKey(res.stdout.trim());
    expect(found).toMatchObject({
      projectId: null,
      environment: null,
      scopes: ['admin', 'catalog:write', 'servers:read', 'webhooks:write'],
    });
    const listed = await rota(db, 'keys', 'list', '--operator');
    expect(listed.stdout).toMatch(
      new RegExp(`^${found!.id}\\s+\\S+\\s+operator\\s+admin,catalog:write,servers:read,webhooks:write\\s`, 'm'),
    );

    const before = await db.prisma.apiKey.count();
    const project = await rota(db, 'keys', 'create', '--scopes', 'servers:read,admin');
    expect(project).toMatchObject({ code: 1, stdout: '' });
    expect(project.stderr).toMatch(/Only operator keys may carry the 'admin' scope/);
    const mixed = await rota(db, 'keys', 'create', '--operator', '--scopes', 'admin,tools:execute');
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toMatch(/Operator keys act on the deployment, not on a project/);
    expect((await rota(db, 'keys', 'create', '--operator', '--project', 'proj_dev')).code).toBe(1);
    await expect(db.prisma.apiKey.count()).resolves.toBe(before);
  });

  it('rejects an unknown scope on stderr with exit code 1 and creates nothing', async () => {
    const before = await db.prisma.apiKey.count();
    const res = await rota(db, 'keys', 'create', '--scopes', 'servers:read,servers:write');
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/unknown scope: servers:write/);
    expect(res.stderr).not.toMatch(/\bat \S+:\d+/);
    await expect(db.prisma.apiKey.count()).resolves.toBe(before);
  });

  it('rejects a bad environment, a missing --scopes and an unknown project', async () => {
    expect((await rota(db, 'keys', 'create', '--scopes', 'servers:read', '--environment', 'prod')).code).toBe(1);
    const missing = await rota(db, 'keys', 'create');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--scopes/);
    const noProject = await rota(db, 'keys', 'create', '--scopes', 'servers:read', '--project', 'proj_missing');
    expect(noProject).toMatchObject({ code: 1, stdout: '' });
    expect(noProject.stderr).toBe('error: project proj_missing not found\n');
  });

  it('keys list shows a table without secrets, and keys revoke revokes', async () => {
    const key = (await rota(db, 'keys', 'create', '--scopes', 'sessions:create')).stdout.trim();
    const id = (await new ApiKeyRepository(db.prisma).findActiveByKey(key))!.id;

    const listed = await rota(db, 'keys', 'list', '--project', 'proj_dev');
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+PREFIX\s+ENVIRONMENT\s+SCOPES\s+CREATED\s+REVOKED\s+EXPIRES$/);
    const line = lines.find((l) => l.startsWith(id));
    expect(line).toMatch(new RegExp(`^${id}\\s+${key.slice(0, 12)}\\s+live\\s+sessions:create\\s+\\S+Z\\s+-\\s+-$`));
    expect(listed.stdout).not.toContain(key);

    const revoked = await rota(db, 'keys', 'revoke', id);
    expect(revoked).toEqual({ code: 0, stdout: `revoked ${id}\n`, stderr: '' });
    await expect(new ApiKeyRepository(db.prisma).findActiveByKey(key)).resolves.toBeNull();
    const after = await rota(db, 'keys', 'list');
    expect(after.stdout.split('\n').find((l) => l.startsWith(id))).not.toMatch(/\s-\s+-$/);
  });

  it('keys create --ttl makes a key that expires, and refuses a lifetime it cannot read or over 30 days', async () => {
    const before = Date.now();
    const res = await rota(db, 'keys', 'create', '--scopes', 'servers:read,keys:write', '--ttl', '15m', '--json');
    expect(res).toMatchObject({ code: 0, stderr: '' });
    const k = JSON.parse(res.stdout);
    const ttl = Date.parse(k.expires_at) - before;
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 5_000);
    await expect(new ApiKeyRepository(db.prisma).findActiveByKey(k.key)).resolves.toMatchObject({
      id: k.id,
      expiresAt: new Date(k.expires_at),
    });
    const listed = await rota(db, 'keys', 'list', '--project', 'proj_dev');
    expect(listed.stdout.split('\n').find((l) => l.startsWith(k.id))).toMatch(/\s\d{4}-\S+Z$/);
    for (const ttlArg of ['31d', '0', 'soon', '1w']) {
      const bad = await rota(db, 'keys', 'create', '--scopes', 'servers:read', '--ttl', ttlArg);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^error: --ttl /);
    }
  });

  it('keys revoke of an unknown id fails cleanly', async () => {
    await expect(rota(db, 'keys', 'revoke', 'key_missing')).resolves.toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: API key key_missing not found\n',
    });
  });

  it('projects create fails cleanly for an unknown org', async () => {
    await expect(rota(db, 'projects', 'create', 'X', '--org', 'org_missing')).resolves.toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: org org_missing not found\n',
    });
  });

  it('--json prints the structured result of keys create, list and revoke and of projects create', async () => {
    const project = await rota(db, 'projects', 'create', 'Json Shop', '--json');
    expect(project).toMatchObject({ code: 0, stderr: '' });
    const p = JSON.parse(project.stdout);
    expect(p).toEqual({
      id: expect.stringMatching(/^proj_/),
      org_id: 'org_dev',
      name: 'Json Shop',
      created_at: expect.any(String),
    });

    const created = await rota(
      db,
      'keys',
      'create',
      '--scopes',
      'servers:read',
      '--project',
      p.id,
      '--environment',
      'test',
      '--name',
      'ci',
      '--json',
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const k = JSON.parse(created.stdout);
    expect(k).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^csk_test_/),
      prefix: expect.any(String),
      name: 'ci',
      project_id: p.id,
      environment: 'test',
      operator: false,
      scopes: ['servers:read'],
      expires_at: null,
    });
    await expect(new ApiKeyRepository(db.prisma).findActiveByKey(k.key)).resolves.toMatchObject({ id: k.id });
    const operator = JSON.parse((await rota(db, 'keys', 'create', '--operator', '--json')).stdout);
    expect(operator).toMatchObject({
      project_id: null,
      environment: null,
      operator: true,
      scopes: expect.arrayContaining(['admin']),
    });

    const listed = await rota(db, 'keys', 'list', '--project', p.id, '--json');
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const { key: secret, ...summary } = k;
    expect(JSON.parse(listed.stdout)).toEqual({
      keys: [
        {
          ...summary,
          created_at: expect.any(String),
          last_used_at: null,
          revoked_at: null,
          parent_id: null,
          session_id: null,
          user_id: null,
        },
      ],
    });
    expect(listed.stdout).not.toContain(secret);

    const revoked = await rota(db, 'keys', 'revoke', k.id, '--json');
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: k.id, revoked_at: expect.any(String) });
    const missing = await rota(db, 'keys', 'revoke', 'key_missing', '--json');
    expect(missing).toMatchObject({ code: 1, stderr: 'error: API key key_missing not found\n' });
    // Under --json the refusal is on stdout as well.
    expect(JSON.parse(missing.stdout)).toEqual({ error: 'not_found', message: 'API key key_missing not found' });
  });

  it('keys list refuses a project that does not exist rather than listing nothing', async () => {
    const r = await rota(db, 'keys', 'list', '--project', 'proj_nope', '--json');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: no project proj_nope\n');
    expect(JSON.parse(r.stdout)).toEqual({ error: 'project_not_found', message: 'no project proj_nope' });
  });

  it('explains an unreachable database in one line', async () => {
    let stderr = '';
    const code = await run(['keys', 'list'], {
      stdout: () => undefined,
      stderr: (t) => void (stderr += t),
      env: { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none' },
    });
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^error: .*127\.0\.0\.1:1/);
  });
});
