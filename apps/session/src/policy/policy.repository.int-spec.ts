import { createTestDatabase, seed, type TestDatabase } from '@rota/db';
import { PolicyRepository } from './policy.repository';

describe('PolicyRepository (Postgres)', () => {
  let db: TestDatabase;
  let repo: PolicyRepository;
  const day = {
    projectId: 'proj_dev',
    environment: 'live' as const,
    tool: 'codespar_pay',
    currency: 'BRL',
    userId: 'user-1',
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    repo = new PolicyRepository(db.prisma);
  });
  afterAll(() => db.drop());

  it('reserves a user’s day atomically: of 10 concurrent 300s under 1000, exactly 3 pass', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => repo.reserveDaily(day, 300n, 1000n)));
    expect(results.filter(Boolean)).toHaveLength(3);
    const row = await db.prisma.policyDailyUsage.findFirst({ where: { userId: 'user-1' } });
    expect(row?.reservedMinor).toBe(900n);
    // Another user, another total; a single amount above the limit never reserves.
    expect(await repo.reserveDaily({ ...day, userId: 'user-2' }, 1000n, 1000n)).toBe(true);
    expect(await repo.reserveDaily({ ...day, userId: 'user-3' }, 1001n, 1000n)).toBe(false);
    await repo.releaseDaily(day, 300n);
    expect(await repo.reserveDaily(day, 400n, 1000n)).toBe(true);
    expect(await repo.reserveDaily(day, 1n, 1000n)).toBe(false);
  });

  it('spends an approved approval once, only for the call it is bound to', async () => {
    const binding = {
      projectId: 'proj_dev',
      environment: 'live' as const,
      userId: 'user-1',
      tool: 'codespar_pay',
      action: 'pay',
      argsHash: 'h1',
    };
    const a = await repo.createApproval({
      ...binding,
      sessionId: null,
      amountMinor: 5000n,
      currency: 'BRL',
      ruleId: 'pr_1',
      requestedByKey: 'key_a',
      ttlSeconds: 60,
    });
    expect(a.status).toBe('pending');
    expect(await repo.spendApproval(a.id, binding)).toBe(false);
    expect((await repo.decide(a.id, 'proj_dev', 'live', 'approved', 'key_b'))?.status).toBe('approved');
    expect(await repo.decide(a.id, 'proj_dev', 'live', 'denied', 'key_b')).toBeNull();
    expect(await repo.spendApproval(a.id, { ...binding, argsHash: 'h2' })).toBe(false);
    expect(await repo.spendApproval(a.id, { ...binding, projectId: 'proj_other' })).toBe(false);
    const spent = await Promise.all([repo.spendApproval(a.id, binding), repo.spendApproval(a.id, binding)]);
    expect(spent.filter(Boolean)).toHaveLength(1);
    expect((await repo.findApproval(a.id, 'proj_dev', 'live'))?.status).toBe('used');
  });
});
