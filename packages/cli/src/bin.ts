#!/usr/bin/env node
/**
 * The `rota` executable. It loads only what the command line needs:
 * `--version` reads package.json and nothing else; `mcp stdio` loads the
 * relay alone (an MCP client starts it and waits for its handshake); the
 * operator commands load the database half (`main`); everything else the
 * HTTP half. The packed CLI ships without the database half.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const OPERATOR = new Set(['keys', 'projects', 'catalog', 'connections']);

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

async function dispatch(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (argv[0] === 'mcp' && argv[1] === 'stdio') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for this command line
    const { runStdio } = require('./mcp-stdio') as typeof import('./mcp-stdio');
    return runStdio(argv.slice(2));
  }
  // The database half exists in a checkout (dist/main.js), not in the packed CLI.
  // `rota --help` in a checkout lists both halves.
  const command = argv.find((a) => !a.startsWith('-'));
  if ((command === undefined || OPERATOR.has(command)) && existsSync(join(__dirname, 'main.js'))) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the database half, loaded only for its commands
    const { run } = require('./main') as typeof import('./main');
    return run(argv);
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the HTTP half, loaded only when needed
  const { runHttp } = require('./http-main') as typeof import('./http-main');
  return runHttp(argv);
}

void dispatch(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
