import { randomBytes } from 'node:crypto';
import { createTestDatabase, seed, type TestDatabase } from '@rota/db';
import { loadConfig, startService, type StartedService } from '@rota/service-kit';
import { testPrefix } from '@rota/service-kit/testing/redis-server';
import { run } from './main';

// The session service, loaded at run time (it lives outside this package's sources).
/* eslint-disable @typescript-eslint/no-require-imports */
const { SessionConfig } = require('../../../apps/session/src/config') as {
  SessionConfig: Parameters<typeof loadConfig>[0];
};
const { SessionModule } = require('../../../apps/session/src/session.module') as {
  SessionModule: { forConfig(config: unknown): Parameters<typeof startService>[1] };
};
/* eslint-enable @typescript-eslint/no-require-imports */

jest.setTimeout(60_000);

describe('rota connections (through the session service)', () => {
  let db: TestDatabase;
  let service: StartedService;
  let env: Record<string, string>;
  const secret = `sk_cli_${randomBytes(8).toString('hex')}`;

  async function rota(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await run(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env });
    return { code, stdout, stderr };
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    await seed(db.prisma);
    for (const [id, authType] of [
      ['zzpay', 'api_key'],
      ['zzopen', 'none'],
    ] as const) {
      await db.prisma.provider.create({
        data: {
          id,
          name: id,
          description: id,
          category: 'payments',
          countries: ['BR'],
          authType,
          selfServeAuth: true,
          baseUrls: {},
        },
      });
    }
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
      ROTA_REDIS_PREFIX: testPrefix('cli'),
      LOG_LEVEL: 'silent',
      ROTA_CREDENTIALS_KEY: randomBytes(32).toString('base64'),
      ROTA_RPC_TIMEOUT_MS: '3000',
    };
    const config = loadConfig(SessionConfig, env);
    service = await startService('session', SessionModule.forConfig(config), config as never);
  });
  afterAll(async () => {
    await service?.app.close();
    await db?.drop();
  });

  it('connections add seals the credentials and prints the connection, never the secret', async () => {
    const r = await rota(
      'connections',
      'add',
      'zzpay',
      '--environment',
      'test',
      '--credentials-json',
      JSON.stringify({ api_key: secret }),
    );
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^connected zzpay in test for proj_dev \(conn_[A-Za-z0-9]{24}\)\n$/);
    const row = await db.prisma.connection.findFirstOrThrow({ where: { serverId: 'zzpay', environment: 'test' } });
    expect(row.credentialsKeyId).toBe('primary');
    expect(Buffer.from(row.credentialsCiphertext!).includes(Buffer.from(secret))).toBe(false);

    const again = await rota(
      'connections',
      'add',
      'zzpay',
      '--environment',
      'test',
      '--credentials-json',
      JSON.stringify({ api_key: `${secret}2` }),
    );
    expect(again.stdout).toMatch(/^replaced the credentials of zzpay in test/);

    const list = await rota('connections', 'list', '--environment', 'test');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(row.id);
    expect(list.stdout).not.toContain(secret);
    expect((await rota('connections', 'list')).stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('connects a provider that needs no credentials without --credentials-json', async () => {
    const r = await rota('connections', 'add', 'zzopen');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^zzopen needs no credentials; recorded in live/);
  });

  it.each([
    [['connections', 'add', 'zzpay'], /credentials: zzpay authenticates with api_key; send its credentials/],
    [['connections', 'add', 'ghost', '--credentials-json', '{"api_key":"x"}'], /No provider has the id "ghost"/],
    [['connections', 'add', 'zzpay', '--credentials-json', '{api_key: x}'], /not valid JSON/],
    [['connections', 'add', 'zzpay', '--credentials-json', '{"api_key": 5}'], /object of string fields \(api_key\)/],
    [
      ['connections', 'add', 'zzpay', '--project', 'proj_nope', '--credentials-json', '{"api_key":"x"}'],
      /unknown project: proj_nope/,
    ],
    [['connections', 'remove', 'conn_nope'], /No connection with this id/],
  ])('%j fails with one line and exit code 1', async (argv, message) => {
    const r = await rota(...argv);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('connections remove deletes the row', async () => {
    const row = await db.prisma.connection.findFirstOrThrow({ where: { serverId: 'zzopen' } });
    const r = await rota('connections', 'remove', row.id);
    expect(r).toMatchObject({ code: 0, stdout: `removed ${row.id} (zzopen, live)\n` });
    expect(await db.prisma.connection.findUnique({ where: { id: row.id } })).toBeNull();
  });

  it('--json prints what the HTTP routes answer, never the credentials', async () => {
    const added = await rota(
      'connections',
      'add',
      'zzpay',
      '--environment',
      'test',
      '--credentials-json',
      JSON.stringify({ api_key: secret }),
      '--json',
    );
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const saved = JSON.parse(added.stdout);
    expect(saved).toMatchObject({
      created: false,
      connection: {
        id: expect.stringMatching(/^conn_/),
        server_id: 'zzpay',
        environment: 'test',
        status: 'connected',
        has_credentials: true,
      },
    });
    expect(added.stdout).not.toContain(secret);

    const listed = await rota('connections', 'list', '--environment', 'test', '--json');
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(listed.stdout)).toEqual({ environment: 'test', connections: [saved.connection] });

    const removed = await rota('connections', 'remove', saved.connection.id, '--environment', 'test', '--json');
    expect(removed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(removed.stdout)).toMatchObject({ id: saved.connection.id, server_id: 'zzpay', deleted: true });
    expect(
      JSON.parse((await rota('connections', 'list', '--environment', 'test', '--json')).stdout).connections,
    ).toEqual([]);
  });

  it('exits 2 in one line when no session service answers or Redis cannot be reached', async () => {
    const saved = env;
    env = { ...env, ROTA_REDIS_PREFIX: testPrefix('cli-nobody'), ROTA_RPC_TIMEOUT_MS: '300' };
    try {
      const r = await rota('connections', 'add', 'zzpay', '--credentials-json', '{"api_key":"x"}');
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(/^error: the session service did not answer .*\n$/);
      env = { ...saved, REDIS_URL: 'redis://127.0.0.1:1' };
      const noRedis = await rota('connections', 'list', '--json');
      expect(noRedis.code).toBe(2);
      expect(JSON.parse(noRedis.stdout)).toMatchObject({ error: 'unavailable' });
      // The transport fails fast while Redis is down, which reads as no service answering.
      expect(noRedis.stderr).toMatch(/^error: (the session service did not answer|cannot reach Redis) .*\n$/);
    } finally {
      env = saved;
    }
  });
});
