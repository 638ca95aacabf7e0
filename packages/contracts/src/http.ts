import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from './errors';
import type { Scope } from './scopes';

/**
 * What every HTTP route is made of. One `RouteDef` per route drives the
 * gateway (method, path, authentication, validation, body limit) and the
 * OpenAPI document, so the two cannot drift apart.
 */

/** The standard refusal body: `{error, message, request_id}` plus route-specific fields. */
export const ErrorEnvelope = z
  .object({
    error: z
      .enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])
      .describe('Machine-readable code; its HTTP status is fixed per code.'),
    message: z.string().describe('Readable explanation.'),
    request_id: z.string().describe('Echo of X-Request-Id, or the id the gateway minted.'),
    issues: z
      .array(
        z
          .object({
            path: z
              .union([z.array(z.union([z.string(), z.number()])), z.string()])
              .describe('Where: segments of the JSON path, or a dotted path for catalog documents.'),
            message: z.string(),
          })
          .catchall(z.unknown()),
      )
      .optional()
      .describe('Validation failures (invalid_body, invalid_query).'),
  })
  .catchall(z.unknown())
  .meta({ id: 'ErrorEnvelope', description: 'The standard refusal body.' });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** The raw body of every 401: nothing else, so a caller without a key learns nothing. */
export const Unauthorized = z
  .object({ error: z.literal('unauthorized') })
  .strict()
  .meta({ id: 'Unauthorized', description: 'Missing, malformed, unknown or revoked API key.' });

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** OpenAPI tags, in the order the document lists them. */
export const ROUTE_TAGS = {
  health: 'Liveness and readiness, without a credential.',
  tools: 'Path A: the 15 published meta-tools and their ranking for a sentence.',
  catalog: 'The provider catalog: providers, their tools, embedding status and imports.',
  connections: 'Provider credentials of a project and environment, sealed at rest.',
  keys: 'Short-lived child keys, minted by a key that carries `keys:write`.',
  sessions: 'Sessions, execute and the MCP endpoints.',
  router: 'Path C: the provider rail for an operation, and router telemetry.',
  governance: 'Policy rules, approvals, rate limits and usage of a project and environment.',
  operations: 'Prometheus metrics, the health rollup and its history, and exchange rates.',
  logs: 'Call records of a project and environment, listed and streamed live.',
  webhooks: 'Webhook subscriptions to events, their deliveries, the dead-letter list and replays.',
  dashboards:
    'Browser pages: health, triggers, router metrics, router candidates and queues, behind a short-lived cookie.',
  docs: 'This document and its readable page.',
} as const;
export type RouteTag = keyof typeof ROUTE_TAGS;

/** A documented answer that is not an error envelope. */
export interface RouteResponse {
  description: string;
  /** Body schema; absent for an empty body. */
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
  /** Response headers worth documenting (name → description). */
  headers?: Record<string, string>;
}

/**
 * How the service hop behaves on a timeout or a lost replica. `reads`: the
 * answer is 503 `unavailable` or 504 `upstream_timeout`. `acts`: the route
 * may have effects a client must not repeat blindly, so anything after the
 * request may have started is 503 `outcome_unknown`, never a plain timeout.
 */
export type HopKind = 'none' | 'reads' | 'acts';

export interface RouteDef {
  /** Unique, camelCase; the handler carries the same name in `@Route(ROUTES.<operationId>)`. */
  operationId: string;
  method: HttpMethod;
  /** OpenAPI form, with `{name}` path parameters. */
  path: string;
  summary: string;
  description: string;
  tag: RouteTag;
  /** `null`: no credential. A scope: a key carrying it. */
  scope: Scope | null;
  /**
   * Whether operator keys (no project; see `OPERATOR_SCOPES`) may call the
   * route. By default a route acts for a project and refuses them 403
   * `forbidden`; a route whose scope is `admin` is for operators anyway.
   */
  operators?: boolean;
  deprecated?: boolean;
  /** Path parameters. A value that fails is answered `notFound` (an id that cannot exist names nothing). */
  params?: z.ZodObject;
  notFound?: { code: ErrorCode; message: string };
  /** Query string; unknown names are refused when the schema is strict. */
  query?: z.ZodObject;
  /** Request headers the route reads (lowercase names); a value that fails is `headersInvalid`. */
  headers?: z.ZodObject;
  headersInvalid?: ErrorCode;
  /** JSON body. */
  body?: z.ZodType;
  /** Who validates the body: the gateway (default) or the handler (MCP's JSON-RPC, which answers in its own format). */
  bodyValidation?: 'gateway' | 'handler';
  /** Largest body accepted, in bytes, when it differs from the gateway default (1 MiB). */
  bodyLimit?: number;
  /**
   * Parse and check the JSON body on a worker thread, and hand the handler
   * the text with the facts it needs instead of the object (implies
   * `bodyValidation: 'handler'`). For routes that accept bodies large enough
   * to hold the gateway's event loop for seconds, and only forward them.
   */
  bodyOffThread?: boolean;
  /** The status a successful call answers (the handler's default status). */
  success: number;
  /** Every non-error answer, the success status included (plus 304, 405 on MCP, 200 on replace…). */
  responses: Record<number, RouteResponse>;
  /** Route-specific error codes, beyond those implied by scope, body, query and the hop. */
  errors?: ErrorCode[];
  /** Whether the route calls a service over the transport, and how a lost answer is reported. */
  hop: HopKind;
}

/**
 * Every error code a route can answer: the ones its own definition names,
 * plus those implied by what it accepts and whether it hops to a service.
 */
export function routeErrorCodes(route: RouteDef): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors ?? []);
  if (route.scope) {
    codes.add('unauthorized');
    codes.add('forbidden');
    // Too many failed authentications from the caller's address.
    codes.add('rate_limited');
  }
  if (route.body) {
    codes.add('payload_too_large');
    codes.add('unsupported_media_type');
    if ((route.bodyValidation ?? 'gateway') === 'gateway') codes.add('invalid_body');
  } else if (route.method !== 'get') {
    // A body the route does not take (a DELETE with one) is still read first:
    // anything but JSON is refused, and so is one over the size limit.
    codes.add('payload_too_large');
    codes.add('unsupported_media_type');
  }
  // The router reads at most 100 characters per path parameter.
  if (route.params) codes.add('uri_too_long');
  if (route.query) codes.add('invalid_query');
  if (route.headers) codes.add(route.headersInvalid ?? 'invalid_body');
  if (route.notFound) codes.add(route.notFound.code);
  // Any URL carrying a NUL character is refused before routing decisions.
  codes.add('invalid_query');
  // The HTTP server refuses an oversized header section before any route runs,
  // and a gateway that is shutting down answers every request 503.
  codes.add('headers_too_large');
  codes.add('unavailable');
  if (route.hop !== 'none') {
    codes.add('unavailable');
    codes.add('internal');
    codes.add(route.hop === 'acts' ? 'outcome_unknown' : 'upstream_timeout');
  }
  return [...codes];
}

/** `routeErrorCodes` grouped by HTTP status. */
export function routeErrorStatuses(route: RouteDef): Map<number, ErrorCode[]> {
  const out = new Map<number, ErrorCode[]>();
  for (const code of routeErrorCodes(route)) {
    const status = ERROR_STATUS[code];
    out.set(status, [...(out.get(status) ?? []), code]);
  }
  return new Map([...out.entries()].sort(([a], [b]) => a - b));
}

/** What a handler receives once the gateway has validated a request against its route. */
export interface RouteInput<R extends RouteDef> {
  params: R['params'] extends z.ZodType ? z.output<R['params']> : Record<string, never>;
  query: R['query'] extends z.ZodType ? z.output<R['query']> : Record<string, never>;
  headers: R['headers'] extends z.ZodType ? z.output<R['headers']> : Record<string, never>;
  body: R['body'] extends z.ZodType ? z.output<R['body']> : undefined;
}

/** Keeps each definition's literal types (so `RouteInput` can infer them) while checking its shape. */
export function defineRoutes<const T extends Record<string, RouteDef>>(routes: {
  [K in keyof T]: T[K] & { operationId: K };
}): T {
  return routes as T;
}
