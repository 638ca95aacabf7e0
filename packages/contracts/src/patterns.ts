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
import {
  ConnectionDeleteCommand,
  ConnectionDeleted,
  ConnectionList,
  ConnectionListCommand,
  ConnectionSaveCommand,
  ConnectionSaved,
} from './connections';
import { OAuthCallbackCommand, OAuthCallbackOutcome } from './connect';
import { ExecuteCommand, ExecuteReply } from './execute';
import { ProxyCommand, ProxyReply } from './proxy';
import { CallLookupAnswer, CallLookupCommand, CallsSettledCommand, CallsSettledResult } from './call-lookup';
import { RouterSelectRequest, RouterSelectResponse } from './rails';
import { LogList, LogsListCommand } from './logs';
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
import { MockCreateCommand, MockList, MockListCommand, MockView } from './mocks';
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
import {
  CredentialsCheckCommand,
  CredentialsCheckResult,
  HealthEvaluateCommand,
  HealthHistory,
  HealthHistoryCommand,
  HealthReport,
} from './health';
import { FxImportResult, FxListCommand, FxRatesImport, FxRatesList } from './fx';
import {
  WebhookCreateCommand,
  WebhookCreated,
  WebhookDeleted,
  WebhookDeliveriesCommand,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookList,
  WebhookListCommand,
  WebhookRefCommand,
  WebhookReplayCommand,
  QueuesCommand,
  QueuesView,
} from './webhooks';

/** Services reachable over the transport. Each owns the patterns prefixed with its name. */
export const SERVICES = ['search', 'session', 'router', 'worker'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Every service answers `<service>.ping`; readiness and the benchmarks use it. */
export const PingRequest = z.object({}).strict();
export type PingRequest = z.infer<typeof PingRequest>;
export const PingResponse = z.object({ service: z.string(), replica: z.string(), at: z.string() });
export type PingResponse = z.infer<typeof PingResponse>;

/** `worker.schedulers`: which of the worker's job schedulers Redis does not hold right now. */
export const WorkerSchedulersRequest = z.object({}).strict();
export const WorkerSchedulers = z.object({
  /** Scheduler ids absent from Redis (empty when every one is present). */
  missing: z.array(z.string()),
});
export type WorkerSchedulers = z.infer<typeof WorkerSchedulers>;

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
  /** Define a mock of a raw catalog tool in a test session (`POST /v1/sessions/{id}/mocks`). */
  'session.mocks.create': { request: MockCreateCommand, response: MockView },
  /** A session's mocks with what each has left (`GET /v1/sessions/{id}/mocks`). */
  'session.mocks.list': { request: MockListCommand, response: MockList },
  /** Raw HTTP to one of a session's providers with the credentials injected (`POST /v1/sessions/{id}/proxy`). */
  'session.proxy': { request: ProxyCommand, response: ProxyReply },
  /** Store (or replace) a provider's credentials for a project and environment. */
  'session.connections.save': { request: ConnectionSaveCommand, response: ConnectionSaved },
  'session.connections.list': { request: ConnectionListCommand, response: ConnectionList },
  'session.connections.delete': { request: ConnectionDeleteCommand, response: ConnectionDeleted },
  /** The provider sent the user back from its authorization page: verify the signed state, exchange the code, store the connection. */
  'session.connections.oauth_callback': { request: OAuthCallbackCommand, response: OAuthCallbackOutcome },
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
  /** `GET /v1/logs`: call records of the caller's project and environment, newest first. */
  'session.logs.list': { request: LogsListCommand, response: LogList },
  'router.ping': { request: PingRequest, response: PingResponse },
  /** Path C: pick the provider rail for an operation (`POST /v1/meta-tools/discover`). */
  'router.route': { request: MetaToolsDiscoverRequest, response: MetaToolsDiscoverResponse },
  /** The ranked rails an acting meta-tool call may run on, for the caller's tenant (execute asks on every call). */
  'router.select': { request: RouterSelectRequest, response: RouterSelectResponse },
  /** Telemetry of one routed execution; feeds routing and the metrics route. */
  'router.record': { request: RouterRecordRequest, response: RouterRecordResponse },
  /** Per provider-and-tool counters over the last 24 hours (`GET /v1/router/metrics`). */
  'router.metrics': { request: RouterMetricsQuery, response: RouterMetricsResponse },
  /** Recomputes a project's eligible rails; call it after its connections change. */
  'router.eligibility.refresh': { request: EligibilityRefreshRequest, response: EligibilityRefreshResponse },
  /**
   * The reconcile sweep asks what the provider made of a call left `pending`,
   * by the idempotency key Rota sent (reads only: a GET to the provider).
   */
  'session.calls.lookup': { request: CallLookupCommand, response: CallLookupAnswer },
  /** The reconcile sweep's settled calls, appended to the call log stream by the service that owns its records. */
  'session.calls.settled': { request: CallsSettledCommand, response: CallsSettledResult },
  'worker.ping': { request: PingRequest, response: PingResponse },
  /** Readiness and `GET /v1/catalog/status` ask which job schedulers are missing (a Redis restart without persistence drops them). */
  'worker.schedulers': { request: WorkerSchedulersRequest, response: WorkerSchedulers },
  /** `GET /v1/health`: evaluate the six checks now for the caller's project (deployment-wide only for an operator), and record transitions. */
  'worker.health': { request: HealthEvaluateCommand, response: HealthReport },
  /** `GET /v1/health/history`: stored snapshots, newest first. */
  'worker.health.history': { request: HealthHistoryCommand, response: HealthHistory },
  /** `POST /v1/fx/rates`: store rates (a stored rate observed later is kept). */
  'worker.fx.import': { request: FxRatesImport, response: FxImportResult },
  /** `GET /v1/fx/rates`: every stored pair. */
  'worker.fx.list': { request: FxListCommand, response: FxRatesList },
  /** `POST /v1/webhooks`: a subscription of the caller's project and environment (the deployment's for an operator), with its secret shown once. */
  'worker.webhooks.create': { request: WebhookCreateCommand, response: WebhookCreated },
  'worker.webhooks.list': { request: WebhookListCommand, response: WebhookList },
  'worker.webhooks.delete': { request: WebhookRefCommand, response: WebhookDeleted },
  /** A subscription's deliveries with every attempt, newest first (`status=dead`: the dead-letter list). */
  'worker.webhooks.deliveries': { request: WebhookDeliveriesCommand, response: WebhookDeliveryList },
  /** Sends a delivery again (a dead one included), with the same `webhook-id`. */
  'worker.webhooks.replay': { request: WebhookReplayCommand, response: WebhookDelivery },
  /** The queue dashboard: job counts and the latest failed jobs per queue. */
  'worker.queues': { request: QueuesCommand, response: QueuesView },
  /** The health rollup's credential-store check: seal and open a canary with the session service's keyring. */
  'session.credentials.check': { request: CredentialsCheckCommand, response: CredentialsCheckResult },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type PatternName = keyof typeof PATTERNS;
export type RequestOf<P extends PatternName> = z.input<(typeof PATTERNS)[P]['request']>;
export type ResponseOf<P extends PatternName> = z.output<(typeof PATTERNS)[P]['response']>;
