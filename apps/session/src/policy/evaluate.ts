import { LIST_TOOLS_TOOL, type PolicyRule, type PolicyRuleType } from '@rota/contracts';
import { callAmount, type CallAmount } from './amounts';

/** Provider categories whose non-GET calls can move money. */
export const MONEY_CATEGORIES: ReadonlySet<string> = new Set(['payments', 'banking', 'crypto']);

const AMOUNT_RULES: ReadonlySet<PolicyRuleType> = new Set(['max_amount', 'approval_above', 'user_daily_limit']);

/** What the rules read about one call, after argument coercion. */
export interface PolicyCall {
  tool: string;
  /** `args.action` of a meta-tool; null for tools without actions. */
  action: string | null;
  args: Record<string, unknown>;
  /**
   * A raw call to a provider (a catalog tool, or the proxy) with what the
   * catalog says about it; null for meta-tools and built-ins.
   */
  raw: {
    provider: string;
    category: string | null;
    method: string | null;
    /**
     * Whether the provider can move money as the catalog declares it; null or
     * absent: by its category. A project's own provider is declared money-moving
     * unless an operator said otherwise (the repository reads it so).
     */
    movesMoney?: boolean | null;
  } | null;
  userId: string | null;
}

/**
 * The name rules use for `proxyExecute`, which calls no tool: `deny_tools`
 * and `allow_tools` name it as `proxy`, with the HTTP method as its action
 * (`{type: "deny_tools", tools: ["proxy"], actions: ["POST", "DELETE"]}`).
 */
export const PROXY_TOOL = 'proxy';

/** A proxy call as the rules read it: the provider is its one rail, the method its action. */
export function proxyCall(a: {
  provider: string;
  category: string | null;
  movesMoney?: boolean | null;
  method: string;
  endpoint: string;
  userId: string | null;
}): PolicyCall {
  const method = a.method.toUpperCase();
  return {
    tool: PROXY_TOOL,
    action: method,
    args: { method, endpoint: a.endpoint },
    raw: { provider: a.provider, category: a.category, movesMoney: a.movesMoney ?? null, method },
    userId: a.userId,
  };
}

/** Whether a raw call's provider can move money: as declared, else by its category. */
export function movesMoney(raw: NonNullable<PolicyCall['raw']>): boolean {
  if (raw.movesMoney !== undefined && raw.movesMoney !== null) return raw.movesMoney;
  return raw.category !== null && MONEY_CATEGORIES.has(raw.category);
}

type Rule<T extends PolicyRuleType> = Extract<PolicyRule, { type: T }>;

/** A per-user daily amount to reserve before dispatch. */
export interface DailyReservation {
  rule: Rule<'user_daily_limit'>;
  minor: bigint;
}

export type Verdict =
  | { kind: 'deny'; rule: PolicyRule; reason: string }
  | {
      kind: 'pass';
      amount: CallAmount;
      /** The approval_above rule the amount crossed: the call needs an approval. */
      approval: Rule<'approval_above'> | null;
      daily: DailyReservation[];
      /** The rails the router may pick (all of `allow_providers`), or null for no restriction. */
      allowedProviders: string[] | null;
    };

const deny = (rule: PolicyRule, reason: string): Verdict => ({ kind: 'deny', rule, reason });

function names(rule: Rule<'allow_tools'> | Rule<'deny_tools'>, call: PolicyCall): boolean {
  if (!rule.tools.includes(call.tool)) return false;
  return rule.actions === undefined || (call.action !== null && rule.actions.includes(call.action));
}

/**
 * Evaluates a project's rules for one call, in a fixed order: tool denials,
 * tool allow-lists, provider allow-lists, the raw money guard, then the
 * amount rules (currency coverage, maximum, approval, per-user day). The
 * first refusal wins. Pure: reservations and approvals are the caller's to
 * take, so this runs in microseconds and is tested without a database.
 */
export function evaluate(rules: readonly PolicyRule[], call: PolicyCall): Verdict {
  const of = <T extends PolicyRuleType>(type: T) => rules.filter((r): r is Rule<T> => r.type === type);

  for (const rule of of('deny_tools')) {
    if (names(rule, call)) return deny(rule, `${call.tool}${call.action ? ` ${call.action}` : ''} is denied by policy.`);
  }

  // The built-in listing reads nothing but the catalog: an allow-list never hides the tools themselves.
  const allow = of('allow_tools');
  if (allow.length > 0 && call.tool !== LIST_TOOLS_TOOL && !allow.some((r) => names(r, call))) {
    return deny(allow[0]!, `${call.tool}${call.action ? ` ${call.action}` : ''} is not among the tools policy allows.`);
  }

  const providerRules = of('allow_providers');
  const allowedProviders = providerRules.length > 0 ? [...new Set(providerRules.flatMap((r) => r.providers))] : null;
  // A raw call has exactly one rail: its provider. A meta-tool's rails are filtered when the router picks one.
  if (call.raw && allowedProviders && !allowedProviders.includes(call.raw.provider)) {
    return deny(providerRules[0]!, `${call.raw.provider} is not among the providers policy allows.`);
  }

  const amountRules = rules.filter((r) => AMOUNT_RULES.has(r.type)) as Array<Rule<'max_amount'> | Rule<'approval_above'> | Rule<'user_daily_limit'>>;
  // A raw call's amount cannot be read from a schema the engine does not
  // know: a money provider's non-GET call passes amount rules only when an
  // allow rule names the tool itself.
  if (call.raw && amountRules.length > 0 && movesMoney(call.raw) && (call.raw.method ?? 'POST').toUpperCase() !== 'GET') {
    if (!allow.some((r) => r.tools.includes(call.tool))) {
      return deny(
        amountRules[0]!,
        `${call.tool} can move money through ${call.raw.provider} and amount rules apply; name it in an allow_tools rule to let it run.`,
      );
    }
  }

  const mine = amountRules.filter((r) => r.tool === call.tool);
  const amount = mine.length > 0 ? callAmount(call.tool, call.args) : ({ kind: 'none' } as const);
  const pass = (approval: Rule<'approval_above'> | null, daily: DailyReservation[]): Verdict => ({ kind: 'pass', amount, approval, daily, allowedProviders });
  if (amount.kind === 'none') return pass(null, []);
  if (amount.kind === 'invalid') return deny(mine[0]!, amount.reason);

  const same = mine.filter((r) => r.currency === amount.currency);
  if (same.length === 0) return deny(mine[0]!, `${call.tool} has amount rules and none covers ${amount.currency}.`);

  for (const rule of same) {
    if (rule.type === 'max_amount' && amount.minor > BigInt(rule.max_minor)) {
      return deny(rule, `${amount.minor} ${amount.currency} minor units is above the maximum of ${rule.max_minor} per call.`);
    }
  }
  const daily: DailyReservation[] = [];
  for (const rule of same) {
    if (rule.type !== 'user_daily_limit') continue;
    if (call.userId === null) return deny(rule, `A per-user daily limit applies to ${call.tool}: open the session with a user_id.`);
    if (amount.minor > BigInt(rule.max_minor))
      return deny(rule, `${amount.minor} ${amount.currency} minor units is above the user's daily limit of ${rule.max_minor}.`);
    daily.push({ rule, minor: amount.minor });
  }
  const approval = same.find((r): r is Rule<'approval_above'> => r.type === 'approval_above' && amount.minor > BigInt(r.above_minor)) ?? null;
  return pass(approval, daily);
}
