import { createTestDatabase, seed, type TestDatabase } from '@rota/db';
import { ToolsRepository } from '../tools/tools.repository';
import { ToolCallsRepository } from './tool-calls.repository';

describe('ToolsRepository and ToolCallsRepository (Postgres)', () => {
  let db: TestDatabase;
  let tools: ToolsRepository;
  let repo: ToolCallsRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    await db.prisma.org.create({ data: { id: 'org_b', name: 'B', plan: 'pro', quotaMonthlyCalls: 5 } });
    await db.prisma.project.create({ data: { id: 'proj_b', orgId: 'org_b', name: 'B' } });
    await db.prisma.project.create({ data: { id: 'proj_dev2', orgId: 'org_dev', name: 'Dev 2' } });
    await db.prisma.provider.create({
      data: {
        id: 'pp',
        name: 'PP',
        description: 'payments',
        category: 'payments',
        countries: ['BR'],
        authType: 'api_key',
        selfServeAuth: true,
        baseUrls: {},
      },
    });
    const tool = (toolName: string, description: string, projectId: string | null) =>
      db.prisma.mcpTool.create({
        data: {
          serverId: 'pp',
          toolName,
          description,
          descriptionHash: description,
          projectId,
          inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
        },
      });
    await tool('charge', 'global charge', null);
    await tool('charge', 'dev override', 'proj_dev');
    await tool('secret', 'b only', 'proj_b');
    tools = new ToolsRepository(db.prisma);
    repo = new ToolCallsRepository(db.prisma, db.sql);
  });
  afterAll(() => db.drop());

  it('resolves a catalog tool for a project: its own version first, other projects’ tools never', async () => {
    expect((await tools.findTool('pp', 'charge', 'proj_dev'))?.description).toBe('dev override');
    expect((await tools.findTool('pp', 'charge', 'proj_b'))?.description).toBe('global charge');
    expect(await tools.findTool('pp', 'secret', 'proj_dev')).toBeNull();
    expect((await tools.findTool('pp', 'secret', 'proj_b'))?.inputSchema).toEqual({
      type: 'object',
      properties: { n: { type: 'integer' } },
    });
    expect((await tools.listTools(['pp'], 'proj_dev')).map((t) => `${t.toolName}:${t.description}`)).toEqual([
      'charge:dev override',
    ]);
    expect(await tools.listTools([], 'proj_dev')).toEqual([]);
  });

  it('records calls with or without a session, and counts this month’s calls per org across its projects', async () => {
    const session = await db.prisma.session.create({
      data: { id: 'ses_1', projectId: 'proj_dev', environment: 'live', servers: ['pp'] },
    });
    const base = {
      environment: 'live' as const,
      tool: 'codespar_list_tools',
      server: null,
      input: {},
      output: { ok: 1 },
      success: true,
      error: null,
      durationMs: 1,
      durable: false,
    };
    const id = await repo.recordCall({ ...base, sessionId: session.id, projectId: 'proj_dev', calledAt: new Date() });
    expect(id).toMatch(/^tc_[A-Za-z0-9]{24}$/);
    await repo.recordCall({ ...base, sessionId: null, projectId: 'proj_dev2', calledAt: new Date(), durable: true });
    await repo.recordCall({ ...base, sessionId: null, projectId: 'proj_b', output: null, calledAt: new Date() });
    // Last month does not count.
    const lastMonth = new Date();
    lastMonth.setUTCMonth(lastMonth.getUTCMonth() - 1);
    await repo.recordCall({ ...base, sessionId: null, projectId: 'proj_dev', calledAt: lastMonth });

    expect(await repo.usage('org_dev')).toEqual({ plan: 'free', quotaMonthlyCalls: null, used: 2 });
    expect(await repo.usage('org_b')).toEqual({ plan: 'pro', quotaMonthlyCalls: 5, used: 1 });
    expect(await repo.usage('org_none')).toBeNull();
    const row = await db.prisma.sessionToolCall.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ sessionId: 'ses_1', projectId: 'proj_dev', environment: 'live', output: { ok: 1 } });
  });

  it('refuses a call row that belongs to neither a session nor a project', async () => {
    await expect(
      db.prisma.sessionToolCall.create({
        data: { id: 'tc_orphan', tool: 't', input: {}, success: true, durationMs: 0 },
      }),
    ).rejects.toThrow();
  });
});
