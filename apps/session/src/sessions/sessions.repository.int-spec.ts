import { createTestDatabase, seed, type PrismaClient, type TestDatabase } from '@rota/db';
import { SessionsRepository } from './sessions.repository';

// The worker's sweep, loaded at run time (it lives outside this package's sources).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SessionsRepository: WorkerSessions } = require('../../../worker/src/jobs/sessions.repository') as {
  SessionsRepository: new (prisma: PrismaClient) => { expireIdle(idleMinutes: number): Promise<number> };
};

describe('SessionsRepository (Postgres)', () => {
  let db: TestDatabase;
  let repo: SessionsRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    await db.prisma.project.create({ data: { id: 'proj_b', orgId: 'org_dev', name: 'B' } });
    repo = new SessionsRepository(db.prisma, db.sql);
  });
  afterAll(() => db.drop());

  const open = () =>
    repo.create({ projectId: 'proj_dev', environment: 'live', userId: null, servers: ['x'], metadata: { a: 1 } });
  const age = (id: string, minutes: number) =>
    db.prisma.session.update({ where: { id }, data: { lastActiveAt: new Date(Date.now() - minutes * 60_000) } });

  it('finds a session only with its own project and environment', async () => {
    const s = await open();
    expect((await repo.find(s.id, 'proj_dev', 'live', 30))?.metadata).toEqual({ a: 1 });
    expect(await repo.find(s.id, 'proj_b', 'live', 30)).toBeNull();
    expect(await repo.find(s.id, 'proj_dev', 'test', 30)).toBeNull();
    expect(await repo.close(s.id, 'proj_b', 'live')).toBeNull();
    expect((await repo.find(s.id, 'proj_dev', 'live', 30))?.status).toBe('active');
  });

  it('expires an idle session on read, stores it, and leaves a fresh one alone', async () => {
    const idle = await open();
    const fresh = await open();
    await age(idle.id, 45);
    await age(fresh.id, 10);
    expect((await repo.find(idle.id, 'proj_dev', 'live', 30))?.status).toBe('expired');
    expect((await db.prisma.session.findUniqueOrThrow({ where: { id: idle.id } })).status).toBe('expired');
    expect((await repo.find(fresh.id, 'proj_dev', 'live', 30))?.status).toBe('active');
    // Reading does not count as activity; an execute lookup (touch) does, but never revives an expired session.
    const before = (await db.prisma.session.findUniqueOrThrow({ where: { id: fresh.id } })).lastActiveAt;
    expect((await repo.find(fresh.id, 'proj_dev', 'live', 30))?.lastActiveAt).toEqual(before);
    const touched = await repo.find(fresh.id, 'proj_dev', 'live', 30, true);
    expect(touched?.status).toBe('active');
    expect(touched!.lastActiveAt.getTime()).toBeGreaterThan(before.getTime() + 60_000);
    expect((await repo.find(idle.id, 'proj_dev', 'live', 30, true))?.status).toBe('expired');
  });

  it('restarts the idle clock at most once per touch interval', async () => {
    const s = await open();
    const seconds = (id: string, n: number) =>
      db.prisma.session.update({ where: { id }, data: { lastActiveAt: new Date(Date.now() - n * 1000) } });
    const stored = async () =>
      (await db.prisma.session.findUniqueOrThrow({ where: { id: s.id } })).lastActiveAt.getTime();

    await seconds(s.id, 5);
    const recent = await stored();
    // Touched 5 s ago with a 15 s interval: read, not rewritten.
    expect((await repo.find(s.id, 'proj_dev', 'live', 30, true, 15))?.lastActiveAt.getTime()).toBe(recent);
    expect(await stored()).toBe(recent);

    await seconds(s.id, 20);
    const older = await stored();
    const touched = await repo.find(s.id, 'proj_dev', 'live', 30, true, 15);
    expect(touched!.lastActiveAt.getTime()).toBeGreaterThan(older + 15_000);
    expect(await stored()).toBe(touched!.lastActiveAt.getTime());
  });

  it('agrees with the worker sweep on the same column and rule', async () => {
    const a = await open();
    const b = await open();
    await age(a.id, 31);
    const swept = await new WorkerSessions(db.prisma).expireIdle(30);
    expect(swept).toBeGreaterThanOrEqual(1);
    expect((await repo.find(a.id, 'proj_dev', 'live', 30))?.status).toBe('expired');
    expect((await repo.find(b.id, 'proj_dev', 'live', 30))?.status).toBe('active');
  });

  it('closes once: later closes keep the first closed_at, an expired session can be closed', async () => {
    const s = await open();
    const first = await repo.close(s.id, 'proj_dev', 'live');
    await new Promise((r) => setTimeout(r, 5));
    const second = await repo.close(s.id, 'proj_dev', 'live');
    expect(first?.status).toBe('closed');
    expect(second?.closedAt?.toISOString()).toBe(first?.closedAt?.toISOString());
    // A closed session is never turned into an expired one by the idle rule.
    await age(s.id, 90);
    expect((await repo.find(s.id, 'proj_dev', 'live', 30))?.status).toBe('closed');

    const e = await open();
    await age(e.id, 90);
    expect((await repo.find(e.id, 'proj_dev', 'live', 30))?.status).toBe('expired');
    expect((await repo.close(e.id, 'proj_dev', 'live'))?.status).toBe('closed');
  });
});
