import { createTestDatabase, seed, type TestDatabase } from '@rota/db';
import { testPrefix } from '@rota/service-kit/testing/redis-server';
import Redis from 'ioredis';
import { EligibilityRepository, type ProviderAccess } from './eligibility.repository';
import { eligibilityKey, eligibilityRefreshesKey, EligibilityService } from './eligibility.service';

/**
 * Overlapping refreshes of one tenant against real Postgres and Redis: the
 * refresh that read the database last decides what is stored, whatever order
 * they finish in.
 */
describe('EligibilityService refresh (Postgres, Redis)', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = testPrefix('elig');
  const tenant = { org_id: 'org_dev', project_id: 'proj_dev', environment: 'live' as const };
  let db: TestDatabase;

  /** The real repository, with the first read held back until released: the slow refresh of a race. */
  class HeldRepository extends EligibilityRepository {
    hold: Promise<void> | null = null;
    /** Called once the held read has its answer. */
    onRead: () => void = () => undefined;
    override async providerAccess(
      ...args: Parameters<EligibilityRepository['providerAccess']>
    ): Promise<ProviderAccess> {
      const hold = this.hold;
      this.hold = null;
      const access = await super.providerAccess(...args);
      if (hold) {
        this.onRead();
        await hold;
      }
      return access;
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    // One provider of the rail catalog, global (no project), key-based.
    await db.prisma.provider.create({
      data: {
        id: 'asaas',
        name: 'Asaas',
        description: 'Payments',
        category: 'payments',
        authType: 'api_key',
        selfServeAuth: true,
        baseUrls: {},
      },
    });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await db.drop();
  });

  it('a refresh that read before a connection was written never overwrites the one that read after', async () => {
    const repo = new HeldRepository(db.prisma);
    const service = new EligibilityService(redis, repo, { prefix, ttlSeconds: 300 });
    let release!: () => void;
    repo.hold = new Promise<void>((r) => (release = r));

    // The first refresh reads while nothing is connected, then stalls.
    const read = new Promise<void>((r) => (repo.onRead = r));
    const stale = service.refresh(tenant);
    await read;
    // A connection is written and its own refresh runs to the end.
    await db.prisma.connection.create({
      data: { id: 'conn_race', projectId: 'proj_dev', environment: 'live', serverId: 'asaas', status: 'connected' },
    });
    const fresh = await service.refresh(tenant);
    expect(fresh.providers.asaas).toBe('connected');

    // The stale one finishes last: it answers the newer set and stores nothing.
    release();
    expect((await stale).providers.asaas).toBe('connected');
    const stored = JSON.parse((await redis.get(eligibilityKey(prefix, tenant)))!);
    expect(stored.providers.asaas).toBe('connected');
    expect((await service.get(tenant)).providers.asaas).toBe('connected');
    // Both computed the set.
    expect(Number(await redis.get(eligibilityRefreshesKey(prefix, tenant)))).toBe(2);

    // Deleting goes through the same way, and a plain sequence still stores each answer.
    await db.prisma.connection.delete({ where: { id: 'conn_race' } });
    expect((await service.refresh(tenant)).providers.asaas).toBeUndefined();
    expect(JSON.parse((await redis.get(eligibilityKey(prefix, tenant)))!).providers.asaas).toBeUndefined();
  });
});
