#!/usr/bin/env node
/**
 * The shape of apps/session, measured from its imports with the TypeScript
 * compiler's own parser and module resolution:
 *
 * - the source files an execute request passes through: every file of
 *   apps/session/src reached by following run-time imports from the execute
 *   controller (and, for reference, the count with type-only imports);
 * - the folders of apps/session/src that import each other, directly (a
 *   pair) or through others (a cycle);
 * - whether the calls/ kernel imports any feature folder.
 *
 * `node scripts/session-structure.cjs [--json]` prints the report;
 * apps/session/src/structure.spec.ts holds the targets.
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const ROOT = path.resolve(__dirname, '..');
const SRC = path.join(ROOT, 'apps/session/src');
const ENTRY = path.join(SRC, 'execute/execute.controller.ts');
/** The kernel every feature may use, which uses no feature. */
const KERNEL = 'calls';

const isTest = (f) => /\.(spec|int-spec)\.ts$/.test(f);

function sourceFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith('.ts') && !isTest(e.name)) out.push(p);
  }
  return out;
}

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  allowJs: false,
};
const host = ts.createCompilerHost(compilerOptions);

/**
 * The files of apps/session/src one file imports (relative imports only:
 * packages are outside the service), each with whether it is needed at run
 * time (`import type` and imports of types only are erased by the compiler).
 */
function importsOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const out = new Map();
  for (const st of sf.statements) {
    let spec = null;
    let runtime = true;
    if (ts.isImportDeclaration(st)) {
      spec = st.moduleSpecifier.text;
      const clause = st.importClause;
      if (clause) {
        const named =
          clause.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : null;
        runtime =
          !clause.isTypeOnly &&
          (clause.name !== undefined || !named || named.length === 0 || named.some((e) => !e.isTypeOnly));
      }
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier) {
      spec = st.moduleSpecifier.text;
      const named = st.exportClause && ts.isNamedExports(st.exportClause) ? st.exportClause.elements : null;
      runtime = !st.isTypeOnly && (!named || named.some((e) => !e.isTypeOnly));
    }
    if (!spec || !spec.startsWith('.')) continue;
    const resolved = ts.resolveModuleName(spec, file, compilerOptions, host).resolvedModule;
    if (!resolved || resolved.isExternalLibraryImport) continue;
    const target = path.resolve(resolved.resolvedFileName);
    if (target.startsWith(SRC + path.sep) && !isTest(target)) out.set(target, (out.get(target) ?? false) || runtime);
  }
  return out;
}

/** `execute`, `calls`, … for a file in a folder; null for a file at the top of src (config, module, main). */
function folderOf(file) {
  const rel = path.relative(SRC, file).split(path.sep);
  return rel.length > 1 ? rel[0] : null;
}

function analyse() {
  const files = sourceFiles(SRC);
  const graph = new Map(files.map((f) => [f, importsOf(f)]));

  // Files an execute request passes through: run-time imports followed from the controller.
  // With type-only imports too, the files a reader of the path follows.
  const reach = (withTypes) => {
    const seen = new Set([ENTRY]);
    const queue = [ENTRY];
    while (queue.length > 0) {
      const f = queue.shift();
      for (const [g, runtime] of graph.get(f) ?? []) {
        if ((runtime || withTypes) && !seen.has(g)) {
          seen.add(g);
          queue.push(g);
        }
      }
    }
    return [...seen].map((f) => path.relative(SRC, f)).sort();
  };
  const executePath = reach(false);
  const executeReading = reach(true);

  // Folder dependencies.
  const folderDeps = new Map();
  for (const [f, deps] of graph) {
    const from = folderOf(f);
    if (!from) continue;
    for (const d of deps.keys()) {
      const to = folderOf(d);
      if (!to || to === from) continue;
      if (!folderDeps.has(from)) folderDeps.set(from, new Map());
      const edges = folderDeps.get(from);
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to).push(`${path.relative(SRC, f)} -> ${path.relative(SRC, d)}`);
    }
  }
  const depends = (a, b) => folderDeps.get(a)?.has(b) ?? false;
  const folders = [...new Set(files.map(folderOf).filter((x) => x !== null))].sort();
  const mutualPairs = [];
  for (const a of folders)
    for (const b of folders) if (a < b && depends(a, b) && depends(b, a)) mutualPairs.push([a, b]);

  // Cycles of folders: strongly connected components with more than one folder (Tarjan).
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of folderDeps.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) cycles.push(scc.sort());
    }
  };
  for (const f of folders) if (!idx.has(f)) visit(f);

  const kernelImports = [...(folderDeps.get(KERNEL)?.entries() ?? [])].map(([to, why]) => ({ to, why }));
  const edges = {};
  for (const [from, m] of folderDeps) edges[from] = [...m.keys()].sort();
  return {
    executePath,
    executePathCount: executePath.length,
    executeReadingCount: executeReading.length,
    mutualPairs,
    cycles,
    kernelImports,
    folderEdges: edges,
    folderDeps,
  };
}

module.exports = { analyse };

if (require.main === module) {
  const r = analyse();
  if (process.argv.includes('--json')) {
    const rest = { ...r };
    delete rest.folderDeps;
    console.log(JSON.stringify(rest, null, 2));
  } else {
    console.log(
      `files an execute request passes through (run-time imports from execute/execute.controller.ts): ${r.executePathCount}`,
    );
    console.log(`  (with type-only imports: ${r.executeReadingCount})`);
    for (const f of r.executePath) console.log(`  ${f}`);
    console.log(`feature folders importing each other: ${r.mutualPairs.length}`);
    for (const [a, b] of r.mutualPairs) {
      console.log(`  ${a} <-> ${b}`);
      for (const why of [...r.folderDeps.get(a).get(b), ...r.folderDeps.get(b).get(a)]) console.log(`    ${why}`);
    }
    console.log(`folder cycles: ${r.cycles.length}${r.cycles.map((c) => `\n  ${c.join(' -> ')}`).join('')}`);
    console.log(
      `${KERNEL}/ imports from other folders: ${r.kernelImports.length === 0 ? 'none' : r.kernelImports.map((k) => k.to).join(', ')}`,
    );
  }
}
