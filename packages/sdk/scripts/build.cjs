#!/usr/bin/env node
// Builds the package twice, CommonJS into dist/cjs and ES modules into
// dist/esm, each with its declarations. The per-folder package.json tells Node
// which module system each folder holds, whatever the root package says.
const { execFileSync } = require('node:child_process');
const { mkdirSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const [config, dir, type] of [
  ['tsconfig.build.json', 'cjs', 'commonjs'],
  ['tsconfig.esm.json', 'esm', 'module'],
]) {
  execFileSync(process.execPath, [tsc, '-p', join(root, config)], { stdio: 'inherit' });
  mkdirSync(join(root, 'dist', dir), { recursive: true });
  writeFileSync(join(root, 'dist', dir, 'package.json'), `${JSON.stringify({ type })}\n`);
}
