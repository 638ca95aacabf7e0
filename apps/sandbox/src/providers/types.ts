import type { IncomingHttpHeaders } from 'node:http';

/** What a route answers; the pipeline serialises it (JSON unless `raw`). */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteContext<S> {
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON (or form fields), `undefined` for an empty body. */
  body: unknown;
  headers: IncomingHttpHeaders;
  state: S;
  /** Public address of this prefix, e.g. `http://127.0.0.1:4010/asaas`, for links in answers. */
  baseUrl: string;
  /** Counts a created resource (`charges`, `refunds`, `invoices`…) in the counters. */
  created(resource: string): void;
  /** The answer of the finished request this prefix took under an idempotency key, if any (for lookups by key). */
  idempotentReply(key: string): Reply | undefined;
}

export interface RouteDef<S> {
  /** Stable name used by fault rules and counters; matches the demo catalog's tool name where there is one. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under the prefix with `:param` segments. */
  path: string;
  handle(ctx: RouteContext<S>): Reply;
  /**
   * A key the provider itself treats as idempotent (Focus NFe's `ref`),
   * used when the caller sends no idempotency header.
   */
  naturalKey?(ctx: { query: URLSearchParams; body: unknown }): string | undefined;
}

/** One modelled provider API: its routes, its state and how it words errors. */
export interface ProviderModel<S> {
  /** The idempotency header the real provider reads (lowercase). */
  idempotencyHeader: string;
  createState(): S;
  routes: RouteDef<S>[];
  /** An error body in the provider's own shape. */
  error(status: number, code: string, message: string): Reply;
  /** A refused credential (401) or client certificate (403), worded as the provider words it. */
  unauthorized(status: 401 | 403): Reply;
  /** Status of a repeated idempotency key with a different request (409, or 422 where the provider does that). */
  conflictStatus: number;
  /** Marks a charge paid, as the provider's sandbox dashboard would; false when the id is unknown. */
  markPaid?(state: S, id: string): boolean;
  /** Where an `oauth2` prefix serves its token endpoint, when the provider does not use `/oauth/token` (Banco Inter: `/oauth/v2/token`). */
  oauthTokenPath?: string;
}

// Each route's state type differs; the registry holds them without it.
export type AnyProviderModel = ProviderModel<any>;

/** Money in reais as the providers print it. */
export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function today(offsetDays = 0): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}
