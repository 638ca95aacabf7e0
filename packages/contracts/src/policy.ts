import { z } from 'zod';
import { Environment } from './tenant';

/**
 * Governance: policy rules, approvals, rate limits and usage of a project and
 * environment. Rules are read by the execute pipeline after argument
 * coercion and before dispatch; rate limits by the gateway before a call is
 * forwarded.
 */

/** ISO 4217 code (or a coin code such as USDC): 3 to 5 capital letters. */
const Currency = z
  .string()
  .regex(/^[A-Z]{3,5}$/)
  .describe('ISO 4217 code such as BRL, or a coin code such as USDC.');
/** An amount in the currency's minor units (cents for BRL), as a non-negative integer. */
const Minor = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const ToolName = z.string().min(1).max(200).describe('A meta-tool name, or a catalog tool as `server/tool`.');
const ToolList = z.array(ToolName).min(1).max(200);
const ActionList = z
  .array(z.string().min(1).max(100))
  .min(1)
  .max(50)
  .optional()
  .describe('Restrict the rule to these `action` values of the tools; every action when absent.');

const MAX_AMOUNT = { type: z.literal('max_amount'), tool: ToolName, currency: Currency, max_minor: Minor };
const DENY_TOOLS = { type: z.literal('deny_tools'), tools: ToolList, actions: ActionList };
const ALLOW_TOOLS = { type: z.literal('allow_tools'), tools: ToolList, actions: ActionList };
const ALLOW_PROVIDERS = {
  type: z.literal('allow_providers'),
  providers: z.array(z.string().min(1).max(100)).min(1).max(200),
};
const APPROVAL_ABOVE = {
  type: z.literal('approval_above'),
  tool: ToolName,
  currency: Currency,
  above_minor: Minor,
  ttl_seconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600),
};
const USER_DAILY_LIMIT = { type: z.literal('user_daily_limit'), tool: ToolName, currency: Currency, max_minor: Minor };

/** The rule union, with `extra` fields on every member (the stored form adds `id`). */
function ruleUnion<E extends z.ZodRawShape>(extra: E) {
  return z.discriminatedUnion('type', [
    z
      .object({ ...MAX_AMOUNT, ...extra })
      .strict()
      .describe('Refuse a call of `tool` above `max_minor` in `currency`.'),
    z
      .object({ ...DENY_TOOLS, ...extra })
      .strict()
      .describe('Refuse these tools (or only these actions of them).'),
    z
      .object({ ...ALLOW_TOOLS, ...extra })
      .strict()
      .describe('Once any allow rule exists, only the tools (and actions) allow rules name may run.'),
    z
      .object({ ...ALLOW_PROVIDERS, ...extra })
      .strict()
      .describe('The rails the router may pick; a raw catalog tool of another provider is refused.'),
    z
      .object({ ...APPROVAL_ABOVE, ...extra })
      .strict()
      .describe('A call of `tool` above `above_minor` needs an approval, valid `ttl_seconds` after it is requested.'),
    z
      .object({ ...USER_DAILY_LIMIT, ...extra })
      .strict()
      .describe(
        'Per session `user_id`, at most `max_minor` per UTC day for `tool`, counting calls still pending or of unknown outcome.',
      ),
  ]);
}

/** The rules a project may set, each `{type, ...}`. */
export const PolicyRuleInput = ruleUnion({}).meta({ id: 'PolicyRuleInput' });
export type PolicyRuleInput = z.infer<typeof PolicyRuleInput>;
export type PolicyRuleType = PolicyRuleInput['type'];
export const POLICY_RULE_TYPES = [
  'max_amount',
  'deny_tools',
  'allow_tools',
  'allow_providers',
  'approval_above',
  'user_daily_limit',
] as const satisfies readonly PolicyRuleType[];

/** A stored rule: the input plus its id (`pr_…`). */
export const PolicyRule = ruleUnion({ id: z.string() }).meta({ id: 'PolicyRule' });
export type PolicyRule = PolicyRuleInput & { id: string };

/** `PUT /v1/policy` body: replaces every rule of the key's project and environment. */
export const PolicyPutRequest = z.object({ rules: z.array(PolicyRuleInput).max(500) }).strict();
export type PolicyPutRequest = z.infer<typeof PolicyPutRequest>;

/** `GET` and `PUT /v1/policy` answer. */
export const PolicyView = z
  .object({ environment: Environment, rules: z.array(PolicyRule), updated_at: z.string().nullable() })
  .meta({ id: 'PolicyView' });
export type PolicyView = z.infer<typeof PolicyView>;

/**
 * The 403 body of a policy refusal. It has no `error` key at all: that is
 * how clients tell it from `quota_exceeded`.
 */
export const PolicyRefusal = z
  .object({
    reason: z.string().describe('Readable explanation.'),
    ruleType: z.enum(POLICY_RULE_TYPES).describe('The type of the rule that refused the call.'),
    ruleId: z.string().describe('The id of the rule that refused the call.'),
    approval_id: z
      .string()
      .optional()
      .describe('Present when the refusal opened an approval: retry with `Rota-Approval-Id` once it is approved.'),
    expires_at: z.string().optional().describe('When the opened approval expires.'),
  })
  .strict()
  .meta({ id: 'PolicyRefusal', description: 'A policy rule refused the call (no `error` key).' });
export type PolicyRefusal = z.infer<typeof PolicyRefusal>;

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'used', 'expired'] as const;
export const ApprovalStatus = z.enum(APPROVAL_STATUSES);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

/** One approval, as listed and as decided. */
export const ApprovalView = z
  .object({
    id: z.string(),
    status: ApprovalStatus,
    tool: z.string(),
    action: z.string().nullable(),
    user_id: z.string().nullable(),
    session_id: z.string().nullable(),
    amount_minor: z.number().int().nullable(),
    currency: z.string().nullable(),
    rule_id: z.string(),
    requested_by_key: z.string().describe('Id of the key whose call opened it; that key cannot decide it.'),
    requested_at: z.string(),
    expires_at: z.string(),
    decided_by_key: z.string().nullable(),
    decided_at: z.string().nullable(),
    used_at: z.string().nullable(),
  })
  .meta({ id: 'Approval' });
export type ApprovalView = z.infer<typeof ApprovalView>;

export const ApprovalsQuery = z
  .object({ status: ApprovalStatus.optional().describe('Only approvals in this state.') })
  .strict();
export type ApprovalsQuery = z.infer<typeof ApprovalsQuery>;
export const ApprovalList = z.object({ approvals: z.array(ApprovalView) }).meta({ id: 'ApprovalList' });
export type ApprovalList = z.infer<typeof ApprovalList>;

export const ApprovalDecision = z.enum(['approve', 'deny']);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;
/** `session.approvals.decide` payload; `key_id` is the deciding key, from the gateway. */
export const ApprovalDecideCommand = z
  .object({ id: z.string().min(1).max(200), decision: ApprovalDecision, key_id: z.string().min(1) })
  .strict();
export type ApprovalDecideCommand = z.infer<typeof ApprovalDecideCommand>;

/** One rate limit: per key, per project, per tool or per provider (`target` names the tool or provider; absent: each of them). */
export const RateLimitRule = z
  .object({
    scope: z.enum(['key', 'project', 'tool', 'provider']),
    target: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        'The tool (`server/tool` or a meta-tool) or provider id; absent: every tool or provider, each counted on its own.',
      ),
    per_second: z.number().int().min(1).max(100_000).optional(),
    per_minute: z.number().int().min(1).max(6_000_000).optional(),
  })
  .strict()
  .refine((r) => r.per_second !== undefined || r.per_minute !== undefined, 'Set per_second, per_minute or both.')
  .refine(
    (r) => r.target === undefined || r.scope === 'tool' || r.scope === 'provider',
    'Only tool and provider limits name a target.',
  )
  .meta({ id: 'RateLimitRule' });
export type RateLimitRule = z.infer<typeof RateLimitRule>;

export const RateLimitsPutRequest = z.object({ limits: z.array(RateLimitRule).max(100) }).strict();
export type RateLimitsPutRequest = z.infer<typeof RateLimitsPutRequest>;
export const RateLimitsView = z
  .object({ environment: Environment, limits: z.array(RateLimitRule), algorithm: z.string() })
  .meta({ id: 'RateLimits' });
export type RateLimitsView = z.infer<typeof RateLimitsView>;

/** `GET /v1/usage`: this month's calls of the key's project and environment, and the org quota. */
export const UsageView = z
  .object({
    period: z.object({ from: z.string(), to: z.string() }).describe('The calendar month (UTC) counted.'),
    environment: Environment,
    calls: z
      .array(z.object({ tool: z.string(), calls: z.number().int() }))
      .describe('This project and environment, by tool.'),
    total: z.number().int(),
    quota: z
      .object({ plan: z.string(), limit: z.number().int(), used: z.number().int(), enforced: z.boolean() })
      .describe('The org quota: what it counts is every project of the org.'),
  })
  .meta({ id: 'Usage' });
export type UsageView = z.infer<typeof UsageView>;

/** Transport payloads. The tenant travels in the envelope, never here. */
export const PolicyGetCommand = z.object({}).strict();
export const PolicyPutCommand = z.object({ body: PolicyPutRequest }).strict();
export const ApprovalsListCommand = z.object({ query: ApprovalsQuery }).strict();
export const RateLimitsGetCommand = z.object({}).strict();
export const RateLimitsPutCommand = z.object({ body: RateLimitsPutRequest }).strict();
export const UsageCommand = z.object({}).strict();
export type PolicyPutCommand = z.infer<typeof PolicyPutCommand>;
export type ApprovalsListCommand = z.infer<typeof ApprovalsListCommand>;
export type RateLimitsPutCommand = z.infer<typeof RateLimitsPutCommand>;
