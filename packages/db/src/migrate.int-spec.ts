import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { quoteIdent, withAdminClient, withDatabase } from './admin';
import { Prisma, createPrisma, type PrismaClient } from './client';
import { prismaErrorCode } from './errors';
import { listMigrations, migrate } from './migrate';

const BASE = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';

/** An empty database (not cloned from the template): this file tests the migrations themselves. */
async function emptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `rota_mig_${randomBytes(6).toString('hex')}`;
  await withAdminClient(BASE, (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`));
  return {
    url: withDatabase(BASE, name),
    drop: () =>
      withAdminClient(BASE, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

async function query<T extends object>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

const migrations = listMigrations();
const names = migrations.map((m) => m.name);

describe('migrate', () => {
  let db: { url: string; drop(): Promise<void> };
  let prisma: PrismaClient;
  let firstRun: string[];

  beforeAll(async () => {
    db = await emptyDatabase();
    firstRun = await migrate(db.url);
    prisma = createPrisma(db.url, { poolMax: 2 });
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await db?.drop();
  });

  it('applies every migration in order to an empty database', () => {
    expect(names).toEqual(expect.arrayContaining(['20261129000000_init', '20261129000100_mcp_tools_hnsw']));
    expect(firstRun).toEqual(names);
  });

  it('applies nothing the second time', async () => {
    await expect(migrate(db.url)).resolves.toEqual([]);
  });

  it("records each migration in Prisma's table with its sha256 checksum", async () => {
    const rows = await query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      applied_steps_count: number;
      rolled_back_at: Date | null;
    }>(
      db.url,
      `SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at FROM _prisma_migrations ORDER BY migration_name`,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    for (const [i, row] of rows.entries()) {
      expect(row.checksum).toBe(migrations[i]!.checksum);
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.applied_steps_count).toBe(1);
      expect(row.rolled_back_at).toBeNull();
    }
  });

  it("gives _prisma_migrations exactly Prisma's columns", async () => {
    const cols = await query<{ column_name: string; data_type: string; is_nullable: string }>(
      db.url,
      `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(cols.map((c) => [c.column_name, c.data_type, c.is_nullable])).toEqual([
      ['id', 'character varying', 'NO'],
      ['checksum', 'character varying', 'NO'],
      ['finished_at', 'timestamp with time zone', 'YES'],
      ['migration_name', 'character varying', 'NO'],
      ['logs', 'text', 'YES'],
      ['rolled_back_at', 'timestamp with time zone', 'YES'],
      ['started_at', 'timestamp with time zone', 'NO'],
      ['applied_steps_count', 'integer', 'NO'],
    ]);
  });

  it('installs the vector and pg_trgm extensions', async () => {
    const rows = await query<{ extname: string }>(
      db.url,
      `SELECT extname FROM pg_extension WHERE extname IN ('vector', 'pg_trgm') ORDER BY extname`,
    );
    expect(rows.map((r) => r.extname)).toEqual(['pg_trgm', 'vector']);
  });

  it('creates the HNSW, trigram and NULLS NOT DISTINCT indexes', async () => {
    const rows = await query<{ indexname: string; indexdef: string }>(
      db.url,
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`,
    );
    const def = (name: string) => rows.find((r) => r.indexname === name)?.indexdef ?? '';
    expect(def('mcp_tools_embedding_hnsw_idx')).toMatch(/USING hnsw \(embedding vector_cosine_ops\)/);
    for (const name of [
      'mcp_tools_tool_name_trgm_idx',
      'mcp_tools_description_trgm_idx',
      'providers_name_trgm_idx',
      'providers_description_trgm_idx',
    ]) {
      expect(def(name)).toMatch(/USING gin \(\w+ gin_trgm_ops\)/);
    }
    expect(def('mcp_tools_server_id_tool_name_project_id_key')).toMatch(/UNIQUE INDEX .* NULLS NOT DISTINCT/);
    expect(def('session_tool_calls_session_id_called_at_idx')).toMatch(/\(session_id, called_at\)/);
  });

  it('lets every Prisma model be queried (the hand-written SQL matches the schema)', async () => {
    const models = Object.values(Prisma.ModelName);
    // Every model the schema declares, so a new table cannot be left out of this check.
    const declared =
      readFileSync(join(__dirname, '..', '..', '..', 'prisma', 'schema.prisma'), 'utf8').match(/^model \w+/gm) ?? [];
    expect(models).toHaveLength(declared.length);
    for (const model of models) {
      const delegate = (prisma as unknown as Record<string, { findFirst(): Promise<unknown> }>)[
        model.charAt(0).toLowerCase() + model.slice(1)
      ];
      await expect(delegate!.findFirst()).resolves.toBeNull();
    }
  });

  it('round-trips a fully populated row of every model through the Prisma client', async () => {
    await prisma.org.create({ data: { id: 'org_1', name: 'Org', quotaMonthlyCalls: 1000 } });
    await prisma.project.create({ data: { id: 'proj_1', orgId: 'org_1', name: 'Project' } });
    await prisma.apiKey.create({
      data: {
        id: 'key_1',
        projectId: 'proj_1',
        environment: 'test',
        name: 'ci',
        prefix: 'csk_test_abc',
        keyHash: 'a'.repeat(64),
        scopes: ['servers:read'],
        lastUsedAt: new Date(),
        revokedAt: null,
      },
    });
    await prisma.provider.create({
      data: {
        id: 'acme',
        name: 'Acme Pay',
        description: 'Payments',
        category: 'payments',
        countries: ['DE', 'FR'],
        authType: 'api_key',
        selfServeAuth: true,
        baseUrls: { live: 'https://api.acme.test', sandbox: 'https://sandbox.acme.test' },
      },
    });
    const tool = await prisma.mcpTool.create({
      data: {
        serverId: 'acme',
        toolName: 'create_payment',
        description: 'Create a payment',
        inputSchema: { type: 'object' },
        httpMethod: 'POST',
        endpointTemplate: '/v1/payments',
        descriptionHash: 'h',
        embeddingModel: 'text-embedding-3-small',
        embeddedAt: new Date(),
      },
    });
    expect(tool.id).toMatch(/^[0-9a-f-]{36}$/);
    await prisma.mcpTool.create({
      data: {
        serverId: 'acme',
        toolName: 'create_payment',
        description: 'Project copy',
        descriptionHash: 'h',
        projectId: 'proj_1',
      },
    });
    await prisma.connection.create({
      data: {
        id: 'conn_1',
        projectId: 'proj_1',
        environment: 'live',
        serverId: 'acme',
        credentialsCiphertext: new Uint8Array([1, 2, 3]),
        credentialsKeyId: 'k1',
      },
    });
    await prisma.session.create({
      data: {
        id: 'ses_1',
        projectId: 'proj_1',
        environment: 'live',
        userId: 'u1',
        servers: ['acme'],
        metadata: { a: 1 },
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    await prisma.sessionToolCall.create({
      data: {
        id: 'tc_1',
        sessionId: 'ses_1',
        tool: 'create_payment',
        server: 'acme',
        input: { amount: 1 },
        output: { ok: true },
        success: true,
        durationMs: 12,
      },
    });

    const org = await prisma.org.findUniqueOrThrow({
      where: { id: 'org_1' },
      include: {
        projects: {
          include: { apiKeys: true, connections: true, sessions: { include: { toolCalls: true } }, mcpTools: true },
        },
      },
    });
    expect(org.plan).toBe('free');
    const project = org.projects[0]!;
    expect(project.apiKeys[0]).toMatchObject({ environment: 'test', scopes: ['servers:read'] });
    expect(Buffer.from(project.connections[0]!.credentialsCiphertext!)).toEqual(Buffer.from([1, 2, 3]));
    expect(project.connections[0]!.status).toBe('connected');
    expect(project.sessions[0]).toMatchObject({ status: 'active', servers: ['acme'], metadata: { a: 1 } });
    expect(project.sessions[0]!.toolCalls[0]).toMatchObject({ success: true, durationMs: 12, output: { ok: true } });
    expect(project.mcpTools).toHaveLength(1);
    const provider = await prisma.provider.findUniqueOrThrow({ where: { id_owner: { id: 'acme', owner: '' } } });
    expect(provider).toMatchObject({
      country: '*',
      status: 'stable',
      sandboxAvailable: false,
      countries: ['DE', 'FR'],
    });
  });

  it('rejects a second catalog tool with the same name (NULL project ids are not distinct)', async () => {
    const err = await prisma.mcpTool
      .create({ data: { serverId: 'acme', toolName: 'create_payment', description: 'dup', descriptionHash: 'h' } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(prismaErrorCode(err)).toBe('P2002');
  });

  it('stores vectors and orders by cosine distance through raw SQL', async () => {
    const vec = (x: number) =>
      `[${Array.from({ length: 1536 }, (_, i) => (i === 0 ? x : i === 1 ? 1 - x : 0)).join(',')}]`;
    await prisma.$executeRaw(Prisma.sql`UPDATE mcp_tools SET embedding = ${vec(1)}::vector WHERE project_id IS NULL`);
    await prisma.$executeRaw(
      Prisma.sql`UPDATE mcp_tools SET embedding = ${vec(0)}::vector WHERE project_id IS NOT NULL`,
    );
    const rows = await prisma.$queryRaw<Array<{ description: string; distance: number }>>(
      Prisma.sql`SELECT description, (embedding <=> ${vec(0.9)}::vector)::float8 AS distance FROM mcp_tools ORDER BY embedding <=> ${vec(0.9)}::vector`,
    );
    expect(rows.map((r) => r.description)).toEqual(['Create a payment', 'Project copy']);
  });

  it('lets concurrent runners on a fresh database apply each migration exactly once', async () => {
    const fresh = await emptyDatabase();
    try {
      const results = await Promise.all([migrate(fresh.url), migrate(fresh.url), migrate(fresh.url)]);
      expect(results.flat().sort()).toEqual(names);
      const rows = await query<{ migration_name: string; n: string }>(
        fresh.url,
        `SELECT migration_name, count(*) AS n FROM _prisma_migrations GROUP BY 1 ORDER BY 1`,
      );
      expect(rows).toEqual(names.map((n) => ({ migration_name: n, n: '1' })));
    } finally {
      await fresh.drop();
    }
  });

  it('rolls back a failing migration completely and reports its name', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, cpSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'rota-mig-'));
    for (const m of migrations) cpSync(path.dirname(m.path), path.join(dir, m.name), { recursive: true });
    mkdirSync(path.join(dir, '29990101000000_broken'));
    writeFileSync(
      path.join(dir, '29990101000000_broken', 'migration.sql'),
      'CREATE TABLE broken_probe (id int);\nSELECT no_such_function();\n',
    );
    await expect(migrate(db.url, { dir })).rejects.toThrow(/29990101000000_broken/);
    const probe = await query<{ n: string }>(
      db.url,
      `SELECT count(*) AS n FROM pg_tables WHERE tablename = 'broken_probe'`,
    );
    expect(probe[0]!.n).toBe('0');
    const recorded = await query<{ n: string }>(
      db.url,
      `SELECT count(*) AS n FROM _prisma_migrations WHERE migration_name = '29990101000000_broken'`,
    );
    expect(recorded[0]!.n).toBe('0');
  });
});
