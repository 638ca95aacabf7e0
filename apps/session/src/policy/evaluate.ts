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

type AmountRule = Rule<'max_amount'> | Rule<'approval_above'> | Rule<'user_daily_limit'>;

/** One evaluation in progress: the call, every rule, and what the rules evaluated so far left for the verdict. */
interface Evaluation {
  call: PolicyCall;
  rules: readonly PolicyRule[];
  allowedProviders: string[] | null;
  /** The call's amount, once the amount rules are reached. */
  amount: CallAmount;
  /** The amount rules of this tool in the call's currency. */
  same: AmountRule[];
  approval: Rule<'approval_above'> | null;
  daily: DailyReservation[];
}

/** Enforces every rule of one type for a call: a refusal, or null to go on (having noted what the verdict needs). */
export type RuleEvaluator<T extends PolicyRuleType> = (rules: Array<Rule<T>>, e: Evaluation) => Verdict | null;

/** One evaluator per rule type, for any set of types: a type without one does not compile. */
export type RuleEvaluators<Types extends string = PolicyRuleType> = {
  readonly [T in Types]: T extends PolicyRuleType ? RuleEvaluator<T> : never;
};

const inCurrency = <T extends AmountRule['type']>(e: Evaluation, type: T) =>
  e.same.filter((r): r is Rule<T> => r.type === type);

/**
 * The rule types in the order they are enforced, each with its evaluator:
 * tool denials, tool allow-lists, provider allow-lists, then the amount
 * rules (maximum, per-user day, approval), after the amount gate below.
 * The first refusal wins. `PUT /v1/policy` refuses a type missing here.
 */
export const RULE_EVALUATORS = {
  deny_tools: (rules, { call }) => {
    for (const rule of rules) {
      if (names(rule, call))
        return deny(rule, `${call.tool}${call.action ? ` ${call.action}` : ''} is denied by policy.`);
    }
    return null;
  },
  allow_tools: (allow, { call }) => {
    // The built-in listing reads nothing but the catalog: an allow-list never hides the tools themselves.
    if (allow.length > 0 && call.tool !== LIST_TOOLS_TOOL && !allow.some((r) => names(r, call))) {
      return deny(
        allow[0]!,
        `${call.tool}${call.action ? ` ${call.action}` : ''} is not among the tools policy allows.`,
      );
    }
    return null;
  },
  allow_providers: (providerRules, e) => {
    e.allowedProviders = providerRules.length > 0 ? [...new Set(providerRules.flatMap((r) => r.providers))] : null;
    // A raw call has exactly one rail: its provider. A meta-tool's rails are filtered when the router picks one.
    if (e.call.raw && e.allowedProviders && !e.allowedProviders.includes(e.call.raw.provider)) {
      return deny(providerRules[0]!, `${e.call.raw.provider} is not among the providers policy allows.`);
    }
    return null;
  },
  max_amount: (_rules, e) => {
    if (e.amount.kind !== 'amount') return null;
    for (const rule of inCurrency(e, 'max_amount')) {
      if (e.amount.minor > BigInt(rule.max_minor)) {
        return deny(
          rule,
          `${e.amount.minor} ${e.amount.currency} minor units is above the maximum of ${rule.max_minor} per call.`,
        );
      }
    }
    return null;
  },
  user_daily_limit: (_rules, e) => {
    if (e.amount.kind !== 'amount') return null;
    for (const rule of inCurrency(e, 'user_daily_limit')) {
      if (e.call.userId === null)
        return deny(rule, `A per-user daily limit applies to ${e.call.tool}: open the session with a user_id.`);
      if (e.amount.minor > BigInt(rule.max_minor))
        return deny(
          rule,
          `${e.amount.minor} ${e.amount.currency} minor units is above the user's daily limit of ${rule.max_minor}.`,
        );
      e.daily.push({ rule, minor: e.amount.minor });
    }
    return null;
  },
  approval_above: (_rules, e) => {
    const amount = e.amount;
    if (amount.kind !== 'amount') return null;
    e.approval = inCurrency(e, 'approval_above').find((r) => amount.minor > BigInt(r.above_minor)) ?? null;
    return null;
  },
} as const satisfies RuleEvaluators;

/** The rule types this engine enforces, in order. */
export const ENFORCED_RULE_TYPES = Object.keys(RULE_EVALUATORS) as PolicyRuleType[];

/** Whether a rule type has an evaluator here (`PUT /v1/policy` stores no other). */
export function enforceable(type: string): type is PolicyRuleType {
  return Object.hasOwn(RULE_EVALUATORS, type);
}

/**
 * Before the first amount rule: a raw call's amount cannot be read from a
 * schema the engine does not know, so a money-moving provider's non-GET call passes
 * amount rules only when an allow rule names the tool itself; then the
 * call's amount, which the tool's amount rules must cover in its currency.
 */
function amountGate(e: Evaluation): Verdict | null {
  const { call, rules } = e;
  const amountRules = rules.filter((r): r is AmountRule => AMOUNT_RULES.has(r.type));
  if (
    call.raw &&
    amountRules.length > 0 &&
    movesMoney(call.raw) &&
    (call.raw.method ?? 'POST').toUpperCase() !== 'GET'
  ) {
    if (!rules.some((r) => r.type === 'allow_tools' && r.tools.includes(call.tool))) {
      return deny(
        amountRules[0]!,
        `${call.tool} can move money through ${call.raw.provider} and amount rules apply; name it in an allow_tools rule to let it run.`,
      );
    }
  }
  const mine = amountRules.filter((r) => r.tool === call.tool);
  e.amount = mine.length > 0 ? callAmount(call.tool, call.args) : { kind: 'none' };
  const amount = e.amount;
  if (amount.kind === 'none') return null;
  if (amount.kind === 'invalid') return deny(mine[0]!, amount.reason);
  e.same = mine.filter((r) => r.currency === amount.currency);
  if (e.same.length === 0) return deny(mine[0]!, `${call.tool} has amount rules and none covers ${amount.currency}.`);
  return null;
}

/**
 * Evaluates a project's rules for one call, each type by its evaluator in
 * `RULE_EVALUATORS` order; the first refusal wins. Pure: reservations and
 * approvals are the caller's to take, so this runs in microseconds and is
 * tested without a database.
 */
export function evaluate(rules: readonly PolicyRule[], call: PolicyCall): Verdict {
  const e: Evaluation = {
    call,
    rules,
    allowedProviders: null,
    amount: { kind: 'none' },
    same: [],
    approval: null,
    daily: [],
  };
  let gated = false;
  for (const type of ENFORCED_RULE_TYPES) {
    if (!gated && AMOUNT_RULES.has(type)) {
      gated = true;
      const refused = amountGate(e);
      if (refused) return refused;
    }
    const evaluator = RULE_EVALUATORS[type] as RuleEvaluator<PolicyRuleType>;
    const refused = evaluator(
      rules.filter((r) => r.type === type),
      e,
    );
    if (refused) return refused;
  }
  return { kind: 'pass', amount: e.amount, approval: e.approval, daily: e.daily, allowedProviders: e.allowedProviders };
}
