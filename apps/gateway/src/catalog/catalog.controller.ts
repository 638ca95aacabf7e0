import { Controller, Res } from '@nestjs/common';
import {
  AppError,
  ROUTES,
  type CatalogImportCommand,
  type CatalogOwner,
  type CatalogImportResult,
  type CatalogStatus,
  type ProvidersList,
  type ServerToolsList,
} from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import type { FastifyReply } from 'fastify';
import { Auth } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { OffThreadJson } from '../http/json-worker';
import { Input, Route, type In } from '../http/route';

/** An import of a large catalog takes a while; reads keep the default deadline. */
const IMPORT_TIMEOUT_MS = 300_000;
/** How long the status waits for the worker's list of missing schedulers. */
const SCHEDULERS_TIMEOUT_MS = 2000;
/** When `GET /v1/servers` was deprecated in favour of `GET /v1/providers` (RFC 9745 date). */
const SERVERS_DEPRECATED_AT = '@1767225600';

/**
 * `{"url": …}` or `{"url": …, "mcp": true}` rather than a catalog document.
 * Decided from the body's top-level member names and short scalar values,
 * which the worker that parsed it reported.
 */
function urlSource(body: OffThreadJson): CatalogImportCommand['source'] | undefined {
  const { keys } = body;
  const scalars = body.scalars as Record<string, unknown>;
  if (typeof scalars.url !== 'string' || keys.some((k) => k !== 'url' && k !== 'mcp')) return undefined;
  if (keys.includes('mcp') && !('mcp' in scalars)) return undefined;
  const url = scalars.url;
  const mcp = scalars.mcp;
  if (mcp !== undefined && typeof mcp !== 'boolean') return undefined;
  try {
    new URL(url);
  } catch {
    throw new AppError('invalid_body', 'The request body is invalid.', {
      issues: [{ path: ['url'], message: 'Invalid URL', code: 'invalid_format' }],
    });
  }
  return { kind: mcp ? 'mcp' : 'url', url };
}

/**
 * Who an import writes for: the key's own kind unless the query says
 * otherwise, and never across kinds. A project key writing the global catalog
 * could rewrite what every other project calls.
 */
function importOwner(p: Principal, asked: CatalogOwner | undefined): CatalogOwner {
  const owner = asked ?? (p.kind === 'operator' ? 'catalog' : 'project');
  if (owner === 'catalog' && !p.scopes.includes('admin')) {
    throw new AppError(
      'forbidden',
      "Only operator keys (scope 'admin') write the global catalog; a project key imports for its own project (owner=project, its default).",
    );
  }
  if (owner === 'project' && p.kind === 'operator') {
    throw new AppError(
      'forbidden',
      'Operator keys act on the deployment, not on a project: import with owner=catalog, or use a project key.',
    );
  }
  return owner;
}

/** The provider catalog. Reads go to the search service, which owns them. */
@Controller()
export class CatalogController {
  constructor(private readonly rpc: RpcClient) {}

  @Route(ROUTES.listProviders)
  listProviders(@Input() { query }: In<typeof ROUTES.listProviders>): Promise<ProvidersList> {
    return this.rpc.send('search.catalog.providers', query);
  }

  /** The documented system's older name for the same list. */
  @Route(ROUTES.listServers)
  listServers(
    @Input() { query }: In<typeof ROUTES.listServers>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProvidersList> {
    void reply.header('deprecation', SERVERS_DEPRECATED_AT).header('link', '</v1/providers>; rel="successor-version"');
    return this.rpc.send('search.catalog.providers', query);
  }

  @Route(ROUTES.listServerTools)
  listServerTools(@Input() { params, query }: In<typeof ROUTES.listServerTools>): Promise<ServerToolsList> {
    return this.rpc.send('search.catalog.tools', { ...query, server_id: params.id });
  }

  /**
   * Coverage from the search service, and from the worker which of its job
   * schedulers Redis lost (while `catalog-sweep` is missing, imported tools
   * wait for vectors). A worker that does not answer leaves the field out
   * rather than the whole status.
   */
  @Route(ROUTES.getCatalogStatus)
  async getCatalogStatus(): Promise<CatalogStatus> {
    const [status, schedulers] = await Promise.all([
      this.rpc.send('search.catalog.status', {}),
      this.rpc.send('worker.schedulers', {}, { timeoutMs: SCHEDULERS_TIMEOUT_MS }).catch(() => undefined),
    ]);
    return schedulers ? { ...status, schedulers_missing: schedulers.missing } : status;
  }

  /**
   * Import: a Rota catalog, an MCP `tools/list` result (`?server=`), or
   * `{"url": …}` / `{"url": …, "mcp": true}`. The global catalog is every
   * project's, so only an operator key writes it; a project key writes
   * providers and tools of its own project, which no other project sees.
   */
  @Route(ROUTES.importCatalog)
  importCatalog(
    @Auth() p: Principal,
    @Input() { body: raw, query }: In<typeof ROUTES.importCatalog>,
  ): Promise<CatalogImportResult> {
    const owner = importOwner(p, query.owner);
    // The definition has the body parsed on a worker thread: the text goes on
    // to the search service, which parses it; this thread never builds it.
    const body = raw as unknown;
    // No body at all (nothing for the JSON parser to read) is the caller's mistake, not ours.
    if (!(body instanceof OffThreadJson))
      throw new AppError(
        'invalid_body',
        'The request body must be a catalog document, or {"url": …}, sent as application/json.',
      );
    const source = urlSource(body) ?? { kind: 'text' as const, text: body.text };
    return this.rpc.send(
      'search.catalog.import',
      { source, server: query.server, prune: query.prune ?? false, owner },
      { timeoutMs: IMPORT_TIMEOUT_MS },
    );
  }
}
