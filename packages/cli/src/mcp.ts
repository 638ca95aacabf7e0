/**
 * `rota mcp …`: connects MCP clients to a gateway. `stdio` bridges clients
 * that only start local processes to the Streamable HTTP endpoint; `config`
 * writes the entry each known client reads.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { KEY_DEFAULT_TTL_SECONDS, KEY_MAX_TTL_SECONDS } from '@rota/contracts';
import { Option, type Command } from 'commander';
import { Rota, RotaError, resolveConnection, type Profile } from './http';
import { CliError, parseTtl, type CliIo } from './io';

/** What a key written into a client's file carries unless `--scopes` says otherwise: enough to call every meta-tool. */
export const MCP_KEY_SCOPES = ['tools:execute', 'servers:read', 'sessions:create'] as const;

/**
 * The key a client's file gets: a short-lived child of the configured key
 * (`POST /v1/keys`, bound to the session when there is one), so the file
 * holds nothing that outlives `ttl`. The configured key needs `keys:write`.
 */
async function shortLivedKey(io: CliIo, c: Profile, o: { ttl?: string; scopes?: string; session?: string; name: string }): Promise<string> {
  const scopes = (o.scopes ?? MCP_KEY_SCOPES.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const body = {
    scopes: scopes as never,
    expires_in: o.ttl === undefined ? KEY_DEFAULT_TTL_SECONDS : parseTtl(o.ttl, KEY_MAX_TTL_SECONDS),
    name: `mcp ${o.name}`,
    ...(o.session ? { session_id: o.session } : {}),
  };
  try {
    const created = await new Rota({ apiKey: c.api_key, baseUrl: c.url }).keys.create(body);
    io.stderr(`the entry carries key ${created.id}, which expires at ${created.expires_at} (--ttl to change, --long-lived for the configured key)\n`);
    return created.key;
  } catch (err) {
    if (err instanceof RotaError && err.status === 403) {
      throw new CliError(
        `${err.message} (the configured key needs keys:write to mint a short-lived key; or pass --long-lived to write the configured key itself)`,
      );
    }
    throw err;
  }
}

export const MCP_CLIENTS = ['claude-desktop', 'cursor', 'vscode'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** The endpoint for a session, or the project transport without one. */
function endpoint(url: string, session?: string): string {
  return session ? `${url}/v1/sessions/${encodeURIComponent(session)}/mcp` : `${url}/mcp`;
}

/** Where each client keeps its MCP servers (Claude Desktop by platform; VS Code per workspace). */
export function defaultConfigPath(client: McpClient, env: CliIo['env'], platform = process.platform): string {
  const home = env.HOME || homedir();
  switch (client) {
    case 'claude-desktop':
      if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
      if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
      return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'Claude', 'claude_desktop_config.json');
    case 'cursor':
      return join(home, '.cursor', 'mcp.json');
    case 'vscode':
      return join('.vscode', 'mcp.json');
  }
}

/**
 * The entry for one client. Cursor and VS Code speak Streamable HTTP
 * themselves; Claude Desktop's file starts local processes only, so its
 * entry runs `rota mcp stdio`. Every entry carries the key: these files are
 * the client's credential store.
 */
export function clientEntry(
  client: McpClient,
  c: { url: string; api_key: string },
  session?: string,
): { section: 'mcpServers' | 'servers'; entry: Record<string, unknown> } {
  const url = endpoint(c.url, session);
  const headers = { Authorization: `Bearer ${c.api_key}` };
  switch (client) {
    case 'claude-desktop':
      return {
        section: 'mcpServers',
        entry: { command: 'rota', args: ['mcp', 'stdio', ...(session ? ['--session', session] : [])], env: { ROTA_URL: c.url, ROTA_API_KEY: c.api_key } },
      };
    case 'cursor':
      return { section: 'mcpServers', entry: { url, headers } };
    case 'vscode':
      return { section: 'servers', entry: { type: 'http', url, headers } };
  }
}

/**
 * Relays JSON-RPC between this process's stdio and the gateway until stdin
 * closes. A message the gateway refuses at the HTTP level (a bad key, a
 * closed session's 404) is answered to the client as a JSON-RPC error for
 * its id, so the client is never left waiting.
 */
async function bridge(url: string, apiKey: string): Promise<void> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const remote = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } });
  const local = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    local.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  remote.onmessage = (message) => void local.send(message).catch(() => undefined);
  local.onmessage = (message) => {
    remote.send(message).catch((err: unknown) => {
      const id = (message as { id?: string | number }).id;
      if (id === undefined) return;
      void local
        .send({ jsonrpc: '2.0', id, error: { code: -32603, message: `Rota at ${url} refused the request: ${(err as Error).message}` } })
        .catch(() => undefined);
    });
  };
  await remote.start();
  await local.start();
  await closed;
  await remote.close().catch(() => undefined);
}

export function registerMcpCommands(program: Command, io: CliIo): void {
  const mcp = program.command('mcp').description('Connect MCP clients to the gateway');

  mcp
    .command('stdio')
    .description('Serve MCP on stdin/stdout, relayed to the gateway (for clients that only start local processes)')
    .option('--session <id>', 'bind to this session (default: the project transport, POST /mcp)')
    .action(async (o: { session?: string }) => {
      const c = resolveConnection(io);
      await bridge(endpoint(c.url, o.session), c.api_key);
    });

  mcp
    .command('config')
    .description("Print, or with --write merge into the client's file, the MCP entry for Claude Desktop, Cursor or VS Code")
    .addOption(new Option('--client <client>', 'which client').choices([...MCP_CLIENTS]).makeOptionMandatory())
    .option('--session <id>', 'bind the entry to this session')
    .option('--name <name>', 'the server name in the client', 'rota')
    .option('--write', "merge the entry into the client's config file")
    .option('--file <path>', "the client's config file (default: where the client reads it)")
    .option('--json', 'print the whole resulting file as JSON')
    .option('--ttl <lifetime>', `lifetime of the short-lived key the entry carries (90s, 15m, 1h, 30d; default ${KEY_DEFAULT_TTL_SECONDS / 3600}h)`)
    .option('--scopes <list>', `scopes of the short-lived key (default ${MCP_KEY_SCOPES.join(',')})`)
    .option('--long-lived', 'write the configured key itself instead of a short-lived child of it')
    .action(
      async (o: {
        client: McpClient;
        session?: string;
        name: string;
        write?: boolean;
        file?: string;
        json?: boolean;
        ttl?: string;
        scopes?: string;
        longLived?: boolean;
      }) => {
        if (o.longLived && (o.ttl !== undefined || o.scopes !== undefined))
          throw new CliError('--ttl and --scopes describe a short-lived key: drop them with --long-lived');
        const c = resolveConnection(io);
        const apiKey = o.longLived ? c.api_key : await shortLivedKey(io, c, o);
        const { section, entry } = clientEntry(o.client, { url: c.url, api_key: apiKey }, o.session);
        if (!o.write) {
          io.stdout(`${JSON.stringify({ [section]: { [o.name]: entry } }, null, 2)}\n`);
          return;
        }
        const file = o.file ?? defaultConfigPath(o.client, io.env);
        let current: Record<string, unknown> = {};
        if (existsSync(file)) {
          try {
            current = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
          } catch (err) {
            throw new CliError(`${file} is not JSON (${(err as Error).message}); fix or move it first`);
          }
        }
        const servers = { ...((current[section] as Record<string, unknown> | undefined) ?? {}), [o.name]: entry };
        const next = { ...current, [section]: servers };
        mkdirSync(dirname(file), { recursive: true });
        // The entry holds an API key.
        writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
        chmodSync(file, 0o600);
        if (o.json) io.stdout(`${JSON.stringify(next, null, 2)}\n`);
        else io.stdout(`wrote ${o.name} to ${file}\n`);
      },
    );
}
