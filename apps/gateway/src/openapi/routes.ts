import { ToolSearchRequest, ToolSearchResponse, type Scope } from '@rota/contracts';
import { z } from 'zod';
import { SESSION_ROUTES } from '../sessions/openapi';
import { CATALOG_ROUTES } from '../catalog/openapi';
import { ROUTER_ROUTES } from '../router/openapi';

/** How one gateway route is described in the OpenAPI document. */
export interface RouteDoc {
  method: 'get' | 'post' | 'delete' | 'put' | 'patch';
  /** OpenAPI form: `/v1/sessions/{id}`. */
  path: string;
  summary: string;
  tag: string;
  /** null: no credential. A scope: a key carrying it. */
  scope: Scope | null;
  request?: z.ZodType;
  response?: z.ZodType;
  /** Status codes other than the success one that this route answers. */
  errors?: number[];
  success?: number;
  contentType?: string;
}

const Ping = z.object({ status: z.literal('ok') });
const Check = z.object({ ok: z.boolean(), ms: z.number(), replica: z.string().optional(), error: z.string().optional() });
const Ready = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.object({ postgres: Check, redis: Check, services: z.record(z.string(), Check) }),
});
const MetaToolsDoc = z.object({
  generated_from: z.literal('tools/list'),
  tools: z.array(z.object({ name: z.string(), description: z.string(), inputSchema: z.record(z.string(), z.unknown()) })),
});

/** Every route the gateway serves. A test fails when a registered route is missing here. */
export const ROUTES: RouteDoc[] = [
  { method: 'get', path: '/health/live', summary: 'The process is up', tag: 'health', scope: null, response: Ping },
  { method: 'get', path: '/health/ready', summary: 'Postgres, Redis and every service answer', tag: 'health', scope: null, response: Ready, errors: [503] },
  {
    method: 'post',
    path: '/v1/tools/search',
    summary: 'Path A: rank the 15 published meta-tools for a sentence',
    tag: 'tools',
    scope: 'servers:read',
    request: ToolSearchRequest,
    response: ToolSearchResponse,
    errors: [400, 401, 403, 503, 504],
    success: 200,
  },
  { method: 'get', path: '/meta-tools.json', summary: 'The published meta-tools (no credential, cacheable, ETag)', tag: 'tools', scope: null, response: MetaToolsDoc, errors: [304] },
  { method: 'get', path: '/v1/meta-tools.json', summary: 'Same bytes as /meta-tools.json', tag: 'tools', scope: null, response: MetaToolsDoc, errors: [304] },
  { method: 'get', path: '/openapi.json', summary: 'This document', tag: 'docs', scope: null },
  { method: 'get', path: '/docs', summary: 'A readable page of this document', tag: 'docs', scope: null, contentType: 'text/html' },
  ...SESSION_ROUTES,
  ...CATALOG_ROUTES,
  ...ROUTER_ROUTES,
];
