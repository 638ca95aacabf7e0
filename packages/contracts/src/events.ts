import { z } from 'zod';
import { HealthScope, HealthStatus } from './health';
import { Environment } from './tenant';

/**
 * The event catalog: every event Rota emits, by name, with its payload
 * schema. Payloads carry ids and the facts a subscriber needs to act, never
 * arguments or credentials. Delivery (webhooks, logs) reads this catalog.
 */
const ApprovalEvent = z.object({
  approval_id: z.string(),
  project_id: z.string(),
  environment: Environment,
  tool: z.string(),
  action: z.string().nullable(),
  user_id: z.string().nullable(),
  rule_id: z.string(),
  at: z.string(),
});

/**
 * A change of a scope's stored health status. Deployment-wide ones carry no
 * org or project and go to operator subscriptions; per-project ones go to that
 * project's subscribers. Emitted exactly once per change, whatever the number
 * of worker replicas (compare-and-set on the stored status).
 */
const HealthEvent = z.object({
  scope: HealthScope,
  org_id: z.string().nullable(),
  project_id: z.string().nullable(),
  environment: Environment.nullable(),
  status: HealthStatus,
  previous_status: HealthStatus.nullable().describe('Null on the first evaluation of the scope.'),
  /** The checks of the scope that are off nominal, with their status. */
  checks: z.array(z.object({ name: z.string(), status: z.string(), message: z.string().optional() })),
  at: z.string(),
});

export const EVENTS = {
  /** A scope's health went from `healthy` (or from nothing) to `degraded` or `down`, or between those two. */
  'system.health.degraded': HealthEvent,
  /** A scope's health is `healthy` again. */
  'system.health.recovered': HealthEvent,
  /** A call through the router ended unsuccessfully (an upstream error, no answer, or an unknown outcome). */
  'call.failed': z.object({
    call_id: z.string(),
    session_id: z.string().nullable(),
    org_id: z.string().nullable(),
    project_id: z.string(),
    environment: Environment,
    tool: z.string(),
    server: z.string().nullable(),
    outcome: z.string(),
    upstream_status: z.number().int().nullable(),
    at: z.string(),
  }),
  /** A policy refusal opened an approval; `expires_at` says until when it can be decided. */
  'approval.requested': ApprovalEvent.extend({ expires_at: z.string(), requested_by_key: z.string() }),
  /** A key other than the caller's approved it: the call may be retried once with `Rota-Approval-Id`. */
  'approval.approved': ApprovalEvent.extend({ decided_by_key: z.string() }),
  /** It was denied: a retry with its id is refused. */
  'approval.denied': ApprovalEvent.extend({ decided_by_key: z.string() }),
  /** Nobody decided it (or nobody used it) before `expires_at`. */
  'approval.expired': ApprovalEvent,
} as const satisfies Record<string, z.ZodType>;

export type EventName = keyof typeof EVENTS;
export type EventPayload<E extends EventName> = z.infer<(typeof EVENTS)[E]>;
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];
