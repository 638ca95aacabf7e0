import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { quoteIdent, withAdminClient, withDatabase } from './admin';
import { listMigrations, migrate, migrationsDir } from './migrate';

const BASE = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const OWNERSHIP = '20261206010000_provider_ownership';

/**
 * The provider-ownership migration on a database that already holds a
 * project row shadowing a global provider id, and connections made before
 * origins were kept.
 */
describe(`migration ${OWNERSHIP}`, () => {
  const name = `rota_own_${randomBytes(6).toString('hex')}`;
  const url = withDatabase(BASE, name);
  let before: string;
  let client: Client;
  const q = async <T extends object>(sql: string, params: unknown[] = []) => (await client.query<T>(sql, params)).rows;

  beforeAll(async () => {
    await withAdminClient(BASE, (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`));
    // Every migration before this one, as a deployment had them.
    before = mkdtempSync(join(tmpdir(), 'rota-mig-'));
    for (const m of listMigrations().filter((m) => m.name < OWNERSHIP))
      cpSync(join(migrationsDir(), m.name), join(before, m.name), { recursive: true });
    cpSync(join(migrationsDir(), 'migration_lock.toml'), join(before, 'migration_lock.toml'));
    await migrate(url, { dir: before });
    client = new Client({ connectionString: url });
    await client.connect();
    await q(`INSERT INTO orgs (id, name) VALUES ('org_m', 'M')`);
    await q(`INSERT INTO projects (id, org_id, name) VALUES ('proj_M1', 'org_m', 'One'), ('proj_m2', 'org_m', 'Two')`);
    const provider = `INSERT INTO providers (id, project_id, name, description, category, countries, auth_type, self_serve_auth, base_urls)
                      VALUES ($1, $2, $1, '', 'payments', '{}', 'api_key', true, $3::jsonb)`;
    await q(provider, [
      'asaas',
      null,
      JSON.stringify({ live: 'https://api.asaas.com/v3', test: 'http://127.0.0.1:4010/asaas/v3' }),
    ]);
    await q(provider, [
      'asaas',
      'proj_M1',
      JSON.stringify({ live: 'http://127.0.0.1:9/steal', test: 'http://[::1]:9/' }),
    ]);
    await q(provider, ['ownpay', 'proj_m2', JSON.stringify({ live: 'https://Pay.Example:443/api' })]);
    await q(`INSERT INTO mcp_tools (server_id, tool_name, description, project_id, server_owner, description_hash)
             VALUES ('asaas', 'charge', 'x', 'proj_M1', 'proj_M1', 'h'), ('asaas', 'charge', 'x', NULL, '', 'h')`);
    const conn = `INSERT INTO connections (id, project_id, environment, server_id) VALUES ($1, $2, $3::environment, $4)`;
    await q(conn, ['conn_1', 'proj_M1', 'live', 'asaas']);
    await q(conn, ['conn_2', 'proj_m2', 'live', 'asaas']);
    await q(conn, ['conn_3', 'proj_m2', 'test', 'asaas']);
    await q(conn, ['conn_4', 'proj_m2', 'live', 'ownpay']);
    // This migration first, then every later one, each applying cleanly on top of it.
    const later = listMigrations()
      .map((m) => m.name)
      .filter((n) => n > OWNERSHIP);
    expect(await migrate(url)).toEqual([OWNERSHIP, ...later]);
  });

  afterAll(async () => {
    await client?.end();
    rmSync(before, { recursive: true, force: true });
    await withAdminClient(BASE, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
  });

  it('renames the shadowing project row to a project-prefixed id; its tools and connections follow, the global row stays', async () => {
    const rows = await q<{ id: string; owner: string }>(`SELECT id, owner FROM providers ORDER BY owner, id`);
    expect(rows).toEqual([
      { id: 'asaas', owner: '' },
      { id: 'proj-m1.asaas', owner: 'proj_M1' },
      { id: 'ownpay', owner: 'proj_m2' },
    ]);
    expect(await q(`SELECT server_id, server_owner FROM mcp_tools ORDER BY server_owner`)).toEqual([
      { server_id: 'asaas', server_owner: '' },
      { server_id: 'proj-m1.asaas', server_owner: 'proj_M1' },
    ]);
    expect(await q(`SELECT id, server_id FROM connections ORDER BY id`)).toEqual([
      { id: 'conn_1', server_id: 'proj-m1.asaas' },
      { id: 'conn_2', server_id: 'asaas' },
      { id: 'conn_3', server_id: 'asaas' },
      { id: 'conn_4', server_id: 'ownpay' },
    ]);
  });

  it('backfills each connection with the origin its provider has, per environment', async () => {
    expect(await q(`SELECT id, origin FROM connections ORDER BY id`)).toEqual([
      { id: 'conn_1', origin: 'http://127.0.0.1:9' },
      { id: 'conn_2', origin: 'https://api.asaas.com' },
      { id: 'conn_3', origin: 'http://127.0.0.1:4010' },
      // Normalised by whoever compares it (the default port goes): see originOf in the session service.
      { id: 'conn_4', origin: 'https://pay.example:443' },
    ]);
  });

  it('leaves money undeclared on every row', async () => {
    expect(await q(`SELECT DISTINCT moves_money FROM providers`)).toEqual([{ moves_money: null }]);
  });
});
