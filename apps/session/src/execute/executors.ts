import type { ActingMetaTool, ExecuteCommand, ExecuteResult, MetaToolName, Tenant } from '@rota/contracts';
import { callerKeyOf, type ClaimedKey, type KeyOutcome } from '../calls/idempotency.repository';
import type { ArgsCheck, MetaToolArgs } from './validate';

/**
 * How a resolved tool runs, one executor per kind:
 * - `rota`: a meta-tool Rota answers from its own data (`codespar_list_tools`,
 *   `codespar_discover`, `codespar_get_started`, `codespar_manage_connections`);
 * - `rail`: an acting meta-tool, routed to a provider rail;
 * - `raw`: a catalog tool (`server/tool`), one provider call;
 * - `mock`: a test session's mock, asked by the `rail` and `raw` executors
 *   before anything is sent.
 * The proxy (`session.proxy`) is its own pattern and pipeline (ProxyService).
 */
export type ToolKind = 'rota' | 'rail' | 'raw' | 'mock';

/** What a call runs against: a session's providers, or the project's connected ones (`POST /mcp`). */
export interface CallContext {
  tenant: Tenant;
  sessionId: string | null;
  /** The session's end user (policy rules count per user); null in the project context. */
  userId: string | null;
  /** Provider ids callable here. */
  servers: string[];
}

/** A tool name resolved to exactly one tool, with the kind of executor that runs it. */
export type Resolved =
  | { kind: 'rota'; name: MetaToolName | 'codespar_list_tools'; schema: MetaToolArgs | null }
  | { kind: 'rail'; name: ActingMetaTool; schema: MetaToolArgs }
  | { kind: 'raw'; name: string; server: string; schema: unknown };

/** What a dispatched tool produced; `record: false` for the refusals that write nothing. */
export interface Outcome {
  success: boolean;
  data: unknown;
  error: string | null;
  server: string | null;
  record: boolean;
  /**
   * A provider call writes its own row (pending before it is sent, completed
   * after, the caller's key finished by the same statement): its id, how it
   * ended, and whether the key was given back because nothing was sent.
   */
  written?: { toolCallId: string; state: 'done' | 'outcome_unknown'; keyForgotten: boolean };
  /** Provably never sent (no rail could be tried): the caller's key is given back instead of keeping this answer. */
  giveKeyBack?: boolean;
}

/** Builds (once) the answer of the call for an outcome; the key stores the very answer the caller gets. */
export type Answer = (outcome: Outcome) => ExecuteResult;

/** One call as an executor receives it, every check before dispatch passed. */
export interface ExecCall<R extends Resolved = Resolved> {
  resolved: R;
  /** The coerced arguments; also what the call row records (an executor may redact it in place). */
  input: Record<string, unknown>;
  ctx: CallContext;
  /** The caller's key as this request holds it (its claim token), or null. */
  key: ClaimedKey | null;
  calledAt: Date;
  governed: PolicyPass;
  /** The call's answer for an outcome, built once: what the caller gets and what its key keeps. */
  answer: Answer;
  /** A test session's mocked answer of this call, or null when mocks do not apply (the `mock` executor). */
  mocked(): Promise<Outcome | null>;
}

/** The request as it arrived, for work an executor starts before the checks (reads only). */
export interface EarlyCall {
  cmd: ExecuteCommand;
  tenant: Tenant;
  /** The meta-tool's arguments as checkArgs will coerce them, when the tool is a meta-tool and they are valid for the key's environment. */
  metaArgs: Extract<ArgsCheck, { ok: true }> | null;
}

export interface Executor<K extends ToolKind> {
  /** Reads started when the request arrives, in parallel with the checks; used by `run` only if the call goes on. */
  prefetch?(early: EarlyCall): unknown;
  run(
    call: ExecCall<K extends 'mock' ? Resolved : Extract<Resolved, { kind: K }>>,
    prefetched: unknown,
  ): Promise<Outcome | null>;
}

/** The executor table: a kind without an executor does not compile. */
export type Executors = { readonly [K in ToolKind]: Executor<K> };

/** One call as the execute pipeline hands it to the policy check. */
export interface PolicyCheck {
  tenant: Tenant;
  sessionId: string | null;
  /** The session's end user (rules count per user). */
  userId: string | null;
  keyId: string | null;
  /** `Rota-Approval-Id` of a retried call. */
  approvalId: string | null;
  tool: string;
  /** `args.action` of a meta-tool; null for tools without actions. */
  action: string | null;
  args: Record<string, unknown>;
  /** A raw call to a provider (a catalog tool) with what the catalog says about it; null for meta-tools. */
  raw: { provider: string; category: string | null; method: string | null } | null;
}

/** What a passed check leaves for the dispatcher. */
export interface PolicyPass<Reservation = unknown> {
  /** The rails the router may pick; null for no restriction (the router applies it when rails execute). */
  allowedProviders: string[] | null;
  /** The first `allow_providers` rule, named when no allowed rail remains at execute time. */
  providerRuleId: string | null;
  /** Amounts reserved under per-user daily limits; give them back only for a call that certainly ran nothing. */
  reservations: Reservation[];
}

/** Policy as the pipeline sees it (PolicyService): the last check before dispatch, and giving back reservations. */
export interface PolicyGate {
  check(input: PolicyCheck): Promise<PolicyPass>;
  release(reservations: PolicyPass['reservations']): Promise<void>;
}

/** Where a call runs: the session's providers, or the project's connected ones. */
export interface CallContexts {
  context(cmd: ExecuteCommand, tenant: Tenant): Promise<CallContext>;
  /** Throws the unknown-session 404 unless the tenant may see this session (a user-bound key sees only its user's). */
  assertVisible(tenant: Tenant, sessionId: string): Promise<void>;
}

export const EXECUTORS = Symbol('EXECUTORS');
export const POLICY_GATE = Symbol('POLICY_GATE');
export const CALL_CONTEXTS = Symbol('CALL_CONTEXTS');

export const ok = (data: unknown, server: string | null = null): Outcome => ({
  success: true,
  data,
  error: null,
  server,
  record: true,
});

/** What the caller's key keeps for a sent call: its answer (or that it is unknown), or nothing when nothing was sent. */
export function keyOutcome(outcome: Outcome, answer: Answer): KeyOutcome {
  if (outcome.written?.keyForgotten) return { state: 'forget' };
  return { state: outcome.written?.state === 'outcome_unknown' ? 'unknown' : 'done', response: answer(outcome) };
}

/**
 * The caller's key for a provider call, as the statements that write its row
 * take it: the key with this request's claim, and what it keeps for each way
 * the call can end (`outcomeOf` maps the completion to the call's outcome).
 * Null without a key.
 */
export function keyedCall<D>(call: Pick<ExecCall, 'key' | 'answer'>, outcomeOf: (done: D) => Outcome) {
  const key = callerKeyOf(call.key);
  return key ? { key, answer: (done: D): KeyOutcome => keyOutcome(outcomeOf(done), call.answer) } : null;
}
