/** Redis key layout of the service transport, in one place. */
export const transportKeys = (prefix: string) => ({
  /** Request stream of one service; its consumer group carries the service name. */
  stream: (service: string) => `${prefix}:rpc:${service}`,
  /** Pub/sub channel on which one client receives its replies. */
  reply: (clientId: string) => `${prefix}:rpc-reply:${clientId}`,
  /** Liveness key of one consumer; missing means the replica is gone. */
  heartbeat: (service: string, consumer: string) => `${prefix}:rpc-alive:${service}:${consumer}`,
  /**
   * Fate of one entry, claimed with SET NX by whoever acts on it first: the
   * replica that runs it (`started`) or a peer answering for a dead replica
   * (`reaped`). Lives until the entry is answered, or expires a while after
   * its deadline.
   */
  state: (service: string, entryId: string) => `${prefix}:rpc-state:${service}:${entryId}`,
});

/** Field names of a request entry in the stream. Short on purpose: they are written per request. */
export interface StreamRequest {
  /** correlation id, unique per client */
  i: string;
  /** message pattern, e.g. `search.tools` */
  p: string;
  /** JSON payload */
  d: string;
  /** reply channel */
  r: string;
  /** deadline, epoch ms */
  t: string;
  /** request id for logs */
  q: string;
  /** `1` when the pattern acts (see `ACTING_PATTERNS`); absent otherwise */
  a?: string;
  /** tenant as JSON, when the request acts for one */
  n?: string;
  /** W3C `traceparent` of the caller's span, when it has one; entries without it start a new trace */
  c?: string;
  /** W3C `tracestate`, only beside `c` */
  s?: string;
  /** the gateway's public base URL, when the request came through the gateway */
  u?: string;
}

/** What a replica publishes back. */
export interface StreamReply {
  i: string;
  ok?: unknown;
  err?: { code: string; message: string; details?: Record<string, unknown> };
}

export function fieldsToObject(fields: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let k = 0; k + 1 < fields.length; k += 2) out[fields[k]!] = fields[k + 1]!;
  return out;
}

/** The service a pattern belongs to: the part before the first dot. */
export function serviceOf(pattern: string): string {
  const dot = pattern.indexOf('.');
  return dot === -1 ? pattern : pattern.slice(0, dot);
}
