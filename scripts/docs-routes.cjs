#!/usr/bin/env node
/**
 * Writes the route and scope tables of README.md and ARCHITECTURE.md from
 * `ROUTES` (packages/contracts/src/routes.ts), between their marker
 * comments, so the documents never hold a hand copy of the route table.
 *
 *   pnpm docs:routes           rewrite the tables (needs packages/contracts built)
 *   pnpm docs:routes --check   exit 1 when a table is stale
 *
 * packages/contracts/src/routes-docs.spec.ts runs the same check in CI.
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const route = (r) => `\`${r.method.toUpperCase()} ${r.path}\``;
const scopeOf = (r) => (r.scope ? `\`${r.scope}\`` : 'none');

/** Every route, in `ROUTES` order: method and path, scope, operationId and summary. */
function routesTable(routes) {
  const rows = Object.values(routes).map(
    (r) =>
      `| ${route(r)} | ${scopeOf(r)} | \`${r.operationId}\` | ${cell(r.summary)}${r.deprecated ? ' (deprecated)' : ''} |`,
  );
  return ['| route | scope | operationId | what it does |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** Each route with the service hop it makes (`none`, `reads`, `acts`), for the architecture notes. */
function hopsTable(routes) {
  const rows = Object.values(routes).map(
    (r) => `| ${route(r)} | \`${r.operationId}\` | ${r.tag} | ${scopeOf(r)} | \`${r.hop}\` |`,
  );
  return [
    '| route | operationId (gateway handler) | tag | scope | hop |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** Each scope with the routes that need it. */
function scopesTable(routes) {
  const by = new Map();
  for (const r of Object.values(routes)) {
    const s = r.scope ?? 'none';
    if (!by.has(s)) by.set(s, []);
    by.get(s).push(route(r));
  }
  const rows = [...by.entries()]
    .sort(([a], [b]) => (a === 'none' ? 1 : b === 'none' ? -1 : a.localeCompare(b)))
    .map(([s, rs]) => `| ${s === 'none' ? 'none' : `\`${s}\``} | ${rs.join(', ')} |`);
  return ['| scope | routes |', '| --- | --- |', ...rows].join('\n');
}

/** Which block of which file holds which table. */
const BLOCKS = [
  { file: 'README.md', name: 'routes', render: routesTable },
  { file: 'ARCHITECTURE.md', name: 'routes', render: hopsTable },
  { file: 'ARCHITECTURE.md', name: 'scopes', render: scopesTable },
];

const begin = (name) =>
  `<!-- ${name}:begin (generated from ROUTES by pnpm docs:routes; edit packages/contracts/src/routes.ts, not this table) -->`;
const end = (name) => `<!-- ${name}:end -->`;

/** The text with the block's content replaced; throws when the markers are missing. */
function replaceBlock(text, file, name, content) {
  const b = begin(name);
  const e = end(name);
  const i = text.indexOf(b);
  const j = text.indexOf(e);
  if (i < 0 || j < i) throw new Error(`${file}: the markers of the generated ${name} table are missing (${b} … ${e}).`);
  return `${text.slice(0, i + b.length)}\n${content}\n${text.slice(j)}`;
}

/** For each file, its text as it is and as it should be. */
function expected(routes, root = ROOT) {
  const out = new Map();
  for (const { file, name, render } of BLOCKS) {
    const current = out.get(file)?.want ?? fs.readFileSync(path.join(root, file), 'utf8');
    const have = out.get(file)?.have ?? current;
    out.set(file, { have, want: replaceBlock(current, file, name, render(routes)) });
  }
  return out;
}

/** The files whose generated tables differ from `ROUTES`. */
function stale(routes, root = ROOT) {
  return [...expected(routes, root).entries()].filter(([, v]) => v.have !== v.want).map(([file]) => file);
}

module.exports = { routesTable, hopsTable, scopesTable, expected, stale, BLOCKS };

if (require.main === module) {
  const { ROUTES } = require(path.join(ROOT, 'packages/contracts/dist/index.js'));
  if (process.argv.includes('--check')) {
    const files = stale(ROUTES);
    if (files.length > 0) {
      console.error(
        `Route tables out of date in ${files.join(', ')}: run pnpm docs:routes (after building packages/contracts).`,
      );
      process.exit(1);
    }
    console.log('route tables are up to date');
  } else {
    for (const [file, { have, want }] of expected(ROUTES)) {
      if (have !== want) fs.writeFileSync(path.join(ROOT, file), want);
      console.log(`${file}: ${have === want ? 'unchanged' : 'written'}`);
    }
  }
}
