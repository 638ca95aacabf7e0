import { CatalogImportBody, CatalogImportResult, CatalogStatus, ProvidersList, ServerToolsList } from '@rota/contracts';
import type { RouteDoc } from '../openapi/routes';

/** The catalog routes in the OpenAPI document. */
export const CATALOG_ROUTES: RouteDoc[] = [
  {
    method: 'get',
    path: '/v1/providers',
    summary: 'Providers of the catalog (?category, ?country, ?q, ?limit 1..200, ?cursor), with the tools each has for the caller',
    tag: 'catalog',
    scope: 'servers:read',
    response: ProvidersList,
    errors: [400, 401, 403, 503, 504],
  },
  {
    method: 'get',
    path: '/v1/servers',
    summary: 'Deprecated alias of GET /v1/providers (same body, with Deprecation and Link headers)',
    tag: 'catalog',
    scope: 'servers:read',
    response: ProvidersList,
    errors: [400, 401, 403, 503, 504],
  },
  {
    method: 'get',
    path: '/v1/servers/{id}/tools',
    summary: "One provider's tools visible to the caller (?limit, ?cursor); 404 unknown_server for an id that names no provider",
    tag: 'catalog',
    scope: 'servers:read',
    response: ServerToolsList,
    errors: [400, 401, 403, 404, 503, 504],
  },
  {
    method: 'get',
    path: '/v1/catalog/status',
    summary: 'Embedding coverage of the current model, and catalog jobs waiting',
    tag: 'catalog',
    scope: 'servers:read',
    response: CatalogStatus,
    errors: [401, 403, 503, 504],
  },
  {
    method: 'post',
    path: '/v1/catalog/import',
    summary: 'Import a Rota catalog, an MCP tools/list result (?server=) or a URL ({"url"}, {"url","mcp":true}); ?prune=true, ?owner=project; bodies up to 64 MiB',
    tag: 'catalog',
    scope: 'catalog:write',
    request: CatalogImportBody,
    response: CatalogImportResult,
    errors: [400, 401, 403, 404, 413, 415, 503, 504],
  },
];
