import { AppError } from '@rota/contracts';
import { ApiKeyRepository, hashApiKey } from './api-keys';
import { seed } from './seed';
import { createTestDatabase, type TestDatabase } from './testing';

describe('ApiKeyRepository', () => {
  let db: TestDatabase;
  let repo: ApiKeyRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    repo = new ApiKeyRepository(db.prisma);
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('creates a key and returns the plain key exactly once', async () => {
    const created = await repo.create({ projectId: 'proj_dev', environment: 'live', scopes: ['servers:read', 'tools:execute'], name: 'agent' });
    expect(created).toEqual({
      id: expect.stringMatching(/^key_[A-Za-z0-9]+$/),
      key: expect.stringMatching(/^csk_live_[A-Za-z0-9]{32}$/),
      prefix: created.key.slice(0, 12),
      scopes: ['servers:read', 'tools:execute'],
      environment: 'live',
      projectId: 'proj_dev',
    });
  });

  it('makes operator keys without a project, and never puts admin on a project key', async () => {
    const op = await repo.create({ operator: true, scopes: ['admin', 'catalog:write'] });
    expect(op).toMatchObject({ projectId: null, environment: null, scopes: ['admin', 'catalog:write'], key: expect.stringMatching(/^csk_live_/) });
    await expect(repo.findActiveByKey(op.key)).resolves.toEqual({
      id: op.id,
      projectId: null,
      orgId: null,
      environment: null,
      scopes: ['admin', 'catalog:write'],
    });
    const before = await db.prisma.apiKey.count();
    await expect(repo.create({ projectId: 'proj_dev', environment: 'live', scopes: ['servers:read', 'admin'] })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(repo.create({ operator: true, scopes: ['catalog:write'] })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(repo.create({ operator: true, scopes: ['admin', 'tools:execute'] })).rejects.toMatchObject({ code: 'forbidden' });
    expect(await db.prisma.apiKey.count()).toBe(before);
    // The database holds the same line against writers that bypass the repository.
    await expect(
      db.prisma
        .$executeRaw`INSERT INTO api_keys (id, project_id, environment, prefix, key_hash, scopes) VALUES ('key_x', 'proj_dev', 'live', 'csk_live_xxx', ${'f'.repeat(64)}, ARRAY['admin'])`,
    ).rejects.toThrow(/api_keys_admin_check/);
    // Later cases count every key of the database.
    await db.prisma.apiKey.delete({ where: { id: op.id } });
  });

  it('stores only the hash of the key', async () => {
    const created = await repo.create({ projectId: 'proj_dev', environment: 'test', scopes: ['sessions:create'] });
    const row = await db.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.keyHash).toBe(hashApiKey(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);
    expect(row.prefix).toBe(created.key.slice(0, 12));
  });

  it('finds an active key by its plain text, with project and org', async () => {
    const created = await repo.create({ projectId: 'proj_dev', environment: 'test', scopes: ['servers:read'] });
    await expect(repo.findActiveByKey(created.key)).resolves.toEqual({
      id: created.id,
      projectId: 'proj_dev',
      orgId: 'org_dev',
      environment: 'test',
      scopes: ['servers:read'],
    });
  });

  it('does not find unknown or malformed keys', async () => {
    await expect(repo.findActiveByKey('csk_live_' + 'x'.repeat(32))).resolves.toBeNull();
    await expect(repo.findActiveByKey('not-a-key')).resolves.toBeNull();
    await expect(repo.findActiveByKey('')).resolves.toBeNull();
  });

  it('lists keys without hashes or secrets, filtered by project', async () => {
    await db.prisma.project.create({ data: { id: 'proj_other', orgId: 'org_dev', name: 'Other' } });
    const other = await repo.create({ projectId: 'proj_other', environment: 'live', scopes: ['catalog:write'] });

    const all = await repo.list();
    const mine = await repo.list('proj_dev');
    expect(all.map((k) => k.id)).toContain(other.id);
    expect(mine.map((k) => k.id)).not.toContain(other.id);
    expect(mine.length).toBe(all.length - 1);
    for (const k of all) {
      expect(Object.keys(k).sort()).toEqual(['createdAt', 'environment', 'id', 'lastUsedAt', 'name', 'prefix', 'projectId', 'revokedAt', 'scopes']);
    }
    await expect(repo.list('proj_none')).resolves.toEqual([]);
  });

  it('revokes a key so it is no longer found, keeping the first revocation time', async () => {
    const created = await repo.create({ projectId: 'proj_dev', environment: 'live', scopes: ['servers:read'] });
    const first = await repo.revoke(created.id);
    expect(first.revokedAt).toBeInstanceOf(Date);
    await expect(repo.findActiveByKey(created.key)).resolves.toBeNull();
    const again = await repo.revoke(created.id);
    expect(again.revokedAt).toEqual(first.revokedAt);
    const listed = (await repo.list('proj_dev')).find((k) => k.id === created.id);
    expect(listed?.revokedAt).toEqual(first.revokedAt);
  });

  it('reports an unknown id on revoke as not_found', async () => {
    const err = await repo.revoke('key_missing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('not_found');
  });

  it('rejects unknown scopes and unknown projects', async () => {
    await expect(repo.create({ projectId: 'proj_dev', environment: 'live', scopes: ['nope' as never] })).rejects.toMatchObject({ code: 'invalid_body' });
    await expect(repo.create({ projectId: 'proj_missing', environment: 'live', scopes: ['servers:read'] })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('touch sets last_used_at', async () => {
    const created = await repo.create({ projectId: 'proj_dev', environment: 'live', scopes: ['servers:read'] });
    await repo.touch(created.id);
    const row = await db.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.lastUsedAt).toBeInstanceOf(Date);
    await repo.touch('key_missing');
  });

  it('seeding twice changes nothing', async () => {
    await seed(db.prisma);
    await expect(db.prisma.org.count()).resolves.toBe(1);
    await expect(db.prisma.project.findUniqueOrThrow({ where: { id: 'proj_dev' } })).resolves.toMatchObject({ orgId: 'org_dev', name: 'Dev project' });
  });
});
