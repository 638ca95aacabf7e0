import { z } from 'zod';

/**
 * The event catalog: every event Rota emits, by name, with its payload
 * schema. Payloads carry ids and the facts a subscriber needs to act, never
 * arguments or credentials. Delivery (webhooks, logs) reads this catalog.
 */
const ApprovalEvent = z.object({
  approval_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  tool: z.string(),
  action: z.string().nullable(),
  user_id: z.string().nullable(),
  rule_id: z.string(),
  at: z.string(),
});

export const EVENTS = {
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
