import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  AppError,
  CatalogImportBody,
  CatalogImportQuery,
  ProvidersQuery,
  ServerToolsQuery,
  type CatalogImportCommand,
  type CatalogImportResult,
  type CatalogStatus,
  type ProvidersList,
  type ServerToolsList,
} from '@rota/contracts';
import { RpcClient, ZodPipe } from '@rota/service-kit';
import type { FastifyReply } from 'fastify';
import { Auth, RequireScope } from '../auth/decorators';
import type { Principal } from '../auth/principal';

/** Largest body `POST /v1/catalog/import` accepts. */
export const CATALOG_IMPORT_BODY_LIMIT = 64 * 1024 * 1024;
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

  @Get('v1/providers')
  @RequireScope('servers:read')
  providers(@Query(new ZodPipe(ProvidersQuery, 'invalid_query')) query: ProvidersQuery, @Auth() who: Principal): Promise<ProvidersList> {
    return this.rpc.send('search.catalog.providers', { ...query, project_id: who.projectId });
  }

  /** The documented system's older name for the same list. */
  @Get('v1/servers')
  @RequireScope('servers:read')
  servers(
    @Query(new ZodPipe(ProvidersQuery, 'invalid_query')) query: ProvidersQuery,
    @Auth() who: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProvidersList> {
    void reply.header('deprecation', SERVERS_DEPRECATED_AT).header('link', '</v1/providers>; rel="successor-version"');
    return this.rpc.send('search.catalog.providers', { ...query, project_id: who.projectId });
  }

  @Get('v1/servers/:id/tools')
  @RequireScope('servers:read')
  tools(@Param('id') id: string, @Query(new ZodPipe(ServerToolsQuery, 'invalid_query')) query: ServerToolsQuery, @Auth() who: Principal): Promise<ServerToolsList> {
    if (id.length > 128) throw new AppError('unknown_server', `No provider has the id '${id.slice(0, 128)}…'.`);
    return this.rpc.send('search.catalog.tools', { ...query, server_id: id, project_id: who.projectId });
  }

  @Get('v1/catalog/status')
  @RequireScope('servers:read')
  status(): Promise<CatalogStatus> {
    return this.rpc.send('search.catalog.status', {});
  }

  /**
   * Admin import: a Rota catalog, an MCP `tools/list` result (`?server=`), or
   * `{"url": …}` / `{"url": …, "mcp": true}`. Tools go to the global catalog,
   * or with `?owner=project` to the caller's project only.
   */
  @Post('v1/catalog/import')
  @HttpCode(200)
  @RequireScope('catalog:write')
  @RouteConfig({ bodyLimit: CATALOG_IMPORT_BODY_LIMIT })
  import(
    @Body(new ZodPipe(CatalogImportBody)) body: CatalogImportBody,
    @Query(new ZodPipe(CatalogImportQuery, 'invalid_query')) query: CatalogImportQuery,
    @Auth() who: Principal,
  ): Promise<CatalogImportResult> {
    const source = urlSource(body) ?? { kind: 'document' as const, document: body };
    return this.rpc.send(
      'search.catalog.import',
      { source, server: query.server, prune: query.prune ?? false, project_id: query.owner === 'project' ? who.projectId : null },
      { timeoutMs: IMPORT_TIMEOUT_MS },
    );
  }
}
