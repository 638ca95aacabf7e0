#!/usr/bin/env node
// Builds the publishable CLI into packages/cli/pack: the HTTP commands and
// the MCP relay bundled with every workspace package and library they use
// (so the tarball installs with no dependency to fetch), three files loaded
// lazily by the executable, and a package.json without workspace links.
// With --tarball it also runs `npm pack` there and prints the tarball's path.
// The database half (keys, projects, catalog, connections) is not shipped:
// it needs Prisma and a Rota checkout.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'pack');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'dist'), { recursive: true });
await build({
  entryPoints: {
    bin: join(root, 'src/bin.ts'),
    'http-main': join(root, 'src/http-main.ts'),
    'mcp-stdio': join(root, 'src/mcp-stdio.ts'),
  },
  outdir: join(out, 'dist'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Each entry stays its own file, required only when the command line needs it.
  external: ['./main', './http-main', './mcp-stdio'],
  legalComments: 'none',
  logLevel: 'warning',
});
writeFileSync(
  join(out, 'package.json'),
  `${JSON.stringify(
    {
      name: pkg.name,
      version: pkg.version,
      description:
        'The Rota command line: search, sessions, tool calls, policy, logs, and an MCP relay for clients that start local processes.',
      license: 'MIT',
      bin: { rota: 'dist/bin.js' },
      files: ['dist'],
      engines: { node: '>=20' },
    },
    null,
    2,
  )}\n`,
);
if (process.argv.includes('--tarball')) {
  const dest = process.argv[process.argv.indexOf('--tarball') + 1] ?? out;
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', dest], { cwd: out, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  process.stdout.write(`${join(dest, name)}\n`);
}
