#!/usr/bin/env node
// In-process accuracy and timing of path A's lexical fallback (no gateway,
// no model). Transpiles the TypeScript sources on the fly with @swc/core so
// it needs no build step. Usage: node bench/eval-path-a-local.mjs [--verbose]
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const Module = require('node:module');
const swc = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const m = /^@rota\/([a-z-]+)(?:\/(.*))?$/.exec(request);
  if (m) request = join(root, 'packages', m[1], 'src', m[2] ?? 'index');
  return resolve.call(this, request, parent, ...rest);
};

const { main } = require(join(root, 'apps/search/src/tools-search/eval-local.ts'));
process.exitCode = main(process.argv.slice(2));
