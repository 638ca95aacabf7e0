/**
 * `rota catalog …`: import a catalog, seed the demo catalog, watch the
 * re-embedding until it is complete, and print the catalog's status.
 */
import { readFileSync } from 'node:fs';
import {
  AUTH_TYPES,
  CatalogFormatError,
  CatalogQueue,
  CatalogUrlError,
  createEmbedder,
  currentEmbeddingModel,
  embedderKind,
  localModelKind,
  LocalEmbedderPool,
  describeIssue,
  embedBatch,
  fetchCatalogText,
  importAndRequestSweep,
  listMcpTools,
  parseCatalogText,
  parseCatalogValue,
  seedDemoCatalog,
  staleBatches,
  type CatalogDocument,
  type CatalogFormat,
  type ImportResult,
  type McpServerTarget,
  type ProviderInput,
  type QueueCounts,
  type UrlPolicy,
} from '@rota/catalog';
import { CatalogRepository } from '@rota/catalog/repository';
import type { PrismaClient } from '@rota/db';
import { Option, type Command } from 'commander';
import { CliError, EXIT, withProgress, type CliIo } from './io';

/**
 * A catalog command that cannot go on, printed as `error: …`: exit code 1 for
 * the caller's mistake, 2 (`{exitCode: EXIT.serverError}`) when a server,
 * Redis or the network failed.
 */
export class CatalogCliError extends CliError {}

/**
 * Whether a catalog URL or MCP listing failed on the far side (no answer in
 * time, a dropped or refused connection, a name that does not resolve, a 5xx)
 * rather than because of what the caller asked for (a private address, a 4xx,
 * too large). `CatalogUrlError` carries only a sentence, so the sentence is
 * what is read.
 */
export function isServerSideUrlFailure(message: string): boolean {
  return /timed out|HTTP 5\d\d\b|does not resolve|fetch failed|socket hang up|other side closed|\bE(CONNREFUSED|CONNRESET|CONNABORTED|HOSTUNREACH|NETUNREACH|TIMEDOUT|AI_AGAIN|NOTFOUND|PIPE)\b|could not read /.test(
    message,
  );
}

const serverError = { exitCode: EXIT.serverError };

const printJson = (io: CliIo, value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);

interface ImportOpts {
  server?: string;
  name?: string;
  category?: string;
  country?: string;
  countries?: string;
  authType?: string;
  description?: string;
  baseUrlLive?: string;
  baseUrlTest?: string;
  status?: string;
  sandbox?: boolean;
  mcp?: boolean;
  header: string[];
  prune?: boolean;
  project?: string;
  format?: CatalogFormat;
  embed?: boolean;
  bulk?: boolean;
  json?: boolean;
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** `--server` alone names a known provider; with `--name` it is a new provider's id. */
function serverTarget(o: ImportOpts): McpServerTarget | undefined {
  if (!o.server) return undefined;
  if (!o.name) return o.server;
  const provider: ProviderInput = {
    id: o.server,
    name: o.name,
    description: o.description ?? '',
    category: o.category ?? '',
    auth_type: (o.authType ?? '') as ProviderInput['auth_type'],
    ...(o.country ? { country: o.country } : {}),
    ...(o.countries
      ? {
          countries: o.countries
            .split(',')
            .map((c) => c.trim())
            .filter(Boolean),
        }
      : {}),
    base_urls: { live: o.baseUrlLive ?? null, test: o.baseUrlTest ?? null },
    ...(o.status ? { status: o.status } : {}),
    sandbox_available: o.sandbox ?? false,
  };
  return provider;
}

function headers(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list) {
    const i = h.indexOf(':');
    if (i <= 0) throw new CatalogCliError(`--header wants "Name: value", got "${h}"`);
    out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}

async function readSource(source: string, o: ImportOpts, policy: UrlPolicy): Promise<CatalogDocument> {
  const server = serverTarget(o);
  const opts = { server, format: o.format };
  try {
    if (o.mcp) {
      if (!isUrl(source)) throw new CatalogCliError('--mcp needs the http(s) URL of an MCP server');
      if (!server)
        throw new CatalogCliError(
          '--mcp needs --server <id> (a known provider, or a new one with --name, --category and --auth-type)',
        );
      // Public addresses only, as for the HTTP route: a private host's catalog is imported from a file.
      const listed = await listMcpTools(source, { ...policy, headers: headers(o.header) });
      return parseCatalogValue(listed, { server, format: 'mcp' });
    }
    const text = isUrl(source) ? await fetchCatalogText(source, policy) : readFile(source);
    return parseCatalogText(text, opts);
  } catch (err) {
    if (err instanceof CatalogFormatError) {
      // One line names the first issue; the rest are details (`--json`, `ROTA_DEBUG`).
      const n = err.issues.length;
      const first = err.issues[0] ? `: ${source}: ${describeIssue(err.issues[0]).replace(/\s*\n\s*/g, ' ')}` : '';
      const more = n > 1 ? ` (and ${n - 1} more issue${n > 2 ? 's' : ''}: --json or ROTA_DEBUG=1 lists them)` : '';
      throw new CatalogCliError(`${source} is not a valid catalog; nothing was imported${first}${more}`, {
        code: 'invalid_catalog',
        details: err.issues.map((i) => ({
          text: `${source}: ${describeIssue(i)}`,
          line: i.line ?? null,
          column: i.line !== undefined ? (i.column ?? 1) : null,
          path: i.path || null,
          message: i.message,
        })),
      });
    }
    if (err instanceof CatalogUrlError)
      throw new CatalogCliError(err.message, isServerSideUrlFailure(err.message) ? serverError : {});
    throw err;
  }
}

function readFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CatalogCliError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export function formatImport(r: ImportResult, sweep: string): string {
  return (
    [
      `providers: ${r.providers.created} created, ${r.providers.updated} updated, ${r.providers.unchanged} unchanged`,
      `tools:     ${r.tools.created} created, ${r.tools.updated} updated, ${r.tools.unchanged} unchanged, ${r.tools.removed} removed`,
      `to embed:  ${r.reembed}${sweep}`,
    ].join('\n') + '\n'
  );
}

/** The catalog queue; calls fail fast when Redis cannot be reached (the import itself does not need it). */
function queueFor(io: CliIo): CatalogQueue {
  return CatalogQueue.connect(io.env.REDIS_URL || 'redis://127.0.0.1:6379', io.env.ROTA_REDIS_PREFIX || 'rota', {
    failFast: true,
  });
}

async function withQueue<T>(io: CliIo, fn: (q: CatalogQueue) => Promise<T>): Promise<T> {
  const q = queueFor(io);
  try {
    return await fn(q);
  } finally {
    await q.close().catch(() => undefined);
  }
}

/** Renders `[#####.....]  50.0%  150/300` for a terminal, or a plain line for logs. */
export function progressLine(done: number, total: number, width = 30): string {
  const ratio = total === 0 ? 1 : Math.min(1, done / total);
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(1).padStart(5)}%  ${done}/${total}`;
}

export function registerCatalogCommands(program: Command, io: CliIo, db: () => PrismaClient): void {
  const catalog = program.command('catalog').description('Import the provider catalog and follow its embedding');
  const model = () => {
    try {
      return currentEmbeddingModel(io.env);
    } catch (err) {
      throw new CatalogCliError((err as Error).message);
    }
  };

  catalog
    .command('import')
    .description('Import a Rota catalog file, an MCP tools/list result, or a live MCP server, and queue re-embedding')
    .argument('<source>', 'a file path or an http(s) URL')
    .option(
      '--server <id>',
      'for MCP input: the provider the tools belong to (a known id, or a new one with --name etc.)',
    )
    .option('--name <name>', 'new provider: display name')
    .option('--category <slug>', 'new provider: category, e.g. payments')
    .option('--country <code>', 'new provider: main country (ISO alpha-2) or *')
    .option('--countries <list>', 'new provider: comma-separated countries')
    .addOption(new Option('--auth-type <type>', 'new provider: auth scheme').choices([...AUTH_TYPES]))
    .option('--description <text>', 'new provider: one-line description')
    .option('--base-url-live <url>', 'new provider: live base URL')
    .option('--base-url-test <url>', 'new provider: sandbox base URL')
    .option('--status <status>', 'new provider: stable, beta, alpha…')
    .option('--sandbox', 'new provider: has a sandbox')
    .option('--mcp', '<source> is a live MCP server (Streamable HTTP); lists its tools')
    .option(
      '--header <header>',
      'extra HTTP header for --mcp, "Name: value" (repeatable)',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--prune', "delete the imported servers' tools that the input no longer lists")
    .option('--project <id>', 'import as tools of this project only (default: the global catalog)')
    .addOption(new Option('--format <format>', 'skip format detection').choices(['rota', 'mcp', 'server-array']))
    .option('--embed', 'embed new and edited tools in this process, inside the import (no worker needed)')
    .option('--bulk', 'for large first loads: --embed, and build the HNSW index once at the end instead of row by row')
    .option('--json', 'print the import result as JSON')
    .action(async (source: string, o: ImportOpts) => {
      const doc = await withProgress(
        io,
        `reading ${source}`,
        readSource(source, o, { addressAllowed: io.addressAllowed }),
      );
      const m = model();
      const inline = o.embed || o.bulk;
      const embedder = inline
        ? embedderKind(io.env) === 'local'
          ? new LocalEmbedderPool({ kind: localModelKind(io.env) })
          : createEmbedder(io.env)
        : undefined;
      try {
        const { result, sweepRequested, sweepError } = await withProgress(
          io,
          inline ? `importing and embedding ${source}` : `importing ${source}`,
          withQueue(io, (queue) =>
            importAndRequestSweep(db(), queue, doc, {
              model: m,
              projectId: o.project ?? null,
              prune: o.prune,
              embedder,
              rebuildVectorIndex: o.bulk,
            }),
          ),
        );
        // Redis down does not undo a good import: say so, and let the scheduled sweep catch up.
        if (sweepError)
          io.stderr(
            `warning: could not queue the re-embed sweep (${sweepError}); the worker's scheduled sweep will pick the rows up\n`,
          );
        if (o.json) {
          printJson(io, {
            source,
            model: m,
            project_id: o.project ?? null,
            ...result,
            embedded_inline: Boolean(inline),
            sweep: { requested: sweepRequested, error: sweepError ?? null },
          });
          return;
        }
        const t = result.timings;
        const took = inline
          ? ` (embedded here with ${m}; ${(t.total / 1000).toFixed(1)} s: embedding ${(t.embedding / 1000).toFixed(1)}, writing ${(t.writing / 1000).toFixed(1)}, index ${(t.index / 1000).toFixed(1)})`
          : '';
        io.stdout(formatImport(result, sweepRequested ? ` (sweep queued for ${m})` : took));
      } finally {
        if (embedder instanceof LocalEmbedderPool) await embedder.close();
      }
    });

  catalog
    .command('seed')
    .description('Import the demo catalog shipped with Rota into the global catalog')
    .option('--json', 'print the import result as JSON')
    .action(async (o: { json?: boolean }) => {
      const m = model();
      let sweepError: string | undefined;
      const res = await withQueue(io, async (queue) => {
        const r = await seedDemoCatalog(db(), { model: m });
        if (r && r.reembed > 0)
          await queue.requestSweep().catch((err: Error) => {
            sweepError = err.message;
          });
        return r;
      });
      if (!res) throw new CatalogCliError('no demo catalog found (packages/catalog/data/demo-catalog.json)');
      if (sweepError)
        io.stderr(
          `warning: could not queue the re-embed sweep (${sweepError}); the worker's scheduled sweep will pick the rows up\n`,
        );
      const sweepRequested = res.reembed > 0 && sweepError === undefined;
      if (o.json)
        return printJson(io, { model: m, ...res, sweep: { requested: sweepRequested, error: sweepError ?? null } });
      io.stdout(formatImport(res, sweepRequested ? ` (sweep queued for ${m})` : ''));
    });

  catalog
    .command('status')
    .description('Tool count, vectors of the current model, coverage and queued jobs')
    .option('--json', 'print the status as JSON (jobs is null when the queue is unreachable)')
    .action(async (o: { json?: boolean }) => {
      const m = model();
      const counts = await new CatalogRepository(db()).counts(m);
      const jobs = await withQueue(io, (q) => q.counts().catch(() => undefined));
      if (o.json)
        return printJson(io, {
          model: m,
          providers: counts.providers,
          tools: counts.tools,
          embedded: counts.embedded,
          coverage: coverageOf(counts.embedded, counts.tools),
          jobs: jobs ?? null,
        });
      io.stdout(statusText(m, counts.providers, counts.tools, counts.embedded, jobs));
    });

  catalog
    .command('sync')
    .description('Queue a sweep and wait until every tool has a vector of the current model, with a progress bar')
    .option('--timeout <seconds>', 'give up after this long', '600')
    .option('--inline', 'embed in this process instead of waiting for a worker')
    .option('--json', 'print only the final figures, as JSON (the progress bar goes to stderr on a terminal)')
    .action(async (o: { timeout: string; inline?: boolean; json?: boolean }) => {
      const timeoutMs = Number(o.timeout) * 1000;
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
        throw new CatalogCliError('--timeout wants a number of seconds');
      const m = model();
      const repo = new CatalogRepository(db());
      const started = Date.now();
      const first = await repo.counts(m);
      // Under --json stdout holds the result alone: the bar moves to stderr, and only on a terminal.
      const out = (text: string) => (o.json ? io.stderr(text) : io.stdout(text));
      const show = (done: number, total: number, extra = '') => {
        if (io.isTTY) out(`\r${progressLine(done, total)}${extra}`);
        else if (!o.json) out(`${progressLine(done, total)}${extra}\n`);
      };
      let calls = 0;
      if (o.inline) {
        const embedder = createEmbedder(io.env);
        show(first.embedded, first.tools);
        for await (const batch of staleBatches(db(), m, 256)) {
          await embedBatch(db(), embedder, { ids: batch.map((b) => b.id) });
          calls++;
          const c = await repo.counts(m);
          show(c.embedded, c.tools);
        }
      } else {
        await withQueue(io, async (queue) => {
          if (first.embedded < first.tools) {
            await queue.requestSweep().catch((err: Error) => {
              throw new CatalogCliError(
                `cannot queue the sweep: Redis is unreachable (${err.message}); check REDIS_URL, or use --inline to embed without a worker`,
                serverError,
              );
            });
          }
          let last = -1;
          let lastChange = Date.now();
          let lastLine = 0;
          for (;;) {
            const c = await repo.counts(m);
            if (c.embedded !== last) {
              last = c.embedded;
              lastChange = Date.now();
            }
            if (io.isTTY || Date.now() - lastLine > 2000 || c.embedded >= c.tools) {
              show(c.embedded, c.tools);
              lastLine = Date.now();
            }
            if (c.embedded >= c.tools) break;
            if (Date.now() - started > timeoutMs) {
              const jobs = await queue.counts().catch(() => undefined);
              throw new CatalogCliError(
                `coverage is ${c.embedded}/${c.tools} after ${o.timeout} s` +
                  (jobs && jobs.active === 0 && Date.now() - lastChange > 10_000
                    ? ' and no job is running: is a worker up (apps/worker), or use --inline?'
                    : ''),
                serverError,
              );
            }
            await new Promise((r) => setTimeout(r, io.isTTY ? 200 : 500));
          }
        });
      }
      if (io.isTTY) out('\n');
      if (!o.inline && !(await repo.vectorIndexExists())) {
        // A bulk re-embed dropped the HNSW index; the worker builds it once the batches are done.
        out('waiting for the worker to rebuild the vector index…\n');
        while (!(await repo.vectorIndexExists())) {
          if (Date.now() - started > timeoutMs)
            throw new CatalogCliError(
              `the vector index is still missing after ${o.timeout} s: is a worker up (apps/worker)?`,
              serverError,
            );
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      const end = await repo.counts(m);
      const secs = (Date.now() - started) / 1000;
      const made = end.embedded - first.embedded;
      if (o.json)
        return printJson(io, {
          model: m,
          tools: end.tools,
          embedded: end.embedded,
          coverage: coverageOf(end.embedded, end.tools),
          this_run: { vectors: made, seconds: Number(secs.toFixed(1)), ...(o.inline ? { batches: calls } : {}) },
        });
      io.stdout(
        [
          `model:     ${m}`,
          `tools:     ${end.tools}`,
          `embedded:  ${end.embedded} (coverage ${coverageOf(end.embedded, end.tools).toFixed(4)})`,
          `this run:  ${made} vectors in ${secs.toFixed(1)} s${made > 0 && secs > 0 ? ` (${Math.round(made / secs)}/s)` : ''}${o.inline ? `, ${calls} batches` : ''}`,
        ].join('\n') + '\n',
      );
    });
}

/** The share of tools with a vector of the current model; an empty catalog is fully covered. */
function coverageOf(embedded: number, tools: number): number {
  return tools === 0 ? 1 : embedded / tools;
}

function statusText(
  model: string,
  providers: number,
  tools: number,
  embedded: number,
  jobs: QueueCounts | undefined,
): string {
  const coverage = coverageOf(embedded, tools);
  return (
    [
      `model:     ${model}`,
      `providers: ${providers}`,
      `tools:     ${tools}`,
      `embedded:  ${embedded}`,
      `coverage:  ${coverage.toFixed(4)}${embedded < tools ? " (discover's vector pass sees only embedded tools until the worker catches up)" : ''}`,
      `jobs:      ${jobs ? `${jobs.waiting} waiting, ${jobs.active} active, ${jobs.delayed} delayed, ${jobs.failed} failed` : 'queue unreachable'}`,
    ].join('\n') + '\n'
  );
}
