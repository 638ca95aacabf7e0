import { Controller, Res } from '@nestjs/common';
import { AppError, ROUTES, type CatalogImportCommand, type CatalogImportResult, type CatalogStatus, type ProvidersList, type ServerToolsList } from '@rota/contracts';
import { RpcClient } from '@rota/service-kit';
import type { FastifyReply } from 'fastify';
import { Input, Route, type In } from '../http/route';

/** An import of a large catalog takes a while; reads keep the default deadline. */
const IMPORT_TIMEOUT_MS = 300_000;
/** When `GET /v1/servers` was deprecated in favour of `GET /v1/providers` (RFC 9745 date). */
const SERVERS_DEPRECATED_AT = '@1767225600';

/** `{"url": …}` or `{"url": …, "mcp": true}` rather than a catalog document. */
function urlSource(body: Record<string, unknown>): CatalogImportCommand['source'] | undefined {
  const keys = Object.keys(body);
  if (typeof body.url !== 'string' || keys.some((k) => k !== 'url' && k !== 'mcp')) return undefined;
  if (body.mcp !== undefined && typeof body.mcp !== 'boolean') return undefined;
  try {
    new URL(body.url);
  } catch {
    throw new AppError('invalid_body', 'The request body is invalid.', { issues: [{ path: ['url'], message: 'Invalid URL', code: 'invalid_format' }] });
  }
  return { kind: body.mcp ? 'mcp' : 'url', url: body.url };
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
  listServers(@Input() { query }: In<typeof ROUTES.listServers>, @Res({ passthrough: true }) reply: FastifyReply): Promise<ProvidersList> {
    void reply.header('deprecation', SERVERS_DEPRECATED_AT).header('link', '</v1/providers>; rel="successor-version"');
    return this.rpc.send('search.catalog.providers', query);
  }

  @Route(ROUTES.listServerTools)
  listServerTools(@Input() { params, query }: In<typeof ROUTES.listServerTools>): Promise<ServerToolsList> {
    return this.rpc.send('search.catalog.tools', { ...query, server_id: params.id });
  }

  @Route(ROUTES.getCatalogStatus)
  getCatalogStatus(): Promise<CatalogStatus> {
    return this.rpc.send('search.catalog.status', {});
  }

  /**
   * Admin import: a Rota catalog, an MCP `tools/list` result (`?server=`), or
   * `{"url": …}` / `{"url": …, "mcp": true}`. Tools go to the global catalog,
   * or with `?owner=project` to the caller's project only.
   */
  @Route(ROUTES.importCatalog)
  importCatalog(@Input() { body, query }: In<typeof ROUTES.importCatalog>): Promise<CatalogImportResult> {
    const source = urlSource(body) ?? { kind: 'document' as const, document: body };
    return this.rpc.send('search.catalog.import', { source, server: query.server, prune: query.prune ?? false, owner: query.owner }, { timeoutMs: IMPORT_TIMEOUT_MS });
  }
}
