import { z } from 'zod';
import { ServerIdInput } from './sessions';

/**
 * `proxyExecute`: raw HTTP to a session's provider, with the credentials
 * injected server-side, for endpoints no catalog tool covers yet.
 */

/** Largest proxy request body, as JSON. */
export const PROXY_MAX_BODY_BYTES = 512 * 1024;

/** `POST /v1/sessions/{id}/proxy` body. */
export const ProxyRequest = z
  .object({
    server: ServerIdInput,
    /** A path relative to the provider's base URL for the session's environment, optionally with a query. */
    endpoint: z.string().min(1).max(2000),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    /** JSON body; ignored for GET. */
    body: z.unknown().optional(),
    /** Query string parameters. */
    params: z.record(z.string().min(1).max(200), z.union([z.string().max(4000), z.number(), z.boolean()])).optional(),
    /** Request metadata headers; never credentials (`forbidden_header`). */
    headers: z.record(z.string().min(1).max(100), z.string().max(4000)).optional(),
  })
  .strict();
export type ProxyRequest = z.infer<typeof ProxyRequest>;

/** 200 body: the provider's answer, whatever its status. */
export const ProxyResult = z.object({
  /** The provider's HTTP status: a proxied 401 is a successful proxy call that returned 401. */
  status: z.number().int(),
  /** Parsed JSON, or the text when the provider did not answer JSON. */
  data: z.unknown(),
  /** Response headers, names lowercased. */
  headers: z.record(z.string(), z.string()),
  /** Upstream duration in milliseconds. */
  duration: z.number(),
  /** The call row, for the logs. */
  proxy_call_id: z.string(),
  /**
   * Present on a replay of a call whose outcome was unknown and was settled
   * later by asking the provider: `data` is what the provider holds now.
   */
  reconciled: z.literal(true).optional(),
});
export type ProxyResult = z.infer<typeof ProxyResult>;

/** `session.proxy` payload. */
export const ProxyCommand = z
  .object({
    session_id: z.string().min(1).max(200),
    request: ProxyRequest,
    idempotency_key: z.string().optional(),
    /** The calling key's id, for the policy decision record. */
    key_id: z.string().max(200).optional(),
  })
  .strict();
export type ProxyCommand = z.infer<typeof ProxyCommand>;

/** `session.proxy` answer; `replayed` as for execute. */
export const ProxyReply = z.object({ result: ProxyResult, replayed: z.boolean() });
export type ProxyReply = z.infer<typeof ProxyReply>;
