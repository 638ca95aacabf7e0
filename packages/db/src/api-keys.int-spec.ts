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
    const created = await repo.create({
      projectId: 'proj_dev',
      environment: 'live',
      scopes: ['servers:read', 'tools:execute'],
      name: 'agent',
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^key_[A-Za-z0-9]+$/),
      key: expect.stringMatching(/^csk_live_[A-Za-z0-9]{32}$/),
      prefix: created.key.slice(0, 12),
      scopes: ['servers:read', 'tools:execute'],
      environment: 'live',
      projectId: 'proj_dev',
      expiresAt: null,
    });
  });

  it('makes operator keys without a project, and never puts admin on a project key', async () => {
    const op = await repo.create({ operator: true, scopes: ['admin', 'catalog:write'] });
    expect(op).toMatchObject({
      projectId: null,
      environment: null,
      scopes: ['admin', 'catalog:write'],
      key: expect.stringMatching(/^csk_live_/),
    });
    await expect(repo.findActiveByKey(op.key)).resolves.toEqual({
      id: op.id,
      projectId: null,
      orgId: null,
      environment: null,
      scopes: ['admin', 'catalog:write'],
    });
    const before = await db.prisma.apiKey.count();
    await expect(
      repo.create({ projectId: 'proj_dev', environment: 'live', scopes: ['servers:read', 'admin'] }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(repo.create({ operator: true, scopes: ['catalog:write'] })).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(repo.create({ operator: true, scopes: ['admin', 'tools:execute'] })).rejects.toMatchObject({
      code: 'forbidden',
    });
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
      expect(Object.keys(k).sort()).toEqual([
        'createdAt',
        'environment',
        'expiresAt',
        'id',
        'lastUsedAt',
        'name',
        'parentId',
        'prefix',
        'projectId',
        'revokedAt',
        'scopes',
        'sessionId',
        'userId',
      ]);
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

  describe('child keys', () => {
    it('mints a child in the parent’s project and environment, with its binding, capped at the parent’s expiry', async () => {
      const parentExpiry = new Date(Date.now() + 120_000);
      const parent = await repo.create({
        projectId: 'proj_dev',
        environment: 'test',
        scopes: ['servers:read', 'keys:write'],
        expiresAt: parentExpiry,
      });
      const child = await repo.createChild({
        parentId: parent.id,
        scopes: ['servers:read'],
        expiresInS: 3600,
        userId: 'user_1',
        sessionId: 'ses_1',
        name: 'c',
      });
      expect(child).toMatchObject({
        projectId: 'proj_dev',
        environment: 'test',
        parentId: parent.id,
        userId: 'user_1',
        sessionId: 'ses_1',
        name: 'c',
      });
      expect(child!.key).toMatch(/^csk_test_/);
      expect(child!.expiresAt.toISOString()).toBe(parentExpiry.toISOString());
      await expect(repo.findActiveByKey(child!.key)).resolves.toEqual({
        id: child!.id,
        projectId: 'proj_dev',
        orgId: 'org_dev',
        environment: 'test',
        scopes: ['servers:read'],
        expiresAt: parentExpiry,
        sessionId: 'ses_1',
        userId: 'user_1',
        parentId: parent.id,
      });
      const short = await repo.createChild({ parentId: parent.id, scopes: ['servers:read'], expiresInS: 60 });
      const ttl = short!.expiresAt.getTime() - short!.createdAt.getTime();
      expect(ttl).toBeGreaterThanOrEqual(59_000);
      expect(ttl).toBeLessThanOrEqual(61_000);
    });

    it('mints nothing past the parent’s scopes, for a child, an operator key, or a revoked or expired parent', async () => {
      const parent = await repo.create({
        projectId: 'proj_dev',
        environment: 'live',
        scopes: ['servers:read', 'keys:write'],
      });
      await expect(
        repo.createChild({ parentId: parent.id, scopes: ['tools:execute'], expiresInS: 60 }),
      ).resolves.toBeNull();
      await expect(
        repo.createChild({ parentId: parent.id, scopes: ['keys:write'], expiresInS: 60 }),
      ).rejects.toMatchObject({ code: 'forbidden' });
      const child = await repo.createChild({ parentId: parent.id, scopes: ['servers:read'], expiresInS: 60 });
      await expect(
        repo.createChild({ parentId: child!.id, scopes: ['servers:read'], expiresInS: 60 }),
      ).resolves.toBeNull();
      const op = await repo.create({ operator: true, scopes: ['admin', 'servers:read'] });
      await expect(repo.createChild({ parentId: op.id, scopes: ['servers:read'], expiresInS: 60 })).resolves.toBeNull();
      await db.prisma.apiKey.delete({ where: { id: op.id } });
      const lapsed = await repo.create({
        projectId: 'proj_dev',
        environment: 'live',
        scopes: ['servers:read', 'keys:write'],
      });
      await db.prisma.apiKey.update({ where: { id: lapsed.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      await expect(
        repo.createChild({ parentId: lapsed.id, scopes: ['servers:read'], expiresInS: 60 }),
      ).resolves.toBeNull();
      await repo.revoke(parent.id);
      await expect(
        repo.createChild({ parentId: parent.id, scopes: ['servers:read'], expiresInS: 60 }),
      ).resolves.toBeNull();
    });

    it('an expired key, or a child of a revoked or expired parent, is not found; revoking stamps the children', async () => {
      const parent = await repo.create({
        projectId: 'proj_dev',
        environment: 'live',
        scopes: ['servers:read', 'keys:write'],
      });
      const a = await repo.createChild({ parentId: parent.id, scopes: ['servers:read'], expiresInS: 600 });
      const b = await repo.createChild({ parentId: parent.id, scopes: ['servers:read'], expiresInS: 600 });
      await db.prisma.apiKey.update({ where: { id: b!.id }, data: { expiresAt: new Date(Date.now() - 1) } });
      await expect(repo.findActiveByKey(a!.key)).resolves.toMatchObject({ id: a!.id });
      await expect(repo.findActiveByKey(b!.key)).resolves.toBeNull();
      // A parent that lapses takes its children with it, whatever their own expiry says.
      await db.prisma.apiKey.update({ where: { id: parent.id }, data: { expiresAt: new Date(Date.now() - 1) } });
      await expect(repo.findActiveByKey(a!.key)).resolves.toBeNull();
      await db.prisma.apiKey.update({ where: { id: parent.id }, data: { expiresAt: null } });
      await expect(repo.findActiveByKey(a!.key)).resolves.toMatchObject({ id: a!.id });
      // Even a child row left unstamped is refused once the parent is revoked.
      await db.prisma.apiKey.update({ where: { id: parent.id }, data: { revokedAt: new Date() } });
      await expect(repo.findActiveByKey(a!.key)).resolves.toBeNull();
      await db.prisma.apiKey.update({ where: { id: parent.id }, data: { revokedAt: null } });
      const revoked = await repo.revoke(parent.id);
      const rows = await db.prisma.apiKey.findMany({ where: { parentId: parent.id } });
      expect(rows.map((r) => r.revokedAt?.getTime())).toEqual([
        revoked.revokedAt!.getTime(),
        revoked.revokedAt!.getTime(),
      ]);
    });
  });

  it('reports an unknown id on revoke as not_found', async () => {
    const err = await repo.revoke('key_missing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('not_found');
  });

  it('rejects unknown scopes and unknown projects', async () => {
    await expect(
      repo.create({ projectId: 'proj_dev', environment: 'live', scopes: ['nope' as never] }),
    ).rejects.toMatchObject({ code: 'invalid_body' });
    await expect(
      repo.create({ projectId: 'proj_missing', environment: 'live', scopes: ['servers:read'] }),
    ).rejects.toMatchObject({ code: 'not_found' });
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
    await expect(db.prisma.project.findUniqueOrThrow({ where: { id: 'proj_dev' } })).resolves.toMatchObject({
      orgId: 'org_dev',
      name: 'Dev project',
    });
  });
});
