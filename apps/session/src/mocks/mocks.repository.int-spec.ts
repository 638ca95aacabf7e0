import { createTestDatabase, seed, type TestDatabase } from '@rota/db';
import { MocksRepository } from './mocks.repository';

describe('MocksRepository (Postgres)', () => {
  let db: TestDatabase;
  let repo: MocksRepository;
  let n = 0;

  const session = async () => {
    const id = `ses_mocks_${++n}`;
    await db.prisma.session.create({ data: { id, projectId: 'proj_dev', environment: 'test', servers: ['asaas'] } });
    return id;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    repo = new MocksRepository(db.prisma, db.sql);
  });
  afterAll(() => db.drop());

  it('answers a tool’s mocks oldest first, each answer once, then says the tool is used up', async () => {
    const s = await session();
    const first = await repo.create({
      sessionId: s,
      tool: 'asaas/get_payment',
      response: { n: 1 },
      times: 1,
      max: 100,
    });
    await repo.create({ sessionId: s, tool: 'asaas/get_payment', response: { n: 2 }, times: 2, max: 100 });
    expect(first).toMatchObject({ tool: 'asaas/get_payment', times: 1, remaining: 1 });

    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await repo.take(s, 'asaas/get_payment'));
    expect(answers.map((a) => a.taken?.response ?? null)).toEqual([{ n: 1 }, { n: 2 }, { n: 2 }, null]);
    expect(answers[3]).toEqual({ taken: null, sessionHasMocks: true, toolHasMocks: true });
    expect(await repo.take(s, 'asaas/create_payment')).toEqual({
      taken: null,
      sessionHasMocks: true,
      toolHasMocks: false,
    });
    expect((await repo.list(s)).map((m) => m.remaining)).toEqual([0, 0]);
  });

  it('keeps meta-tool mocks out of the raw-tool lock: a session with only those reports no raw mocks', async () => {
    const s = await session();
    await repo.create({ sessionId: s, tool: 'codespar_charge', response: { id: 'chg_1' }, times: 1, max: 100 });
    expect(await repo.take(s, 'asaas/get_payment')).toEqual({
      taken: null,
      sessionHasMocks: false,
      toolHasMocks: false,
    });
    expect(await repo.take(s, 'codespar_charge')).toEqual({
      taken: { id: expect.any(String), response: { id: 'chg_1' } },
      sessionHasMocks: false,
      toolHasMocks: true,
    });
    expect((await repo.take(s, 'codespar_charge')).taken).toBeNull();
  });

  it('hands out each answer once under concurrency, and refuses a mock past the session’s limit', async () => {
    const s = await session();
    await repo.create({ sessionId: s, tool: 'asaas/get_payment', response: true, times: 7, max: 2 });
    const taken = await Promise.all(Array.from({ length: 20 }, () => repo.take(s, 'asaas/get_payment')));
    expect(taken.filter((t) => t.taken).length).toBe(7);
    expect(await repo.create({ sessionId: s, tool: 'asaas/x', response: 1, times: 1, max: 2 })).not.toBeNull();
    expect(await repo.create({ sessionId: s, tool: 'asaas/y', response: 1, times: 1, max: 2 })).toBeNull();
  });

  // What this lookup costs is a figure, not an assertion: `pnpm bench`
  // (bench/rails.mjs) times execute of codespar_charge in a test session,
  // which makes it on every call.
  it('answers a session without mocks plainly, however often it is asked', async () => {
    const s = await session();
    const answers = await Promise.all(Array.from({ length: 50 }, () => repo.take(s, 'codespar_charge')));
    for (const a of answers) expect(a).toEqual({ taken: null, sessionHasMocks: false, toolHasMocks: false });
    expect(await repo.list(s)).toEqual([]);
  });
});
