import { createTestDatabase, seed, type TestDatabase } from '@rota/db';
import { loadConfig } from '@rota/service-kit';
import { OwnRedis, testPrefix } from '@rota/service-kit/testing/redis-server';
import { WorkerConfig } from '../config';
import { createJobRunner } from './create-runner';
import { SCHEDULERS, type JobRunner } from './runner';
import { reconcileCalls } from './calls-reconcile';
import { SessionsRepository } from './sessions.repository';

jest.setTimeout(120_000);

describe('maintenance jobs', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
  });
  afterAll(() => db.drop());

  it('puts the job schedulers back after Redis restarts without persistence', async () => {
    const redis = await OwnRedis.start();
    const config = loadConfig(WorkerConfig, {
      ...process.env,
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      ROTA_REDIS_PREFIX: testPrefix('sched'),
      ROTA_LOCAL_EMBEDDER: 'hash',
      LOG_LEVEL: 'silent',
    });
    let runner: JobRunner | undefined;
    try {
      runner = createJobRunner(config, db.prisma);
      await runner.start();
      expect(await runner.missingSchedulers()).toEqual([]);
      await redis.stop();
      await redis.start();
      // Reconnection is the client's own; wait for it to put the schedulers back.
      let missing = Object.values(SCHEDULERS) as string[];
      for (let i = 0; i < 200 && missing.length > 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        missing = await runner.missingSchedulers().catch(() => missing);
      }
      expect(missing).toEqual([]);
    } finally {
      await runner?.close().catch(() => undefined);
      await redis.stop();
    }
  });

  it('marks provider calls left pending as outcome_unknown, with their idempotency keys', async () => {
    const repo = new SessionsRepository(db.prisma);
    const old = new Date(Date.now() - 10 * 60_000);
    await db.prisma.sessionToolCall.createMany({
      data: [
        {
          id: 'tc_stale',
          projectId: 'proj_dev',
          environment: 'test',
          tool: 'asaas/create_payment',
          server: 'asaas',
          input: {},
          success: false,
          durationMs: 0,
          calledAt: old,
          state: 'pending',
        },
        {
          id: 'tc_fresh',
          projectId: 'proj_dev',
          environment: 'test',
          tool: 'asaas/create_payment',
          server: 'asaas',
          input: {},
          success: false,
          durationMs: 0,
          calledAt: new Date(),
          state: 'pending',
        },
      ],
    });
    await db.prisma.idempotencyKey.create({
      data: {
        orgId: 'org_dev',
        projectId: 'proj_dev',
        environment: 'test',
        key: 'k-stale',
        requestHash: 'h',
        state: 'running',
        toolCallId: 'tc_stale',
        deadline: old,
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    // No way to ask the provider (no session service here): the outcome is unknown, and the row says it did not look.
    expect(await reconcileCalls(repo, undefined, 120)).toEqual({ found: 0, unknown: 1 });
    const stale = await db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id: 'tc_stale' } });
    expect(stale.state).toBe('outcome_unknown');
    expect(stale.output).toMatchObject({
      code: 'outcome_unknown',
      reconciled: { looked_up: false, outcome: 'not_supported' },
    });
    expect((await db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id: 'tc_fresh' } })).state).toBe('pending');
    const key = await db.prisma.idempotencyKey.findFirstOrThrow({ where: { key: 'k-stale' } });
    expect(key.state).toBe('unknown');
    expect(key.response).toMatchObject({ success: false, data: { code: 'outcome_unknown' }, tool_call_id: 'tc_stale' });
    expect(await reconcileCalls(repo, undefined, 120)).toEqual({ found: 0, unknown: 0 });
  });
});
