import { createHash } from 'node:crypto';
import type { Tenant } from '@rota/contracts';

/**
 * The Redis key that says a tenant's idempotency key is taken. The session
 * service sets it when it claims a key and deletes it when it gives the key
 * back; the gateway reads it before rate limits, so a repeat of a taken key
 * (a replay, a `request_in_progress`) counts toward no limit. It is a hint
 * for counting only, never the record of the key (that row is in Postgres).
 * Hashed: the caller's key, which may carry an order number or worse, never
 * sits in Redis as it is.
 */
export function idempotencyMarkerKey(prefix: string, tenant: Tenant, key: string): string {
  const digest = createHash('sha256')
    .update(`rota-idempotency-marker\n${tenant.org_id}\n${tenant.project_id}\n${tenant.environment}\n${key}`)
    .digest('base64url');
  return `${prefix}:idem:${digest}`;
}
