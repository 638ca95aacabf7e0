/**
 * `rota mcp …`: connects MCP clients to a gateway. `stdio` bridges clients
 * that only start local processes to the Streamable HTTP endpoint (mcp-stdio.ts); `config`
 * writes the entry each known client reads.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Option, type Command } from 'commander';
import { savedProfile } from './http';
import { CliError, type CliIo } from './io';

export const MCP_CLIENTS = ['claude-desktop', 'cursor', 'vscode'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** Where each client keeps its MCP servers (Claude Desktop by platform; VS Code per workspace). */
export function defaultConfigPath(client: McpClient, env: CliIo['env'], platform = process.platform): string {
  const home = env.HOME || homedir();
  switch (client) {
    case 'claude-desktop':
      if (platform === 'darwin')
        return join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
      if (platform === 'win32')
        return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
      return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'Claude', 'claude_desktop_config.json');
    case 'cursor':
      return join(home, '.cursor', 'mcp.json');
    case 'vscode':
      return join('.vscode', 'mcp.json');
  }
}

/** How a client starts the relay: this node and this install's `bin.js` by absolute path, so no PATH lookup is needed. */
export function relayLauncher(): { command: string; args: string[] } {
  for (const bin of [join(__dirname, 'bin.js'), join(__dirname, '..', 'dist', 'bin.js')])
    if (existsSync(bin)) return { command: process.execPath, args: [bin] };
  return { command: 'rota', args: [] };
}

/**
 * The entry for one client: every client starts `rota mcp stdio`, which
 * reads the key from the profile `rota login` saved (and mints short-lived
 * keys from it where the gateway offers `POST /v1/keys`). The entry names
 * the profile and holds no key.
 */
export function clientEntry(
  client: McpClient,
  profile: string,
  session?: string,
  launcher = relayLauncher(),
): { section: 'mcpServers' | 'servers'; entry: Record<string, unknown> } {
  const args = [...launcher.args, 'mcp', 'stdio', '--profile', profile, ...(session ? ['--session', session] : [])];
  switch (client) {
    case 'claude-desktop':
    case 'cursor':
      return { section: 'mcpServers', entry: { command: launcher.command, args } };
    case 'vscode':
      return { section: 'servers', entry: { type: 'stdio', command: launcher.command, args } };
  }
}

export function registerMcpCommands(program: Command, io: CliIo): void {
  const mcp = program.command('mcp').description('Connect MCP clients to the gateway');

  mcp
    .command('stdio')
    .description('Serve MCP on stdin/stdout, relayed to the gateway (for clients that only start local processes)')
    .option('--session <id>', 'bind to this session (default: the project transport, POST /mcp)')
    .option('--profile <name>', 'the saved profile to read the gateway and key from')
    .action(async (o: { session?: string; profile?: string }) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the relay module, kept apart so `rota mcp stdio` loads it alone
      const { runStdio } = require('./mcp-stdio') as typeof import('./mcp-stdio');
      const code = await runStdio(
        [...(o.session ? ['--session', o.session] : []), ...(o.profile ? ['--profile', o.profile] : [])],
        io,
      );
      if (code !== 0) throw new CliError('the relay stopped', { exitCode: code });
    });

  mcp
    .command('config')
    .description(
      "Print, or with --write merge into the client's file, the MCP entry for Claude Desktop, Cursor or VS Code",
    )
    .addOption(new Option('--client <client>', 'which client').choices([...MCP_CLIENTS]).makeOptionMandatory())
    .option('--session <id>', 'bind the entry to this session')
    .option('--name <name>', 'the server name in the client', 'rota')
    .option('--write', "merge the entry into the client's config file")
    .option('--file <path>', "the client's config file (default: where the client reads it)")
    .option('--json', 'print the whole resulting file as JSON')
    .action(
      (o: { client: McpClient; session?: string; name: string; write?: boolean; file?: string; json?: boolean }) => {
        const saved = savedProfile(io);
        if (!saved)
          throw new CliError(
            'no saved profile: run `rota login` first (the entry holds no key; `rota mcp stdio` reads the key from the profile)',
            {
              code: 'profile_not_found',
            },
          );
        const { section, entry } = clientEntry(o.client, saved.name, o.session);
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
        // The entry holds no key, but the file may hold other servers' secrets.
        writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
        chmodSync(file, 0o600);
        if (o.json) io.stdout(`${JSON.stringify(next, null, 2)}\n`);
        else io.stdout(`wrote ${o.name} to ${file}\n`);
      },
    );
}
