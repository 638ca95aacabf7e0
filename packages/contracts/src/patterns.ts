import { z } from 'zod';
import { ToolSearchRequest, ToolSearchResponse } from './tools-search';
import {
  CatalogImportCommand,
  CatalogImportResult,
  CatalogStatus,
  CatalogStatusCommand,
  ProvidersList,
  ProvidersListCommand,
  ServerToolsCommand,
  ServerToolsList,
} from './catalog';
import { DiscoverRequest, DiscoverResult } from './discover';
import { ConnectionDeleteCommand, ConnectionDeleted, ConnectionList, ConnectionListCommand, ConnectionSaveCommand, ConnectionSaved } from './connections';
import { ExecuteCommand, ExecuteReply } from './execute';
import { ProxyCommand, ProxyReply } from './proxy';
import {
  EligibilityRefreshRequest,
  EligibilityRefreshResponse,
  MetaToolsDiscoverRequest,
  MetaToolsDiscoverResponse,
  RouterMetricsQuery,
  RouterMetricsResponse,
  RouterRecordRequest,
  RouterRecordResponse,
} from './path-c';
import { SessionClosed, SessionCreateCommand, SessionRecord, SessionRefCommand } from './sessions';
import {
  ApprovalDecideCommand,
  ApprovalList,
  ApprovalsListCommand,
  ApprovalView,
  PolicyGetCommand,
  PolicyPutCommand,
  PolicyView,
  RateLimitsGetCommand,
  RateLimitsPutCommand,
  RateLimitsView,
  UsageCommand,
  UsageView,
} from './policy';

/** Services reachable over the transport. Each owns the patterns prefixed with its name. */
export const SERVICES = ['search', 'session', 'router', 'worker'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Every service answers `<service>.ping`; readiness and the benchmarks use it. */
export const PingRequest = z.object({}).strict();
export type PingRequest = z.infer<typeof PingRequest>;
export const PingResponse = z.object({ service: z.string(), replica: z.string(), at: z.string() });
export type PingResponse = z.infer<typeof PingResponse>;

/**
 * The message catalog: pattern name → request and response schema.
 * `rpc.send(pattern, payload)` infers both types from here. No payload names
 * the tenant: it travels in the envelope beside the request id, and
 * tenant-scoped handlers read it with `currentTenant()`.
 */
export const PATTERNS = {
  'search.ping': { request: PingRequest, response: PingResponse },
  /** Path A: rank the 15 published meta-tools for a sentence. */
  'search.tools': { request: ToolSearchRequest, response: ToolSearchResponse },
  /** `GET /v1/providers`: providers with filters and paging. */
  'search.catalog.providers': { request: ProvidersListCommand, response: ProvidersList },
  /** `GET /v1/servers/{id}/tools`: one provider's tools visible to the caller (`unknown_server` otherwise). */
  'search.catalog.tools': { request: ServerToolsCommand, response: ServerToolsList },
  /** `GET /v1/catalog/status`: embedding coverage of the current model and queued jobs. */
  'search.catalog.status': { request: CatalogStatusCommand, response: CatalogStatus },
  /** `POST /v1/catalog/import`: upsert a catalog in one transaction and queue a re-embed sweep. */
  'search.catalog.import': { request: CatalogImportCommand, response: CatalogImportResult },
  /** `codespar_discover`: rank catalog tools and native meta-tools for a use case. */
  'search.discover': { request: DiscoverRequest, response: DiscoverResult },
  'session.ping': { request: PingRequest, response: PingResponse },
  /** Open a session over 1..20 providers in the caller's project and environment. */
  'session.create': { request: SessionCreateCommand, response: SessionRecord },
  /** Read a session visible to the caller (`session_not_found` otherwise). */
  'session.get': { request: SessionRefCommand, response: SessionRecord },
  /** Close a session; idempotent, keeps the first `closed_at`. */
  'session.close': { request: SessionRefCommand, response: SessionClosed },
  /** Run one tool in a session, or in the project context of `POST /mcp` (`session_id: null`). */
  'session.execute': { request: ExecuteCommand, response: ExecuteReply },
  /** Raw HTTP to one of a session's providers with the credentials injected (`POST /v1/sessions/{id}/proxy`). */
  'session.proxy': { request: ProxyCommand, response: ProxyReply },
  /** Store (or replace) a provider's credentials for a project and environment. */
  'session.connections.save': { request: ConnectionSaveCommand, response: ConnectionSaved },
  'session.connections.list': { request: ConnectionListCommand, response: ConnectionList },
  'session.connections.delete': { request: ConnectionDeleteCommand, response: ConnectionDeleted },
  /** `GET /v1/policy`: the project's rules in the key's environment. */
  'session.policy.get': { request: PolicyGetCommand, response: PolicyView },
  /** `PUT /v1/policy`: replace them all in one transaction. */
  'session.policy.put': { request: PolicyPutCommand, response: PolicyView },
  'session.approvals.list': { request: ApprovalsListCommand, response: ApprovalList },
  /** Approve or deny a pending approval (`approval_not_pending` otherwise; never by the key that made the call). */
  'session.approvals.decide': { request: ApprovalDecideCommand, response: ApprovalView },
  /** Rate limits are stored here and enforced by the gateway in Redis. */
  'session.ratelimits.get': { request: RateLimitsGetCommand, response: RateLimitsView },
  'session.ratelimits.put': { request: RateLimitsPutCommand, response: RateLimitsView },
  /** `GET /v1/usage`: this month's calls by tool, and the org quota. */
  'session.usage': { request: UsageCommand, response: UsageView },
  'router.ping': { request: PingRequest, response: PingResponse },
  /** Path C: pick the provider rail for an operation (`POST /v1/meta-tools/discover`). */
  'router.route': { request: MetaToolsDiscoverRequest, response: MetaToolsDiscoverResponse },
  /** Telemetry of one routed execution; feeds routing and the metrics route. */
  'router.record': { request: RouterRecordRequest, response: RouterRecordResponse },
  /** Per provider-and-tool counters over the last 24 hours (`GET /v1/router/metrics`). */
  'router.metrics': { request: RouterMetricsQuery, response: RouterMetricsResponse },
  /** Recomputes a project's eligible rails; call it after its connections change. */
  'router.eligibility.refresh': { request: EligibilityRefreshRequest, response: EligibilityRefreshResponse },
  'worker.ping': { request: PingRequest, response: PingResponse },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type PatternName = keyof typeof PATTERNS;
export type RequestOf<P extends PatternName> = z.input<(typeof PATTERNS)[P]['request']>;
export type ResponseOf<P extends PatternName> = z.output<(typeof PATTERNS)[P]['response']>;
