import { AppError, type SessionCreateCommand, type Tenant } from '@rota/contracts';
import { createTestDatabase, seed, type TestDatabase } from '@rota/db';
import { requestContext } from '@rota/service-kit';
import { ConnectionsRepository } from '../connections/connections.repository';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

const TENANT: Tenant = { org_id: 'org_dev', project_id: 'proj_dev', environment: 'test' };

describe('SessionsService.create and the caller deadline (Postgres)', () => {
  let db: TestDatabase;
  let service: SessionsService;
  const count = () => db.prisma.session.count({ where: { projectId: 'proj_dev' } });

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    service = new SessionsService(
      new SessionsRepository(db.prisma, db.sql),
      new ConnectionsRepository(db.prisma, db.sql),
      30,
    );
  });
  afterAll(() => db.drop());

  const create = (deadline: number) =>
    requestContext.run({ requestId: 'r', deadline, tenant: TENANT }, () =>
      service.create({ body: { servers: [] } } as unknown as SessionCreateCommand),
    );

  it('opens no session for a caller whose deadline has passed, and says nothing was done', async () => {
    const before = await count();
    const err = await create(Date.now() - 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'unavailable' });
    expect(await count()).toBe(before);
  });

  it('opens the session while the caller still waits', async () => {
    const before = await count();
    const s = await create(Date.now() + 5000);
    expect(s).toMatchObject({ status: 'active', environment: 'test', servers: [] });
    expect(await count()).toBe(before + 1);
  });
});
