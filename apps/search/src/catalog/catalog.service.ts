import {
  CatalogFormatError,
  CatalogUrlError,
  EMBEDDING_DIMENSIONS,
  parseCatalogText,
  parseCatalogValue,
  type CatalogDocument,
  type ImportOptions,
  type ImportOutcome,
  type QueueCounts,
} from '@rota/catalog';
import type { CatalogRepository } from '@rota/catalog/repository';
import {
  AppError,
  type CatalogImportCommand,
  type CatalogImportResult,
  type CatalogStatus,
  type ProvidersList,
  type ProvidersListCommand,
  type ServerToolsCommand,
  type ServerToolsList,
} from '@rota/contracts';
import { currentTenant, maybeTenant } from '@rota/service-kit';
import { decodeCursor, encodeCursor } from './cursor';

/** What the catalog service needs from the outside world; the module wires the real ones. */
export interface CatalogServiceDeps {
  repo: CatalogRepository;
  /** The embedding model queries are compared with. */
  model: string;
  importer(doc: CatalogDocument, opts: ImportOptions): Promise<ImportOutcome>;
  queueCounts(): Promise<QueueCounts>;
  fetchText(url: string): Promise<string>;
  listMcpTools(url: string): Promise<unknown>;
}

/** Catalog reads and the admin import, over the transport. */
export class CatalogService {
  constructor(private readonly deps: CatalogServiceDeps) {}

  async providers(cmd: ProvidersListCommand): Promise<ProvidersList> {
    const after = cmd.cursor ? decodeCursor(cmd.cursor, { a: 'text' }).a : undefined;
    // One extra row tells whether another page exists.
    const { total, filtered, rows } = await this.deps.repo.listProviders({
      category: cmd.category,
      country: cmd.country,
      q: cmd.q,
      limit: cmd.limit + 1,
      afterId: after,
      projectId: currentTenant().project_id,
    });
    const page = rows.slice(0, cmd.limit);
    const more = rows.length > cmd.limit;
    return {
      total,
      filtered,
      servers: page,
      next_cursor: more ? encodeCursor({ a: page[page.length - 1]!.id }) : null,
    };
  }

  async tools(cmd: ServerToolsCommand): Promise<ServerToolsList> {
    const after = cmd.cursor ? decodeCursor(cmd.cursor, { n: 'text', i: 'uuid' }) : undefined;
    // The documented system answered 200 with an empty list here; an id that
    // names no provider is a 404 so a typo cannot pass for "no tools".
    const projectId = currentTenant().project_id;
    if (!(await this.deps.repo.providerExists(cmd.server_id, projectId))) {
      throw new AppError('unknown_server', `No provider has the id '${cmd.server_id}'.`, { server_id: cmd.server_id });
    }
    const { total, rows } = await this.deps.repo.listTools({
      serverId: cmd.server_id,
      limit: cmd.limit + 1,
      after: after ? { name: after.n, id: after.i } : undefined,
      projectId,
    });
    const page = rows.slice(0, cmd.limit);
    const last = page[page.length - 1];
    return {
      server_id: cmd.server_id,
      total,
      tools: page.map(({ id: _id, ...t }) => t),
      next_cursor: rows.length > cmd.limit && last ? encodeCursor({ n: last.name, i: last.id }) : null,
    };
  }

  async status(): Promise<CatalogStatus> {
    // A project sees the global catalog and its own rows; an operator (no tenant) the whole deployment.
    const tenant = maybeTenant();
    const [counts, indexed, jobs] = await Promise.all([
      this.deps.repo.counts(this.deps.model, tenant ? { projectId: tenant.project_id } : 'deployment'),
      this.deps.repo.vectorIndexExists(),
      this.deps.queueCounts().catch(() => undefined),
    ]);
    const stale = counts.tools - counts.embedded;
    const coverage = counts.tools === 0 ? 1 : counts.embedded / counts.tools;
    return {
      model: this.deps.model,
      dimensions: EMBEDDING_DIMENSIONS,
      providers: counts.providers,
      tools: counts.tools,
      embedded: counts.embedded,
      stale,
      coverage:
        Math.round(coverage * 10_000) / 10_000 === 1 && stale > 0 ? 0.9999 : Math.round(coverage * 10_000) / 10_000,
      vector_search: stale === 0 ? 'complete' : 'partial',
      vector_index: indexed ? 'ready' : 'missing',
      queued_jobs: jobs ? jobs.waiting + jobs.active + jobs.delayed : 0,
      failed_jobs: jobs?.failed ?? 0,
      ...(stale > 0
        ? {
            note: `${stale} of ${counts.tools} tools have no ${this.deps.model} vector yet: the vector pass of discover sees only the other ${counts.embedded} until the worker catches up; the trigram pass sees all.`,
          }
        : {}),
    };
  }

  async import(cmd: CatalogImportCommand): Promise<CatalogImportResult> {
    let doc: CatalogDocument;
    try {
      const opts = { server: cmd.server };
      switch (cmd.source.kind) {
        case 'document':
          doc = parseCatalogValue(cmd.source.document, opts);
          break;
        case 'text':
          doc = parseCatalogText(cmd.source.text, opts);
          break;
        case 'url':
          doc = parseCatalogText(await this.deps.fetchText(cmd.source.url), opts);
          break;
        case 'mcp':
          if (!cmd.server)
            throw new CatalogFormatError([
              { path: 'server', message: 'a live MCP import needs ?server=<id> of a known provider' },
            ]);
          doc = parseCatalogValue(await this.deps.listMcpTools(cmd.source.url), { server: cmd.server, format: 'mcp' });
          break;
      }
    } catch (err) {
      if (err instanceof CatalogFormatError) {
        throw new AppError('invalid_body', `The catalog is invalid: ${err.message}`, { issues: err.issues });
      }
      if (err instanceof CatalogUrlError) throw new AppError('invalid_body', err.message, { field: 'url' });
      throw err;
    }
    // Project-owned rows belong to the importing key's project; catalog rows to
    // nobody. The gateway sends `catalog` only for an operator key, which has
    // no tenant: a request acting for a project never writes the global catalog.
    const tenant = maybeTenant();
    if (cmd.owner === 'catalog' && tenant)
      throw new AppError('forbidden', "Only operator keys (scope 'admin') write the global catalog.");
    if (cmd.owner === 'project' && !tenant)
      throw new AppError(
        'forbidden',
        'Operator keys act on the deployment, not on a project: import with owner=catalog.',
      );
    const projectId = tenant ? tenant.project_id : null;
    const { result, sweepRequested } = await this.deps.importer(doc, {
      model: this.deps.model,
      projectId,
      prune: cmd.prune,
    });
    return {
      providers: result.providers,
      tools: result.tools,
      reembed: result.reembed,
      sweep_requested: sweepRequested,
      ...(result.disabled.length ? { disabled: result.disabled } : {}),
    };
  }
}
