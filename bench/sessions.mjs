// Sessions benchmark: the session routes and the two tool transports through
// the gateway, each against the bare transport round trip measured in the
// same run (the gateway's /bench/transport route).
//   - POST /v1/sessions (one insert);
//   - POST /v1/sessions/{id}/execute codespar_list_tools (session read, touch,
//     provider and catalog reads, one session_tool_calls insert);
//   - the same execute for an unknown tool (the pipeline up to resolution, nothing written);
//   - POST /mcp tools/call codespar_list_tools (a fresh MCP server per request,
//     project context);
//   - POST /mcp tools/list (no service hop at all).
// Runs against its own database (cloned from the migrated template) and drops
// it afterwards. Needs a build (`pnpm build`), Postgres and Redis.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, appEnv, fmt, freePort, load, startApps, stop, table } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_SESSIONS_CONNECTIONS ?? 16);

export async function sessionsBench() {
  const { createTestDatabase, seed, ApiKeyRepository } = require(join(ROOT, 'packages/db/dist/index.js'));
  const db = await createTestDatabase();
  const procs = [];
  try {
    await seed(db.prisma);
    await db.prisma.provider.upsert({
      where: { id_owner: { id: 'benchpay', owner: '' } },
      create: {
        id: 'benchpay',
        name: 'Bench Pay',
        description: 'payments',
        category: 'payments',
        countries: ['BR'],
        authType: 'api_key',
        selfServeAuth: true,
        baseUrls: {},
      },
      update: {},
    });
    for (let i = 0; i < 20; i++) {
      await db.prisma.mcpTool.create({
        data: { serverId: 'benchpay', toolName: `tool_${i}`, description: `Bench tool ${i}`, descriptionHash: `b${i}` },
      });
    }
    const { key } = await new ApiKeyRepository(db.prisma).create({
      projectId: 'proj_dev',
      environment: 'live',
      scopes: ['servers:read', 'sessions:create', 'tools:execute', 'connections:write'],
    });

    const env = appEnv('sessions', db.url, await freePort());
    const base = await startApps(['search', 'session'], env, procs);

    const headers = { authorization: `Bearer ${key}` };
    const post = (path, body) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const saved = await post('/v1/connections', { server_id: 'benchpay', credentials: { api_key: 'bench' } });
    if (saved.status !== 201) throw new Error(`POST /v1/connections answered ${saved.status}`);
    const { id } = await (await post('/v1/sessions', { servers: ['benchpay'] })).json();
    const mcpHeaders = { ...headers, accept: 'application/json, text/event-stream' };
    const routes = [
      ['bare transport round trip', { url: `${base}/bench/transport` }],
      ['POST /v1/sessions', { url: `${base}/v1/sessions`, method: 'POST', headers, body: { servers: ['benchpay'] } }],
      [
        'execute codespar_list_tools',
        { url: `${base}/v1/sessions/${id}/execute`, method: 'POST', headers, body: { tool: 'codespar_list_tools' } },
      ],
      [
        'execute unknown tool',
        { url: `${base}/v1/sessions/${id}/execute`, method: 'POST', headers, body: { tool: 'nobody/nothing' } },
      ],
      [
        'MCP tools/call codespar_list_tools',
        {
          url: `${base}/mcp`,
          method: 'POST',
          headers: mcpHeaders,
          body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'codespar_list_tools', arguments: {} } },
        },
      ],
      [
        'MCP tools/list',
        {
          url: `${base}/mcp`,
          method: 'POST',
          headers: mcpHeaders,
          body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
        },
      ],
    ];
    const rows = [];
    let bare;
    for (const [label, opts] of routes) {
      const r = await load({ ...opts, connections: CONNECTIONS, seconds: SECONDS });
      bare ??= r;
      rows.push({
        route: label,
        'req/s': fmt(r.rps, 0),
        'p50 ms': r.p50,
        'p99 ms': r.p99,
        'vs transport': fmt(r.rps / bare.rps, 2),
      });
    }
    const calls = await db.prisma.sessionToolCall.count();
    console.log(
      `\n## Sessions and MCP through the gateway, ${CONNECTIONS} concurrent, ${SECONDS} s each (gateway, session and search services, one process each)`,
    );
    table(rows);
    console.log(`(${calls} session_tool_calls rows written during the run)`);
  } finally {
    for (const p of procs.reverse()) await stop(p);
    await db.drop();
  }
}
