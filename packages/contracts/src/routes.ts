import { z } from 'zod';
import {
  CatalogImportBody,
  CatalogImportQuery,
  CatalogImportResult,
  CatalogStatus,
  ProvidersList,
  ProvidersQuery,
  ServerToolsList,
  ServerToolsQuery,
} from './catalog';
import { ConnectionCreateRequest, ConnectionDeleted, ConnectionList, ConnectionView } from './connections';
import { KeyCreated, KeyCreateRequest } from './keys';
import { OAuthCallbackQuery, OAuthCallbackView } from './connect';
import { ExecuteQuery, ExecuteRequest, ExecuteResult, IDEMPOTENCY_KEY } from './execute';
import { ProxyRequest, ProxyResult } from './proxy';
import { LOG_EVENT_ID, LogList, LogsQuery, LogStreamQuery } from './logs';
import { defineRoutes, ErrorEnvelope, type RouteDef } from './http';
import {
  MetaToolsDiscoverRequest,
  MetaToolsDiscoverResponse,
  RouterMetricsQuery,
  RouterMetricsResponse,
} from './path-c';
import { SessionClosed, SessionCreated, SessionCreateRequest, SessionView } from './sessions';
import { MockCreateRequest, MockList, MocksEngineError, MockView } from './mocks';
import {
  ApprovalList,
  ApprovalsQuery,
  ApprovalView,
  PolicyPutRequest,
  PolicyRefusal,
  PolicyView,
  RateLimitsPutRequest,
  RateLimitsView,
  UsageView,
} from './policy';
import { ToolSearchRequest, ToolSearchResponse } from './tools-search';
import { HealthHistory, HealthHistoryQuery, HealthReport } from './health';
import { FxImportResult, FxRatesImport, FxRatesList } from './fx';
import {
  WEBHOOK_DELIVERY_ID,
  WEBHOOK_ID,
  WebhookCreated,
  WebhookCreateRequest,
  WebhookDeleted,
  WebhookDeliveriesQuery,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookList,
} from './webhooks';

/**
 * Every HTTP route the gateway serves, one definition each. The gateway
 * registers, authenticates and validates from these; `/openapi.json` is
 * generated from them. A handler names its definition with
 * `@Route(ROUTES.<operationId>)`, so one grep of an operationId finds it.
 */

// Schemas that appear in more than one place become named components.
const c = <T extends z.ZodType>(schema: T, id: string): T => schema.meta({ id }) as T;

const Live = c(z.object({ status: z.literal('ok') }), 'Live');
const ReadyCheck = z.object({
  ok: z.boolean(),
  ms: z.number().describe('Time the check took.'),
  error: z.string().optional().describe('Why the check failed.'),
});
/** Body of `/health/ready`, 200 and 503 alike. */
export const Readiness = c(
  z.object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({
      postgres: ReadyCheck,
      redis: ReadyCheck,
      services: z.record(z.string(), ReadyCheck),
      schedulers: ReadyCheck.extend({
        missing: z
          .array(z.string())
          .describe(
            'Ids of the worker’s job schedulers Redis does not hold (their sweeps do not run); empty when the check could not ask.',
          ),
      }).describe('Every job scheduler of the worker is present in Redis.'),
    }),
  }),
  'Readiness',
);
export type Readiness = z.infer<typeof Readiness>;

/** Body of `/meta-tools.json`. */
export const MetaToolsDocumentSchema = c(
  z.object({
    generated_from: z.literal('tools/list'),
    tools: z.array(
      z.object({ name: z.string(), description: z.string(), inputSchema: z.record(z.string(), z.unknown()) }),
    ),
  }),
  'MetaToolsDocument',
);

/** One JSON-RPC 2.0 message as MCP's Streamable HTTP transport carries it. */
const JsonRpcMessage = c(
  z.object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.unknown().optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  }),
  'JsonRpcMessage',
);
const JsonRpcBody = z.union([JsonRpcMessage, z.array(JsonRpcMessage)]);
const OpenApiDocument = c(z.object({ openapi: z.string() }).catchall(z.unknown()), 'OpenApiDocument');

/** `Idempotency-Key` on routes that act: a repeat with the same key and request runs nothing and gets the first answer. */
const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .regex(IDEMPOTENCY_KEY)
    .optional()
    .describe(
      '1 to 255 printable ASCII characters; kept 24 hours per project and environment. Retry a 503 `outcome_unknown` with the same key.',
    ),
});

/** Execute's headers: the idempotency key, and the approval a retried call spends. */
const ExecuteHeaders = IdempotencyHeaders.extend({
  'rota-approval-id': z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/)
    .optional()
    .describe(
      'An approved approval (`apr_…`) this call spends: it must match the tenant, the session user, the tool, the action and the arguments, and passes one call.',
    ),
});

/** Headers of a call a rate limit counted (IETF httpapi RateLimit fields). */
const RATE_LIMIT_HEADERS = {
  'ratelimit-policy': 'The limits that apply, as `"<name>";q=<quota>;w=<window seconds>` items.',
  ratelimit: 'What is left of the tightest limit: `"<name>";r=<remaining>;t=<seconds until reset>`.',
};

/** A 403 on execute: a policy refusal (no `error` key) or the error envelope (`forbidden`, `quota_exceeded`). */
const ExecuteForbidden = z.union([PolicyRefusal, ErrorEnvelope]);

/** A 503 where the mocks store is read: the error envelope, or `{code: "mocks_engine_error", message, request_id}` (no `error` key). */
const MocksUnavailable = z.union([ErrorEnvelope, MocksEngineError]);
const mocksStoreDown =
  'or `{code: "mocks_engine_error", message, request_id}`, with a `code` key and no `error`, when the mocks store cannot be read';

/** Ids are opaque; anything that cannot be one names nothing. */
const OpaqueId = z.string().regex(/^[A-Za-z0-9_-]{1,200}$/);
const SessionParams = z.object({ id: OpaqueId.describe('Session id (`ses_…`).') });
const sessionNotFound = { code: 'session_not_found', message: 'No session with this id.' } as const;
const ApprovalParams = z.object({ id: OpaqueId.describe('Approval id (`apr_…`).') });
const approvalNotFound = { code: 'approval_not_found', message: 'No approval with this id.' } as const;
const WebhookParams = z.object({ id: z.string().regex(WEBHOOK_ID).describe('Webhook id (`whk_…`).') });
const webhookNotFound = { code: 'webhook_not_found', message: 'No webhook with this id.' } as const;
const WebhookDeliveryParams = WebhookParams.extend({
  delivery_id: z.string().regex(WEBHOOK_DELIVERY_ID).describe('Delivery id (`wdl_…`).'),
});

/** The dashboard pages, each a self-contained HTML document that reads its data from `/dashboard/data/{view}` with the dashboard cookie. */
export const DASHBOARD_PAGES = ['health', 'triggers', 'router', 'router-candidates', 'queues'] as const;
/** The data behind the pages; `queues` needs an operator key. */
export const DASHBOARD_VIEWS = ['health', 'triggers', 'router', 'queues'] as const;
export const DashboardSessionRequest = c(
  z
    .object({
      key: z.string().min(1).max(200).describe('An API key; it is never stored in the browser, only the cookie is.'),
    })
    .strict(),
  'DashboardSessionRequest',
);
const html = (description: string) => ({ description, schema: z.string(), contentType: 'text/html' });
const dashboardPage = <const Id extends string>(
  operationId: Id,
  page: (typeof DASHBOARD_PAGES)[number],
  summary: string,
  description: string,
) =>
  ({
    operationId,
    method: 'get',
    path: `/dashboard/${page}`,
    summary,
    description: `${description} Without a valid dashboard cookie the page asks for a key and exchanges it at \`POST /dashboard/session\`.`,
    tag: 'dashboards',
    scope: null,
    success: 200,
    responses: { 200: html('The page.') },
    hop: 'none',
  }) as const satisfies RouteDef;

/** Static files of the `/docs` page, served from the gateway itself (works offline). */
export const DOCS_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'docs.js'] as const;

const json = (description: string, schema?: z.ZodType, headers?: Record<string, string>) => ({
  description,
  schema,
  headers,
});

const mcpPost = <const Id extends string>(operationId: Id, path: string, description: string, session: boolean) =>
  ({
    operationId,
    method: 'post',
    path,
    summary: session ? 'MCP bound to one session' : 'MCP in the project context',
    description,
    tag: 'sessions',
    scope: 'tools:execute',
    ...(session ? { params: SessionParams, notFound: sessionNotFound } : {}),
    body: JsonRpcBody,
    bodyValidation: 'handler',
    success: 200,
    responses: {
      200: json('JSON-RPC response(s).', JsonRpcBody),
      202: { description: 'Accepted: the body held only notifications or responses.' },
      400: json(
        'Not JSON (`-32700` parse error) or not a valid JSON-RPC message (`-32600`): a JSON-RPC error object, not the REST envelope.',
        JsonRpcMessage,
      ),
      406: json(
        'The Accept header does not allow application/json and text/event-stream (JSON-RPC error object).',
        JsonRpcMessage,
      ),
      415: json('The body is not application/json (JSON-RPC error object, `-32000`).', JsonRpcMessage),
    },
    hop: 'acts',
  }) as const satisfies RouteDef;

const mcpRefused = <const Id extends string>(
  operationId: Id,
  method: 'get' | 'delete',
  path: string,
  session: boolean,
) =>
  ({
    operationId,
    method,
    path,
    summary: method === 'get' ? 'No event stream (stateless MCP)' : 'No MCP session to end (stateless MCP)',
    description:
      'The MCP endpoints are stateless: every exchange is one POST. Answers 405 `method_not_allowed` with `Allow: POST`.',
    tag: 'sessions',
    scope: 'tools:execute',
    ...(session ? { params: SessionParams, notFound: sessionNotFound } : {}),
    success: 405,
    responses: {},
    errors: ['method_not_allowed'],
    hop: 'none',
  }) as const satisfies RouteDef;

const providersList = {
  method: 'get',
  summary: 'List providers',
  tag: 'catalog',
  scope: 'servers:read',
  query: ProvidersQuery,
  success: 200,
  hop: 'reads',
} as const;

export const ROUTES = defineRoutes({
  healthLive: {
    operationId: 'healthLive',
    method: 'get',
    path: '/health/live',
    summary: 'Liveness',
    description: 'Answers as soon as the process is up; checks nothing else.',
    tag: 'health',
    scope: null,
    success: 200,
    responses: { 200: json('The process is up.', Live) },
    hop: 'none',
  },
  healthReady: {
    operationId: 'healthReady',
    method: 'get',
    path: '/health/ready',
    summary: 'Readiness',
    description:
      'Ready when Postgres and Redis answer, every service answers a ping over the transport and every job scheduler of the worker is present in Redis, each within its own budget.',
    tag: 'health',
    scope: null,
    success: 200,
    responses: {
      200: json('Everything answers.', Readiness),
      503: json('At least one check failed (`status: not_ready`).', Readiness),
    },
    hop: 'none',
  },
  searchTools: {
    operationId: 'searchTools',
    method: 'post',
    path: '/v1/tools/search',
    summary: 'Path A: rank the meta-tools for a sentence',
    description:
      'Ranks the 15 published meta-tools for a sentence in English, Portuguese or Spanish. The answer never depends on the caller’s tenant.',
    tag: 'tools',
    scope: 'servers:read',
    body: ToolSearchRequest,
    success: 200,
    responses: { 200: json('Ranked meta-tools (possibly none).', ToolSearchResponse) },
    hop: 'reads',
  },
  getMetaTools: {
    operationId: 'getMetaTools',
    method: 'get',
    path: '/meta-tools.json',
    summary: 'The published meta-tools',
    description:
      'The 15 meta-tools with their input schemas, readable without a credential from any origin. Cacheable, with a strong ETag.',
    tag: 'tools',
    scope: null,
    success: 200,
    responses: {
      200: json('The document.', MetaToolsDocumentSchema, {
        etag: 'Strong validator of the body.',
        'cache-control': 'public, max-age=300',
      }),
      304: { description: 'Not modified: If-None-Match matched the ETag.' },
    },
    hop: 'none',
  },
  getMetaToolsV1: {
    operationId: 'getMetaToolsV1',
    method: 'get',
    path: '/v1/meta-tools.json',
    summary: 'The published meta-tools (versioned path)',
    description: 'The same bytes as `/meta-tools.json`.',
    tag: 'tools',
    scope: null,
    success: 200,
    responses: {
      200: json('The document.', MetaToolsDocumentSchema, {
        etag: 'Strong validator of the body.',
        'cache-control': 'public, max-age=300',
      }),
      304: { description: 'Not modified: If-None-Match matched the ETag.' },
    },
    hop: 'none',
  },
  getOpenApi: {
    operationId: 'getOpenApi',
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    description: 'The OpenAPI 3.1 document, generated from the route definitions.',
    tag: 'docs',
    scope: null,
    success: 200,
    responses: { 200: json('OpenAPI 3.1.', OpenApiDocument) },
    hop: 'none',
  },
  getDocs: {
    operationId: 'getDocs',
    method: 'get',
    path: '/docs',
    summary: 'Readable API reference',
    description: 'An HTML page rendering `/openapi.json`; every asset is served by the gateway, so it works offline.',
    tag: 'docs',
    scope: null,
    success: 200,
    responses: { 200: { description: 'HTML page.', schema: z.string(), contentType: 'text/html' } },
    hop: 'none',
  },
  getDocsAsset: {
    operationId: 'getDocsAsset',
    method: 'get',
    path: '/docs/assets/{file}',
    summary: 'A static file of the reference page',
    description: 'Scripts and styles of the `/docs` page.',
    tag: 'docs',
    scope: null,
    params: z.object({ file: z.enum(DOCS_ASSETS) }),
    notFound: { code: 'not_found', message: 'No such file.' },
    success: 200,
    responses: { 200: { description: 'The file.', schema: z.string(), contentType: 'application/octet-stream' } },
    hop: 'none',
  },
  listProviders: {
    ...providersList,
    operationId: 'listProviders',
    path: '/v1/providers',
    description:
      'Providers of the catalog with filters and cursor paging, each with the number of tools the caller can see.',
    responses: { 200: json('One page of providers.', ProvidersList) },
  },
  listServers: {
    ...providersList,
    operationId: 'listServers',
    path: '/v1/servers',
    summary: 'List providers (deprecated name)',
    description:
      'Older name of `GET /v1/providers`: the same body, with `Deprecation` and `Link` headers pointing at the successor.',
    deprecated: true,
    responses: {
      200: json('One page of providers.', ProvidersList, {
        deprecation: 'RFC 9745 deprecation date.',
        link: 'The successor route.',
      }),
    },
  },
  listServerTools: {
    operationId: 'listServerTools',
    method: 'get',
    path: '/v1/servers/{id}/tools',
    summary: 'List one provider’s tools',
    description: 'The tools of one provider the caller can see, with cursor paging.',
    tag: 'catalog',
    scope: 'servers:read',
    params: z.object({ id: z.string().min(1).max(128).describe('Provider id.') }),
    notFound: { code: 'unknown_server', message: 'No provider has this id.' },
    query: ServerToolsQuery,
    success: 200,
    responses: { 200: json('One page of tools.', ServerToolsList) },
    hop: 'reads',
  },
  getCatalogStatus: {
    operationId: 'getCatalogStatus',
    method: 'get',
    path: '/v1/catalog/status',
    summary: 'Embedding coverage',
    description:
      'How much of the catalog has a vector of the current model, and how many catalog jobs wait. A project key counts the global catalog and its own project’s providers and tools; an operator key counts the whole deployment.',
    tag: 'catalog',
    scope: 'servers:read',
    operators: true,
    success: 200,
    responses: { 200: json('Coverage and queue.', CatalogStatus) },
    hop: 'reads',
  },
  importCatalog: {
    operationId: 'importCatalog',
    method: 'post',
    path: '/v1/catalog/import',
    summary: 'Import a catalog',
    description:
      'Imports a Rota catalog document, an MCP `tools/list` result (with `?server=`), a document fetched from `{"url"}`, or the tools of a live MCP server (`{"url", "mcp": true}`). Bodies up to 64 MiB. The global catalog (`owner=catalog`, the default for an operator key) is written only by operator keys, which carry `admin`; a project key imports providers and tools that only its own project sees (`owner=project`, its default), and asking it for `owner=catalog` is 403 `forbidden`, as is `owner=project` from an operator key. Provider ids belong to one owner: a project that creates or changes a provider whose id the global catalog uses gets 409 `provider_id_taken` (naming the `ids`) and nothing is written; it may still add its own tools to a global provider by naming it without details. A global import of an id some project uses wins: the project’s row is renamed to `<project>.<id>`, disabled, and listed in `disabled`.',
    tag: 'catalog',
    scope: 'catalog:write',
    operators: true,
    query: CatalogImportQuery,
    body: CatalogImportBody,
    bodyLimit: 64 * 1024 * 1024,
    bodyValidation: 'handler',
    bodyOffThread: true,
    success: 200,
    responses: { 200: json('What changed.', CatalogImportResult) },
    errors: ['unknown_server', 'provider_id_taken'],
    hop: 'reads',
  },
  createConnection: {
    operationId: 'createConnection',
    method: 'post',
    path: '/v1/connections',
    summary: 'Store a provider’s credentials',
    description:
      'Stores (201) or replaces (200) the credentials of one provider for the key’s project and environment. No answer ever carries them back.',
    tag: 'connections',
    scope: 'connections:write',
    body: ConnectionCreateRequest,
    success: 201,
    responses: {
      201: json('Created.', ConnectionView),
      200: json('Replaced the provider’s earlier credentials.', ConnectionView),
    },
    errors: ['unknown_servers'],
    hop: 'reads',
  },
  listConnections: {
    operationId: 'listConnections',
    method: 'get',
    path: '/v1/connections',
    summary: 'List connections',
    description: 'The connections of the key’s project and environment.',
    tag: 'connections',
    scope: 'servers:read',
    query: ExecuteQuery,
    success: 200,
    responses: { 200: json('The connections.', ConnectionList) },
    hop: 'reads',
  },
  deleteConnection: {
    operationId: 'deleteConnection',
    method: 'delete',
    path: '/v1/connections/{id}',
    summary: 'Delete a connection',
    description: 'Deletes a connection and its sealed credentials.',
    tag: 'connections',
    scope: 'connections:write',
    params: z.object({ id: OpaqueId.describe('Connection id.') }),
    notFound: { code: 'connection_not_found', message: 'No connection with this id.' },
    success: 200,
    responses: { 200: json('Deleted.', ConnectionDeleted) },
    hop: 'reads',
  },
  // A browser redirect target: the provider's authorization page sends the
  // user here, and a browser carries no API key. The signed, single-use
  // `state` (HMAC under a server key, bound to the tenant, provider and
  // PKCE verifier that `connect_start` stored) is the whole authentication,
  // so the route takes no credential and needs no scope; anything without a
  // valid state is refused before a code is exchanged.
  oauthCallback: {
    operationId: 'oauthCallback',
    method: 'get',
    path: '/v1/connections/oauth/callback',
    summary: 'OAuth2 authorization callback',
    description:
      'Where a provider’s authorization page sends the user back after `codespar_manage_connections` `connect_start`. Authenticated by the signed, single-use `state` alone (no API key: a browser follows this redirect): the state names the tenant and provider and expires after 15 minutes. The code is exchanged with the flow’s PKCE verifier and the tokens are stored sealed as the connection’s credentials, exactly as `POST /v1/connections` stores them. With a `return_to`, the answer is a 303 to it carrying `status` (`connected` or `failed`), `server_id`, `context_id` and, on failure, `error`; without one, a JSON body or an error.',
    tag: 'connections',
    scope: null,
    query: OAuthCallbackQuery,
    success: 200,
    responses: {
      200: json('Connected.', OAuthCallbackView),
      303: {
        description: 'Back to the flow’s `return_to`, connected or not.',
        headers: { location: 'The `return_to` URL with `status`, `server_id`, `context_id` and, on failure, `error`.' },
      },
    },
    errors: ['oauth_state_invalid', 'oauth_authorization_failed', 'oauth_exchange_failed'],
    hop: 'acts',
  },
  createKey: {
    operationId: 'createKey',
    method: 'post',
    path: '/v1/keys',
    summary: 'Mint a short-lived key',
    description:
      'A child of the calling key in its project and environment, with at most its scopes (never `keys:write`), expiring after `expires_in` seconds (default 1 h, at most 30 days, never after the calling key) and answering 401 from then on. With `session_id` it reaches only that session’s routes (another session is 404 `session_not_found`, any other route 403); with `user_id` it opens sessions only for that end user and sees only their sessions. Revoking the calling key revokes it. Operator keys get 403. Limited per calling key (429 `rate_limited` with `Retry-After`).',
    tag: 'keys',
    scope: 'keys:write',
    body: KeyCreateRequest,
    bodyLimit: 4096,
    success: 201,
    responses: { 201: json('The key (shown once) and its details.', KeyCreated) },
    errors: ['session_not_found', 'rate_limited'],
    hop: 'reads',
  },
  createSession: {
    operationId: 'createSession',
    method: 'post',
    path: '/v1/sessions',
    summary: 'Open a session',
    description: 'Opens a session over 1 to 20 providers in the key’s project and environment.',
    tag: 'sessions',
    scope: 'sessions:create',
    body: SessionCreateRequest,
    success: 201,
    responses: { 201: json('The new session, with its MCP URL.', SessionCreated) },
    errors: ['unknown_servers'],
    hop: 'reads',
  },
  getSession: {
    operationId: 'getSession',
    method: 'get',
    path: '/v1/sessions/{id}',
    summary: 'Read a session',
    description: 'A session of the key’s project and environment; anything else is 404.',
    tag: 'sessions',
    scope: 'sessions:create',
    params: SessionParams,
    notFound: sessionNotFound,
    success: 200,
    responses: { 200: json('The session.', SessionView) },
    hop: 'reads',
  },
  closeSession: {
    operationId: 'closeSession',
    method: 'delete',
    path: '/v1/sessions/{id}',
    summary: 'Close a session',
    description: 'Idempotent: closing again answers the first `closed_at`.',
    tag: 'sessions',
    scope: 'sessions:create',
    params: SessionParams,
    notFound: sessionNotFound,
    success: 200,
    responses: { 200: json('Closed.', SessionClosed) },
    hop: 'reads',
  },
  executeTool: {
    operationId: 'executeTool',
    method: 'post',
    path: '/v1/sessions/{id}/execute',
    summary: 'Run a tool in a session',
    description:
      'Runs a meta-tool, `codespar_list_tools` or a catalog tool (`server/tool`). A tool that fails still answers 200 with `success: false`. A 503 `unavailable` certainly never ran; a 503 `outcome_unknown` may have run.',
    tag: 'sessions',
    scope: 'tools:execute',
    params: SessionParams,
    notFound: sessionNotFound,
    query: ExecuteQuery,
    headers: ExecuteHeaders,
    headersInvalid: 'invalid_idempotency_key',
    body: ExecuteRequest,
    success: 200,
    responses: {
      200: json('The tool’s result, successful or not.', ExecuteResult, {
        'idempotent-replayed':
          '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
        ...RATE_LIMIT_HEADERS,
      }),
      403: json(
        'Refused. A policy rule answers `{reason, ruleType, ruleId}` with no `error` key (plus `approval_id` and `expires_at` when it opened an approval); otherwise the error envelope with `forbidden` or `quota_exceeded` (`plan`, `limit`, `used`). Branch on whether `error` is present.',
        ExecuteForbidden,
      ),
      422: json(
        'A raw catalog tool in a test session that has raw-tool mocks: every mock of the tool is used up (`mocks_exhausted`), or none is for it (`tool_not_mocked`); `tool` names it. Nothing was sent or written. Never for a meta-tool.',
        ErrorEnvelope,
      ),
      503: json(
        `Our side. The error envelope with \`unavailable\` (certainly never ran), \`outcome_unknown\` (may have run) or \`policy_engine_error\`; ${mocksStoreDown} (nothing was sent).`,
        MocksUnavailable,
      ),
    },
    errors: [
      'session_not_active',
      'quota_exceeded',
      'policy_denied',
      'policy_engine_error',
      'mocks_exhausted',
      'tool_not_mocked',
      'mocks_engine_error',
      'idempotency_key_reused',
      'request_in_progress',
    ],
    hop: 'acts',
  },
  proxyExecute: {
    operationId: 'proxyExecute',
    method: 'post',
    path: '/v1/sessions/{id}/proxy',
    summary: 'Raw HTTP to a session’s provider',
    description:
      'Sends one HTTP request to a provider of the session, with its credentials injected server-side, for endpoints no catalog tool covers. The provider’s answer comes back as a 200 whatever its status; Rota’s own refusals have their own statuses and codes. A 503 `unavailable` certainly never ran; a 503 `outcome_unknown` may have reached the provider: retry with the same Idempotency-Key.',
    tag: 'sessions',
    scope: 'tools:execute',
    params: SessionParams,
    notFound: sessionNotFound,
    headers: IdempotencyHeaders,
    headersInvalid: 'invalid_idempotency_key',
    body: ProxyRequest,
    success: 200,
    responses: {
      200: json('The provider’s answer (any status).', ProxyResult, {
        'idempotent-replayed':
          '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
      }),
      403: json(
        'Refused. A policy rule answers `{reason, ruleType, ruleId}` with no `error` key (rules name the proxy `proxy`, with the HTTP method as its action); otherwise the error envelope with `forbidden`. Branch on whether `error` is present.',
        ExecuteForbidden,
      ),
    },
    errors: [
      'session_not_active',
      'policy_denied',
      'policy_engine_error',
      'server_not_in_session',
      'invalid_endpoint',
      'forbidden_header',
      'connection_required',
      'provider_not_callable',
      'upstream_unreachable',
      'idempotency_key_reused',
      'request_in_progress',
    ],
    hop: 'acts',
  },
  createMock: {
    operationId: 'createMock',
    method: 'post',
    path: '/v1/sessions/{id}/mocks',
    summary: 'Mock a tool in a test session',
    description:
      'Defines a fixed answer for a raw catalog tool of a test-environment session, or for an acting meta-tool (`codespar_charge`…): the next `times` executes of that tool answer `success: true` with `response` as `data`, without reaching any provider. Once a session has any raw-tool mock, its raw tools answer only from mocks (422 `mocks_exhausted` when used up, 422 `tool_not_mocked` for a tool without one). An acting meta-tool whose mocks are used up runs on its rails again: a meta-tool never answers 422. `codespar_discover`, `codespar_get_started`, `codespar_manage_connections` and `codespar_list_tools` are never mocked. A live session is 400 `mocks_test_only`.',
    tag: 'sessions',
    scope: 'tools:execute',
    params: SessionParams,
    notFound: sessionNotFound,
    body: MockCreateRequest,
    success: 201,
    responses: {
      201: json('The mock, with its answers left.', MockView),
      503: json(`Our side. The error envelope with \`unavailable\`; ${mocksStoreDown}.`, MocksUnavailable),
    },
    errors: ['mocks_test_only', 'session_not_active', 'mocks_engine_error'],
    hop: 'reads',
  },
  listMocks: {
    operationId: 'listMocks',
    method: 'get',
    path: '/v1/sessions/{id}/mocks',
    summary: 'List a session’s mocks',
    description: 'The mocks of a session in the order they answer (oldest first), each with its answers left.',
    tag: 'sessions',
    scope: 'tools:execute',
    params: SessionParams,
    notFound: sessionNotFound,
    success: 200,
    responses: {
      200: json('The mocks.', MockList),
      503: json(`Our side. The error envelope with \`unavailable\`; ${mocksStoreDown}.`, MocksUnavailable),
    },
    errors: ['mocks_engine_error'],
    hop: 'reads',
  },
  mcpProject: mcpPost(
    'mcpProject',
    '/mcp',
    'MCP over Streamable HTTP, stateless, in the project context: `tools/list` answers the 15 meta-tools; calls run over the providers the project has connected in the key’s environment.',
    false,
  ),
  mcpSession: mcpPost(
    'mcpSession',
    '/v1/sessions/{id}/mcp',
    'MCP over Streamable HTTP, stateless, bound to one session of the key’s project and environment.',
    true,
  ),
  mcpProjectStream: mcpRefused('mcpProjectStream', 'get', '/mcp', false),
  mcpProjectEnd: mcpRefused('mcpProjectEnd', 'delete', '/mcp', false),
  mcpSessionStream: mcpRefused('mcpSessionStream', 'get', '/v1/sessions/{id}/mcp', true),
  mcpSessionEnd: mcpRefused('mcpSessionEnd', 'delete', '/v1/sessions/{id}/mcp', true),
  routeOperation: {
    operationId: 'routeOperation',
    method: 'post',
    path: '/v1/meta-tools/discover',
    summary: 'Path C: pick the provider rail',
    description:
      'For an operation already chosen (`{intent}`) or described in words (`{description}`), picks the provider rail to carry it, with reasons and alternatives.',
    tag: 'router',
    scope: 'servers:read',
    body: MetaToolsDiscoverRequest,
    success: 200,
    responses: { 200: json('The recommended rail and alternatives.', MetaToolsDiscoverResponse) },
    errors: ['intent_unmappable', 'eligibility_empty', 'direction_blocked', 'nl_unavailable', 'nl_extraction_failed'],
    hop: 'reads',
  },
  getRouterMetrics: {
    operationId: 'getRouterMetrics',
    method: 'get',
    path: '/v1/router/metrics',
    summary: 'Router telemetry',
    description:
      'Per provider and tool over the last 24 hours: attempts, success rate, median latency, last error and hourly buckets.',
    tag: 'router',
    scope: 'servers:read',
    query: RouterMetricsQuery,
    success: 200,
    responses: { 200: json('One row per provider and tool.', RouterMetricsResponse) },
    hop: 'reads',
  },
  getPolicy: {
    operationId: 'getPolicy',
    method: 'get',
    path: '/v1/policy',
    summary: 'Read the policy rules',
    description: 'The policy rules of the key’s project and environment, each with its id, in evaluation order.',
    tag: 'governance',
    scope: 'servers:read',
    success: 200,
    responses: { 200: json('The rules.', PolicyView) },
    hop: 'reads',
  },
  putPolicy: {
    operationId: 'putPolicy',
    method: 'put',
    path: '/v1/policy',
    summary: 'Replace the policy rules',
    description:
      'Replaces every rule of the key’s project and environment in one transaction and answers them with their new ids. Rules are read by execute and MCP after argument coercion and before dispatch. An empty list removes every rule.',
    tag: 'governance',
    scope: 'policy:write',
    body: PolicyPutRequest,
    success: 200,
    responses: { 200: json('The stored rules.', PolicyView) },
    hop: 'reads',
  },
  listApprovals: {
    operationId: 'listApprovals',
    method: 'get',
    path: '/v1/approvals',
    summary: 'List approvals',
    description:
      'Approvals of the key’s project and environment, newest first (at most 200). A pending approval past `expires_at` is listed as `expired`.',
    tag: 'governance',
    scope: 'servers:read',
    query: ApprovalsQuery,
    success: 200,
    responses: { 200: json('The approvals.', ApprovalList) },
    hop: 'reads',
  },
  approveApproval: {
    operationId: 'approveApproval',
    method: 'post',
    path: '/v1/approvals/{id}/approve',
    summary: 'Approve a pending approval',
    description:
      'Approves it, recording the deciding key and the time. The key whose call opened it cannot (403 `forbidden`); one already decided, used or expired is 409 `approval_not_pending`. The call is then retried once with `Rota-Approval-Id`.',
    tag: 'governance',
    scope: 'approvals:write',
    params: ApprovalParams,
    notFound: approvalNotFound,
    success: 200,
    responses: { 200: json('The approval, now approved.', ApprovalView) },
    errors: ['approval_not_pending'],
    hop: 'reads',
  },
  denyApproval: {
    operationId: 'denyApproval',
    method: 'post',
    path: '/v1/approvals/{id}/deny',
    summary: 'Deny a pending approval',
    description:
      'Denies it, recording the deciding key and the time; a retry with its id is refused. The same refusals as approving.',
    tag: 'governance',
    scope: 'approvals:write',
    params: ApprovalParams,
    notFound: approvalNotFound,
    success: 200,
    responses: { 200: json('The approval, now denied.', ApprovalView) },
    errors: ['approval_not_pending'],
    hop: 'reads',
  },
  getRateLimits: {
    operationId: 'getRateLimits',
    method: 'get',
    path: '/v1/rate-limits',
    summary: 'Read the rate limits',
    description:
      'The rate limits of the key’s project and environment. None are configured by default, and then nothing is limited.',
    tag: 'governance',
    scope: 'servers:read',
    success: 200,
    responses: { 200: json('The limits.', RateLimitsView) },
    hop: 'reads',
  },
  putRateLimits: {
    operationId: 'putRateLimits',
    method: 'put',
    path: '/v1/rate-limits',
    summary: 'Replace the rate limits',
    description:
      'Replaces the rate limits of the key’s project and environment: per key, per project, per tool or per provider, per second and/or per minute. Counted in Redis, shared by every gateway replica; a call over a limit is 429 `rate_limited` with `Retry-After`, `RateLimit-Policy` and `RateLimit`.',
    tag: 'governance',
    scope: 'policy:write',
    body: RateLimitsPutRequest,
    success: 200,
    responses: { 200: json('The stored limits.', RateLimitsView) },
    hop: 'reads',
  },
  getUsage: {
    operationId: 'getUsage',
    method: 'get',
    path: '/v1/usage',
    summary: 'This month’s usage',
    description:
      'This calendar month’s (UTC) calls of the key’s project and environment by tool, and the org quota’s plan, limit and used (which counts every project of the org).',
    tag: 'governance',
    scope: 'servers:read',
    success: 200,
    responses: { 200: json('Usage.', UsageView) },
    hop: 'reads',
  },
  getMetrics: {
    operationId: 'getMetrics',
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics of this gateway',
    description:
      'The gateway process’s series in the Prometheus text format: HTTP requests by route and status with their latency, service transport latency and errors by pattern, and the Node.js process. For operator keys (`admin`). The services expose their own series on `ROTA_METRICS_PORT`.',
    tag: 'operations',
    scope: 'admin',
    success: 200,
    responses: {
      200: { description: 'Exposition text, version 0.0.4.', schema: z.string(), contentType: 'text/plain' },
    },
    hop: 'none',
  },
  getHealth: {
    operationId: 'getHealth',
    method: 'get',
    path: '/v1/health',
    summary: 'Health rollup',
    description:
      'Evaluates six checks now, each within its own budget: database, credential store, embeddings coverage and FX freshness (deployment-wide), router telemetry activity and provider connections (the key’s project and environment; absent for an operator key). `down` when the database or the credential store fails, `degraded` when another check is off nominal, `healthy` otherwise. Answers 200 whatever the status. A change of a stored status emits `system.health.degraded` or `system.health.recovered`.',
    tag: 'operations',
    scope: 'servers:read',
    operators: true,
    success: 200,
    responses: { 200: json('The checks and their rollup.', HealthReport) },
    hop: 'reads',
  },
  getHealthHistory: {
    operationId: 'getHealthHistory',
    method: 'get',
    path: '/v1/health/history',
    summary: 'Stored health snapshots',
    description:
      'Snapshots newest first: the worker stores one per scope every `ROTA_HEALTH_INTERVAL_S`, and one whenever an evaluation changes a stored status. Deployment-wide snapshots and the key’s project and environment’s own (an operator key sees the deployment-wide ones).',
    tag: 'operations',
    scope: 'servers:read',
    operators: true,
    query: HealthHistoryQuery,
    success: 200,
    responses: { 200: json('One page of snapshots.', HealthHistory) },
    hop: 'reads',
  },
  listFxRates: {
    operationId: 'listFxRates',
    method: 'get',
    path: '/v1/fx/rates',
    summary: 'Exchange rates',
    description: 'Every stored currency pair with its latest rate (decimal text), its source and when it was observed.',
    tag: 'operations',
    scope: 'servers:read',
    operators: true,
    success: 200,
    responses: { 200: json('The rates.', FxRatesList) },
    hop: 'reads',
  },
  importFxRates: {
    operationId: 'importFxRates',
    method: 'post',
    path: '/v1/fx/rates',
    summary: 'Import exchange rates',
    description:
      'Stores rates for offline installs or corrections (`rota fx import <file>`). For operator keys (`admin`). A pair whose stored rate was observed later than the imported one keeps the stored rate.',
    tag: 'operations',
    scope: 'admin',
    body: FxRatesImport,
    success: 200,
    responses: { 200: json('What was written.', FxImportResult) },
    hop: 'reads',
  },
  createWebhook: {
    operationId: 'createWebhook',
    method: 'post',
    path: '/v1/webhooks',
    summary: 'Subscribe a URL to events',
    description:
      'A subscription of the key’s project and environment (an operator key’s receives deployment-wide events) to event names or prefixes (`system.health.*`). Answers the signing secret once; it is stored sealed. Each delivery is a POST signed as Standard Webhooks does (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`), retried with exponential backoff; after the last attempt it is dead and can be replayed. The URL obeys the address rules of provider calls.',
    tag: 'webhooks',
    scope: 'webhooks:write',
    operators: true,
    body: WebhookCreateRequest,
    success: 201,
    responses: { 201: json('The subscription and its secret (shown once).', WebhookCreated) },
    errors: ['webhook_url_refused'],
    hop: 'reads',
  },
  listWebhooks: {
    operationId: 'listWebhooks',
    method: 'get',
    path: '/v1/webhooks',
    summary: 'List webhook subscriptions',
    description:
      'The subscriptions of the key’s project and environment (the deployment’s for an operator key), newest first, without secrets.',
    tag: 'webhooks',
    scope: 'webhooks:write',
    operators: true,
    success: 200,
    responses: { 200: json('The subscriptions.', WebhookList) },
    hop: 'reads',
  },
  deleteWebhook: {
    operationId: 'deleteWebhook',
    method: 'delete',
    path: '/v1/webhooks/{id}',
    summary: 'Delete a webhook subscription',
    description: 'Stops deliveries to it; deliveries not yet sent are dropped.',
    tag: 'webhooks',
    scope: 'webhooks:write',
    operators: true,
    params: WebhookParams,
    notFound: webhookNotFound,
    success: 200,
    responses: { 200: json('Deleted.', WebhookDeleted) },
    hop: 'reads',
  },
  listWebhookDeliveries: {
    operationId: 'listWebhookDeliveries',
    method: 'get',
    path: '/v1/webhooks/{id}/deliveries',
    summary: 'A webhook’s deliveries',
    description:
      'Deliveries newest first, each with every attempt (status code, error, time taken). `status=dead` is the dead-letter list.',
    tag: 'webhooks',
    scope: 'webhooks:write',
    operators: true,
    params: WebhookParams,
    notFound: webhookNotFound,
    query: WebhookDeliveriesQuery,
    success: 200,
    responses: { 200: json('The deliveries.', WebhookDeliveryList) },
    hop: 'reads',
  },
  replayWebhookDelivery: {
    operationId: 'replayWebhookDelivery',
    method: 'post',
    path: '/v1/webhooks/{id}/deliveries/{delivery_id}/replay',
    summary: 'Send a delivery again',
    description:
      'Sends the same event again with the same `webhook-id` (receivers deduplicate on it), a dead delivery included; its attempts start over.',
    tag: 'webhooks',
    scope: 'webhooks:write',
    operators: true,
    params: WebhookDeliveryParams,
    notFound: webhookNotFound,
    success: 202,
    responses: { 202: json('The delivery, queued again.', WebhookDelivery) },
    errors: ['webhook_delivery_not_found'],
    hop: 'reads',
  },
  createDashboardSession: {
    operationId: 'createDashboardSession',
    method: 'post',
    path: '/dashboard/session',
    summary: 'Exchange a key for a dashboard cookie',
    description:
      'Checks the key and answers 204 with `Set-Cookie: rota_dashboard=…; HttpOnly; SameSite=Strict; Path=/dashboard`, valid `ROTA_DASHBOARD_SESSION_S` seconds (15 minutes), or until a short-lived key expires if that comes first. The key itself never travels in a URL and is not kept by the browser; a revoked or expired key’s cookie stops working at once. A key bound to one session or one end user gets 403: the dashboards show the whole project.',
    tag: 'dashboards',
    scope: null,
    body: DashboardSessionRequest,
    success: 204,
    responses: { 204: { description: 'The cookie is set.', headers: { 'set-cookie': 'The dashboard cookie.' } } },
    errors: ['unauthorized', 'forbidden', 'rate_limited'],
    hop: 'none',
  },
  getDashboardData: {
    operationId: 'getDashboardData',
    method: 'get',
    path: '/dashboard/data/{view}',
    summary: 'Data of a dashboard page',
    description:
      'What a page shows, for the cookie’s key: `health` (the rollup, as `GET /v1/health`), `router` (as `GET /v1/router/metrics`), `triggers` (the webhooks with their latest deliveries), `queues` (job counts and failed jobs per queue; operator keys only). Authenticated by the dashboard cookie alone.',
    tag: 'dashboards',
    scope: null,
    params: z.object({ view: z.enum(DASHBOARD_VIEWS) }),
    notFound: { code: 'not_found', message: 'No such dashboard view.' },
    success: 200,
    responses: { 200: json('The view’s data.', z.record(z.string(), z.unknown())) },
    errors: ['unauthorized', 'forbidden'],
    hop: 'reads',
  },
  getDashboardHealth: dashboardPage(
    'getDashboardHealth',
    'health',
    'Health dashboard',
    'The six checks, the connections panel, and a link to the triggers page filtered on `system.health.degraded`.',
  ),
  getDashboardTriggers: dashboardPage(
    'getDashboardTriggers',
    'triggers',
    'Triggers dashboard',
    'Webhook subscriptions and their latest deliveries; `?event=` fills the event filter.',
  ),
  getDashboardRouter: dashboardPage(
    'getDashboardRouter',
    'router',
    'Router dashboard',
    'One row per provider and tool, as `GET /v1/router/metrics`, with a 24-hour latency sparkline.',
  ),
  getDashboardCandidates: dashboardPage(
    'getDashboardCandidates',
    'router-candidates',
    'Router candidates triage',
    'Loads a report of `rota router candidates` from a local file (it never leaves the browser); each candidate is marked claimed, deferred or rejected, kept in localStorage by the report’s checksum, and the claimed ones export as JSON.',
  ),
  getDashboardQueues: dashboardPage(
    'getDashboardQueues',
    'queues',
    'Queue dashboard',
    'Job counts per queue and the latest failed jobs of the worker (operator keys).',
  ),
  listLogs: {
    operationId: 'listLogs',
    method: 'get',
    path: '/v1/logs',
    summary: 'List call records',
    description:
      'Call records of the key’s project and environment, newest first, with cursor paging: execute, proxy and MCP calls that reached dispatch, with the session, user, connection, tool or endpoint, masked parameters, upstream status, latency, bytes, attempts and outcome. Filters combine with AND; `from` is inclusive and `to` exclusive.',
    tag: 'logs',
    scope: 'logs:read',
    query: LogsQuery,
    success: 200,
    responses: { 200: json('One page of call records, newest first.', LogList) },
    hop: 'reads',
  },
  streamLogs: {
    operationId: 'streamLogs',
    method: 'get',
    path: '/v1/logs/stream',
    summary: 'Follow call records live (Server-Sent Events)',
    description:
      'A `text/event-stream` of the key’s project and environment: one `call` event per call that finished (its data is a `LogEntry`), whichever gateway replica or session replica handled it. Each event id is a position in the deployment’s log stream: reconnecting with `Last-Event-ID` resumes right after it, with no gap and no duplicate while that position is within the retention window (`ROTA_LOG_STREAM_MAXLEN` entries); past it, a `gap` event (no id) says what was trimmed, and `GET /v1/logs` fills it. A comment line is sent every `ROTA_SSE_HEARTBEAT_MS` (15 s). A stream ends when its key is revoked or the replica shuts down; reconnect with `Last-Event-ID`.',
    tag: 'logs',
    scope: 'logs:read',
    query: LogStreamQuery,
    headers: z.object({
      'last-event-id': z
        .string()
        .regex(LOG_EVENT_ID)
        .optional()
        .describe('The id of the last event received: the stream resumes right after it.'),
    }),
    headersInvalid: 'invalid_last_event_id',
    success: 200,
    responses: {
      200: {
        description:
          'The stream: `id: <event id>`, `event: call`, `data: <LogEntry as JSON>` per call; `event: gap` with `{after, oldest_id}` when resuming past the retention window; `: heartbeat` comment lines.',
        schema: z.string(),
        contentType: 'text/event-stream',
        headers: { 'cache-control': '`no-cache`: every event is sent once.' },
      },
    },
    // Served by the gateway from Redis, without a service hop; Redis out of reach is 503 `unavailable`.
    errors: ['internal'],
    hop: 'none',
  },
});

export type RouteName = keyof typeof ROUTES;

/**
 * The routes a key bound to one end user (`POST /v1/keys` with `user_id`) may
 * call: the catalog, opening and using its user's sessions, and MCP. Every
 * other route shows or changes the whole project (logs, approvals, policy,
 * usage, webhooks, the project's connections…) and answers it 403.
 */
export const USER_KEY_ROUTES: ReadonlySet<string> = new Set<RouteName>([
  'searchTools',
  'listProviders',
  'listServers',
  'listServerTools',
  'getCatalogStatus',
  'createSession',
  'getSession',
  'closeSession',
  'executeTool',
  'proxyExecute',
  'createMock',
  'listMocks',
  'routeOperation',
  'mcpProject',
  'mcpSession',
  'mcpProjectStream',
  'mcpProjectEnd',
  'mcpSessionStream',
  'mcpSessionEnd',
]);
