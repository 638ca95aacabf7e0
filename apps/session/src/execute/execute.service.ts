import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import {
  AppError,
  LIST_TOOLS_TOOL,
  META_TOOLS,
  isActingMetaTool,
  isMetaToolName,
  type ActingMetaTool,
  type Environment,
  type ExecuteCommand,
  type ExecuteFailureCode,
  type ExecuteReply,
  type ExecuteResult,
  type DiscoverResult,
  type MetaToolName,
  type Tenant,
} from '@rota/contracts';
import { beforeDeadline, CONFIG, createLogger, currentTenant, requestContext, RpcClient } from '@rota/service-kit';
import type { SessionConfig } from '../config';
import { ConnectionsRepository } from '../connections/connections.repository';
import { connectionStatus } from '../connections/connections.service';
import { PolicyService, type PolicyPass } from '../policy/policy.service';
import { SessionsService } from '../sessions/sessions.service';
import { requiredScope } from './action-scopes';
import { getStarted, listTools, type ProviderState } from './builtins';
import { CatalogSchemas, checkMetaArgs, type ArgsCheck, type MetaToolArgs } from './validate';
import { ToolCallsRepository } from '../calls/tool-calls.repository';
import { answerFromKey, claimKey, LostClaimError } from '../calls/idempotency';
import { callerKeyOf, IdempotencyRepository, type ClaimedKey, type KeyRef } from '../calls/idempotency.repository';
import { ToolsRepository } from '../tools/tools.repository';
import { ProviderCallsService, sentNothing, toolOutcome, type KeyedCall, type KeyOutcome } from '../provider-calls/provider-calls.service';
import { requestHash } from '../calls/request-hash';
import { callableCandidates } from '../tools/callable-name';
import { RailsService, type RailCall, type RailOutcome, type RailPlan } from '../rails/rails.service';
import type { CallDone } from '../provider-calls/provider-calls.service';
import { MocksService } from '../mocks/mocks.service';
import { ManageConnectionsService, redactCredentialsInPlace } from '../connections/manage/manage.service';

/** What a call runs against: a session's providers, or the project's connected ones (`POST /mcp`). */
interface CallContext {
  tenant: Tenant;
  sessionId: string | null;
  /** The session's end user (policy rules count per user); null in the project context. */
  userId: string | null;
  /** Provider ids callable here. */
  servers: string[];
}

type Resolved =
  | { kind: 'list_tools'; name: string; schema: null }
  | { kind: 'meta'; name: MetaToolName; schema: MetaToolArgs }
  | { kind: 'catalog'; name: string; server: string; schema: unknown }
  | { kind: 'ambiguous'; candidates: string[] };
/** A name that resolved to exactly one tool. */
type Callable = Exclude<Resolved, { kind: 'ambiguous' }>;

/** What a dispatched tool produced; `record: false` for the refusals that write nothing. */
interface Outcome {
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
type Answer = (outcome: Outcome) => ExecuteResult;

/** A rail choice asked for when the request arrived (see `prefetchRail`), with what it was made for. */
interface PlannedRail {
  tool: ActingMetaTool;
  /** The coerced arguments it was planned on (the very object dispatch receives when the call goes on). */
  input: Record<string, unknown>;
  planned: Promise<{ plan: RailPlan } | { error: unknown }>;
}

/** Plans a rail call; the promise never rejects, so one nobody awaits is harmless. */
function planRail(rails: RailsService, call: RailCall): PlannedRail['planned'] {
  return rails.plan(call).then(
    (plan) => ({ plan }),
    (error: unknown) => ({ error }),
  );
}

const META_SCHEMAS = new Map(META_TOOLS.map((t) => [t.name, t]));
const META_MONEY = new Map(META_TOOLS.map((t) => [t.name, t.money]));

/** Whether a call may move money: its row is then flushed to disk before the answer. Raw provider tools count as money-moving. */
function movesMoney(r: Resolved): boolean {
  if (r.kind === 'catalog') return true;
  return r.kind === 'meta' && META_MONEY.get(r.name) !== 'none';
}

/** Outputs larger than this are recorded as their size only: the call row is an audit line, not a cache. */
export const RECORDED_OUTPUT_MAX_BYTES = 16 * 1024;

function recordedOutput(data: unknown): unknown {
  if (data === null || data === undefined) return null;
  const bytes = Buffer.byteLength(JSON.stringify(data));
  return bytes > RECORDED_OUTPUT_MAX_BYTES ? { omitted: true, bytes } : data;
}

/** What the caller's key keeps for a sent call: its answer (or that it is unknown), or nothing when nothing was sent. */
function keyOutcome(outcome: Outcome, answer: Answer): KeyOutcome {
  if (outcome.written?.keyForgotten) return { state: 'forget' };
  return { state: outcome.written?.state === 'outcome_unknown' ? 'unknown' : 'done', response: answer(outcome) };
}

const failureData = (code: ExecuteFailureCode, message: string, extra: Record<string, unknown> = {}) => ({ code, message, ...extra });

/**
 * A key acts in one environment only: meta-tool arguments may repeat the
 * key's `environment` but never name the other one.
 */
function otherEnvironment(input: Record<string, unknown>, tenant: Tenant): boolean {
  return input.environment !== undefined && input.environment !== tenant.environment;
}

/**
 * The execute pipeline, after the gateway has authenticated the key and
 * parsed the body. The checks run in the documented order, and each early
 * exit says whether a `session_tool_calls` row is written:
 *
 * 1. session lookup (404, nothing written) and status (409 with the real status);
 * 2. org quota (403 `quota_exceeded`), only when enforced;
 * 3. tool resolution: `codespar_list_tools`, the published meta-tools, then the
 *    catalog by `server/tool` limited to the session's providers. No match is
 *    200 `Tool not registered`, nothing written;
 * 4. argument coercion, then validation against the tool's schema (zod for
 *    meta-tools, Ajv for catalog tools), and a meta-tool's
 *    `environment` argument against the key's (`invalid_args`, nothing written);
 * 5. the per-action scope gate (403, only when enforced);
 * 6. policy rules (`PolicyService.check`), which read the coerced arguments:
 *    a refusal is 403 with the policy body (no `error` key), kept as a policy
 *    decision record and no call row; an unreadable rules store is 503
 *    `policy_engine_error`;
 * 7. dispatch, recorded as one row whatever the tool answers, except
 *    `codespar_discover` refusing its arguments, which writes nothing.
 */
@Injectable()
export class ExecuteService {
  private readonly log;
  private readonly catalogSchemas = new CatalogSchemas();

  constructor(
    @Inject(CONFIG) private readonly config: SessionConfig,
    private readonly sessions: SessionsService,
    private readonly connections: ConnectionsRepository,
    private readonly repo: ToolCallsRepository,
    private readonly tools: ToolsRepository,
    private readonly idempotency: IdempotencyRepository,
    private readonly rpc: RpcClient,
    private readonly policy: PolicyService,
    private readonly providerCalls: ProviderCallsService,
    private readonly mocks: MocksService,
    private readonly rails: RailsService,
    private readonly manage: ManageConnectionsService,
  ) {
    this.log = createLogger('session', config.LOG_LEVEL);
  }

  /**
   * Runs a call once per idempotency key: the key is claimed first (right
   * after the gateway's authentication and body validation, before the
   * session, quota or any other check), a repeat of a finished call gets its
   * stored answer, and a refusal that ran nothing gives the key back.
   */
  async execute(cmd: ExecuteCommand): Promise<ExecuteReply> {
    const tenant = currentTenant();
    const ref: KeyRef | null = cmd.idempotency_key ? { tenant, key: cmd.idempotency_key } : null;
    const hash = ref ? requestHash(cmd) : '';
    let key: ClaimedKey | null = null;
    if (ref) {
      const decision = await claimKey(this.idempotency, ref, hash);
      if (!decision.run) return { result: decision.response as ExecuteResult, replayed: true };
      key = decision.key;
    }
    try {
      const result = await this.run(cmd, tenant, key);
      return { result, replayed: false };
    } catch (err) {
      // A later request took the key over while this one stalled before writing: it sent nothing and answers as a repeat would.
      if (err instanceof LostClaimError && ref) {
        const decision = await answerFromKey(this.idempotency, ref, hash);
        return { result: decision.response as ExecuteResult, replayed: true };
      }
      // Everything that throws here ran nothing (the call row is the last write).
      if (key)
        await this.idempotency
          .release(key)
          .catch((e: unknown) => this.log.warn({ err: e }, 'could not release an idempotency key; it frees itself past its deadline'));
      throw err;
    }
  }

  private async run(cmd: ExecuteCommand, tenant: Tenant, key: ClaimedKey | null): Promise<ExecuteResult> {
    const calledAt = new Date();
    // A meta-tool's arguments are checked once, here: the prefetches below and checkArgs share the result.
    const metaArgs = isMetaToolName(cmd.tool) ? checkMetaArgs(cmd.input, META_SCHEMAS.get(cmd.tool)!) : null;
    const early = this.prefetchDiscover(cmd, tenant, metaArgs);
    const earlyRail = this.prefetchRail(cmd, tenant, metaArgs);
    const ctx = await this.context(cmd, tenant);
    await this.checkQuota(tenant);

    const resolved = await this.resolve(cmd, ctx);
    if (!resolved) {
      return this.unrecorded(key, cmd.tool, calledAt, 'tool_not_registered', 'Tool not registered', { tool: cmd.tool });
    }
    if (resolved.kind === 'ambiguous') {
      return this.unrecorded(key, cmd.tool, calledAt, 'tool_not_registered', 'Tool name is ambiguous; call it as server/tool.', {
        tool: cmd.tool,
        candidates: resolved.candidates,
      });
    }
    if (cmd.via === 'mcp' && resolved.kind === 'catalog') {
      return this.unrecorded(key, cmd.tool, calledAt, 'tool_not_published', 'Catalog tools run only through POST /v1/sessions/{id}/execute.', {
        tool: cmd.tool,
      });
    }

    const coerced = this.checkArgs(resolved, cmd.input, metaArgs);
    if (!coerced.ok) {
      return this.unrecorded(key, resolved.name, calledAt, 'invalid_args', 'The arguments do not fit the tool input schema.', { issues: coerced.issues });
    }
    if (resolved.kind === 'meta' && otherEnvironment(coerced.value, tenant)) {
      const message = `This key acts in the ${tenant.environment} environment only.`;
      return this.unrecorded(key, resolved.name, calledAt, 'invalid_args', message, {
        issues: [{ path: ['environment'], message: `environment must be ${tenant.environment}, the key's environment`, code: 'custom' }],
      });
    }

    const scope = requiredScope(resolved.name, coerced.value);
    if (this.config.META_TOOL_ACTION_SCOPES_ENFORCE && !cmd.scopes.includes(scope)) {
      throw new AppError('forbidden', `API key does not have the '${scope}' scope.`);
    }

    // Policy: the last check before anything is dispatched. It throws its
    // refusals (`policy_denied`, `policy_engine_error`), which run nothing
    // and write no call row; what it passes may carry per-user reservations.
    const governed = await this.policy.check({
      tenant,
      sessionId: ctx.sessionId,
      userId: ctx.userId,
      keyId: cmd.key_id ?? null,
      approvalId: cmd.approval_id ?? null,
      tool: resolved.name,
      action: typeof coerced.value.action === 'string' ? coerced.value.action : null,
      args: coerced.value,
      raw: resolved.kind === 'catalog' ? { provider: resolved.server, category: null, method: null } : null,
    });

    // A prefetched discover has been running since it started.
    const started = early?.started ?? performance.now();
    let answered: ExecuteResult | null = null;
    const answer: Answer = (outcome) =>
      (answered ??= {
        success: outcome.success,
        data: outcome.data,
        error: outcome.error,
        duration: Math.round((performance.now() - started) * 100) / 100,
        server: outcome.server,
        tool: resolved.name,
        tool_call_id: outcome.written?.toolCallId ?? (outcome.record ? this.repo.newCallId() : null),
        called_at: calledAt.toISOString(),
      });
    beforeDeadline();
    let outcome: Outcome;
    try {
      outcome = await this.dispatch(resolved, coerced.value, ctx, early?.result ?? null, key, calledAt, governed, answer, earlyRail);
    } catch (err) {
      // Refusals thrown from dispatch that certainly sent nothing give the user's day back; anything else might have run.
      const ranNothing = err instanceof AppError && ['unavailable', 'mocks_engine_error'].includes(err.code);
      if (ranNothing && governed.reservations.length > 0) await this.policy.release(governed.reservations);
      throw err;
    }
    // A tool without an executor sent nothing: its amount does not count against the user's day.
    // Nor does a provider call that was refused or provably never sent.
    const ranNothing =
      !outcome.record ||
      ['not_implemented', 'upstream_unreachable', 'connection_required', 'no_rail', 'invalid_args'].includes(
        String((outcome.data as { code?: unknown } | null)?.code),
      );
    if (governed.reservations.length > 0 && ranNothing) await this.policy.release(governed.reservations);

    const result = answer(outcome);
    const duration = result.duration;
    const toolCallId = result.tool_call_id;
    if (outcome.written) {
      // The provider call wrote its row (and linked the key to it) before it
      // sent anything, and the statement that completed it stored the answer
      // in the key (or gave the key back when nothing was sent).
      if (key && outcome.written.keyForgotten) await this.idempotency.forgetMarker(key);
    } else if (toolCallId && outcome.giveKeyBack && key) {
      // Provably never sent: the row is the record, and the key is free for a retry (one rule on every channel).
      beforeDeadline();
      await this.repo.recordCall({
        id: toolCallId,
        sessionId: ctx.sessionId,
        projectId: ctx.tenant.project_id,
        environment: ctx.tenant.environment,
        tool: resolved.name,
        server: outcome.server,
        input: coerced.value,
        output: recordedOutput(outcome.data),
        success: outcome.success,
        error: outcome.error,
        durationMs: Math.round(duration),
        calledAt,
        durable: movesMoney(resolved),
      });
      await this.idempotency.forget(key);
    } else if (toolCallId) {
      // Past the deadline the caller has been told the outcome is unknown;
      // what dispatch ran so far only read, so nothing is written and the
      // answer can honestly be `unavailable`.
      beforeDeadline();
      await this.repo.recordCall({
        id: toolCallId,
        idempotency: key ? { orgId: key.tenant.org_id, key: key.key, claim: key.claim, state: 'done', response: result } : undefined,
        sessionId: ctx.sessionId,
        projectId: ctx.tenant.project_id,
        environment: ctx.tenant.environment,
        tool: resolved.name,
        server: outcome.server,
        input: coerced.value,
        output: recordedOutput(outcome.data),
        success: outcome.success,
        error: outcome.error,
        durationMs: Math.round(duration),
        calledAt,
        durable: movesMoney(resolved),
      });
    } else if (key) {
      await this.idempotency.finish(key, 'done', result);
    }
    // One line per dispatched call; arguments and outputs stay in the call row, never in logs.
    this.log.info(
      {
        session_id: ctx.sessionId,
        project_id: ctx.tenant.project_id,
        tool: resolved.name,
        server: outcome.server,
        success: outcome.success,
        duration_ms: duration,
        tool_call_id: toolCallId,
      },
      'tool call',
    );
    return result;
  }

  private async context(cmd: ExecuteCommand, tenant: Tenant): Promise<CallContext> {
    if (cmd.session_id !== null) {
      const session = await this.sessions.requireActive(tenant, cmd.session_id);
      return { tenant, sessionId: session.id, userId: session.userId, servers: session.servers };
    }
    const connected = await this.connections.providerStates(tenant.project_id, tenant.environment, null);
    return { tenant, sessionId: null, userId: null, servers: connected.map((p) => p.id) };
  }

  private async checkQuota(tenant: Tenant) {
    if (!this.config.ROTA_QUOTA_ENFORCE) return;
    const usage = await this.repo.usage(tenant.org_id);
    if (!usage) return;
    const limit = usage.quotaMonthlyCalls ?? this.config.ROTA_QUOTA_DEFAULT_MONTHLY_CALLS;
    if (usage.used >= limit) {
      throw new AppError('quota_exceeded', `The org has used its ${limit} tool calls for this month.`, { plan: usage.plan, limit, used: usage.used });
    }
  }

  private async resolve(cmd: ExecuteCommand, ctx: CallContext): Promise<Resolved | null> {
    if (cmd.tool === LIST_TOOLS_TOOL) return { kind: 'list_tools', name: LIST_TOOLS_TOOL, schema: null };
    if (isMetaToolName(cmd.tool)) return { kind: 'meta', name: cmd.tool, schema: META_SCHEMAS.get(cmd.tool)! };
    // server/tool, or the aliases server.tool and SERVER_TOOL; the longest
    // server id that names an existing tool wins.
    let found: { rank: number; name: string; server: string; schema: unknown } | null = null;
    for (const c of callableCandidates(cmd.tool, ctx.servers)) {
      if (found && c.rank < found.rank) break;
      const tool = await this.tools.findTool(c.server, c.tool, ctx.tenant.project_id);
      if (!tool) continue;
      // Two servers of the same specificity both have such a tool: refuse rather than guess.
      if (found) return { kind: 'ambiguous', candidates: [found.name, `${tool.serverId}/${tool.toolName}`] };
      found = { rank: c.rank, name: `${tool.serverId}/${tool.toolName}`, server: tool.serverId, schema: tool.inputSchema };
    }
    return found ? { kind: 'catalog', name: found.name, server: found.server, schema: found.schema } : null;
  }

  /** Coercion, then every keyword of the tool's schema. */
  private checkArgs(resolved: Callable, input: Record<string, unknown>, metaArgs: ArgsCheck | null): ArgsCheck {
    switch (resolved.kind) {
      case 'list_tools':
        return { ok: true, value: { ...input } };
      case 'meta':
        return metaArgs ?? checkMetaArgs(input, resolved.schema);
      case 'catalog': {
        const checked = this.catalogSchemas.check(input, resolved.schema);
        // A catalog defect, not the caller's: the call goes on with coerced arguments.
        if (checked.ok && checked.unchecked)
          this.log.warn({ tool: resolved.name, reason: checked.unchecked }, 'catalog input schema does not compile; arguments not validated');
        return checked;
      }
    }
  }

  private async dispatch(
    resolved: Callable,
    input: Record<string, unknown>,
    ctx: CallContext,
    early: Promise<DiscoverResult> | null,
    key: ClaimedKey | null,
    calledAt: Date,
    governed: PolicyPass,
    answer: Answer,
    earlyRail: PlannedRail | null = null,
  ): Promise<Outcome> {
    switch (resolved.kind) {
      case 'list_tools':
        return this.ok(await this.listTools(ctx));
      case 'catalog': {
        // A test session with mocks answers from them and never reaches the provider (see MocksService).
        const mocked = await this.mocks.answer({ tenant: ctx.tenant, sessionId: ctx.sessionId, tool: resolved.name });
        return mocked ? this.ok(mocked.response, resolved.server) : this.callProvider(resolved, input, ctx, key, calledAt, answer);
      }
      case 'meta':
        switch (resolved.name) {
          case 'codespar_discover':
            return this.discover(early ?? this.searchDiscover(input));
          case 'codespar_get_started':
            return this.ok(
              getStarted({
                environment: ctx.tenant.environment,
                providers: await this.usableProviders(ctx, ctx.tenant.environment),
                inSession: ctx.sessionId !== null,
              }),
            );
          case 'codespar_manage_connections':
            return this.manageConnections(input, ctx);
          default:
            return isActingMetaTool(resolved.name)
              ? this.callRail(resolved.name, input, ctx, key, calledAt, governed, answer, earlyRail)
              : this.notImplemented(resolved.name, null);
        }
    }
  }

  /** A raw catalog tool: one provider call, written down before it is sent (see ProviderCallsService). */
  private async callProvider(
    resolved: Extract<Resolved, { kind: 'catalog' }>,
    input: Record<string, unknown>,
    ctx: CallContext,
    key: ClaimedKey | null,
    calledAt: Date,
    answer: Answer,
  ): Promise<Outcome> {
    const toolName = resolved.name.slice(resolved.server.length + 1);
    const outcomeOf = (done: CallDone): Outcome => {
      const { success, data, error } = toolOutcome(done);
      return {
        success,
        data,
        error,
        server: resolved.server,
        record: true,
        written: { toolCallId: done.toolCallId, state: done.state, keyForgotten: sentNothing(done.result) },
      };
    };
    const callerKey = callerKeyOf(key);
    // What the key keeps is the very answer the caller gets, stored by the completion statement.
    const caller: KeyedCall | null = callerKey ? { key: callerKey, answer: (done) => keyOutcome(outcomeOf(done), answer) } : null;
    const done = await this.providerCalls.callTool({
      tenant: ctx.tenant,
      sessionId: ctx.sessionId,
      server: resolved.server,
      toolName,
      callable: resolved.name,
      input,
      caller,
      calledAt,
    });
    if (done.kind === 'refused') {
      // Nothing was written or sent: the same shape as the other refusals that write no row.
      return { success: false, data: failureData(done.code, done.message, done.details ?? {}), error: done.message, server: resolved.server, record: false };
    }
    return outcomeOf(done);
  }

  /**
   * An acting meta-tool: routed to a rail now, on current telemetry. The
   * agent never learns which provider ran it (`server` stays null); the
   * call row keeps the rail and every attempt.
   */
  private async callRail(
    tool: ActingMetaTool,
    input: Record<string, unknown>,
    ctx: CallContext,
    key: ClaimedKey | null,
    calledAt: Date,
    governed: PolicyPass,
    answer: Answer,
    earlyRail: PlannedRail | null,
  ): Promise<Outcome> {
    const outcomeOf = (done: Extract<RailOutcome, { kind: 'called' }>): Outcome => ({
      success: done.success,
      data: done.data,
      error: done.error,
      server: null,
      record: true,
      written: { toolCallId: done.toolCallId, state: done.state, keyForgotten: done.sentNothing },
    });
    const callerKey = callerKeyOf(key);
    const call: RailCall = {
      tool,
      input,
      tenant: ctx.tenant,
      sessionId: ctx.sessionId,
      callerKey: key?.key ?? null,
      caller: callerKey ? { key: callerKey, answer: (done) => keyOutcome(outcomeOf(done), answer) } : null,
      calledAt,
      allowedProviders: governed.allowedProviders,
    };
    // The router's choice only reads, so it is asked for while the mocks are
    // looked up; a mocked answer drops it. The one asked for when the request
    // arrived serves when it was made for this very call: the same tool and
    // arguments, and no policy narrowing the providers.
    const reuse = earlyRail !== null && earlyRail.tool === tool && earlyRail.input === input && governed.allowedProviders == null;
    const planned = reuse ? earlyRail.planned : planRail(this.rails, call);
    // A test session's mock of this meta-tool answers before any rail runs; with none left the rails run (never a 422).
    const mocked = await this.mocks.answerMetaTool({ tenant: ctx.tenant, sessionId: ctx.sessionId, tool, input });
    if (mocked) return this.ok(mocked.response);
    const settled = await planned;
    if ('error' in settled) throw settled.error;
    const done = await this.rails.perform(call, settled.plan);
    switch (done.kind) {
      case 'not_allowed': {
        // Policy left no rail: a policy refusal like any other (403, no `error` key), and nothing ran.
        const body = { reason: done.message, ruleType: 'allow_providers' as const, ruleId: governed.providerRuleId ?? '' };
        if (governed.reservations.length > 0) await this.policy.release(governed.reservations);
        throw new AppError('policy_denied', done.message, body);
      }
      case 'refused':
        return { success: false, data: failureData(done.code, done.message, done.details), error: done.message, server: null, record: false };
      case 'not_sent':
        return {
          success: false,
          data: failureData(done.code, done.message, done.details),
          error: done.message,
          server: null,
          record: true,
          giveKeyBack: true,
        };
      case 'called':
        return outcomeOf(done);
    }
  }

  private ok(data: unknown, server: string | null = null): Outcome {
    return { success: true, data, error: null, server, record: true };
  }

  private notImplemented(tool: string, server: string | null): Outcome {
    const message = `${tool} has no executor in this release; nothing was sent to any provider.`;
    return { success: false, data: failureData('not_implemented', message), error: message, server, record: true };
  }

  /** A refusal that writes no call row; a repeat with the same idempotency key gets it again. */
  private async unrecorded(
    key: ClaimedKey | null,
    tool: string,
    calledAt: Date,
    code: ExecuteFailureCode,
    message: string,
    extra: Record<string, unknown> = {},
  ): Promise<ExecuteResult> {
    const result: ExecuteResult = {
      success: false,
      data: failureData(code, message, extra),
      error: message,
      duration: 0,
      server: null,
      tool,
      tool_call_id: null,
      called_at: calledAt.toISOString(),
    };
    if (key) await this.idempotency.finish(key, 'done', result);
    return result;
  }

  /**
   * `codespar_discover` reads the catalog for the caller's project and
   * environment and depends on nothing the session checks produce, so the
   * search starts at once, in parallel with the session lookup. Its answer is
   * used only when every check before dispatch passes, in the documented
   * order; otherwise it is dropped. A pure read: starting it early changes
   * nothing but the latency.
   */
  private prefetchDiscover(cmd: ExecuteCommand, tenant: Tenant, coerced: ArgsCheck | null): { result: Promise<DiscoverResult>; started: number } | null {
    if (cmd.tool !== 'codespar_discover' || !coerced) return null;
    if (!coerced.ok || otherEnvironment(coerced.value, tenant)) return null;
    const started = performance.now();
    const result = this.searchDiscover(coerced.value);
    // Nobody may await it (an earlier check refuses the call): that is not an error.
    result.catch(() => undefined);
    return { result, started };
  }

  /**
   * An acting meta-tool's rail choice (the router's select, and the early
   * provider read it allows) depends only on the tool, its arguments and the
   * tenant, and only reads. So it is asked for when the request arrives, in
   * parallel with the session lookup and the checks, on the arguments as
   * `checkArgs` will coerce them, as if no policy narrowed the providers.
   * Dispatch uses it only for that same input and when policy names no
   * providers; otherwise it plans again. Nothing is written or sent here.
   */
  private prefetchRail(cmd: ExecuteCommand, tenant: Tenant, coerced: ArgsCheck | null): PlannedRail | null {
    if (!isActingMetaTool(cmd.tool) || !coerced) return null;
    if (!coerced.ok || otherEnvironment(coerced.value, tenant)) return null;
    const planned = planRail(this.rails, {
      tool: cmd.tool,
      input: coerced.value,
      tenant,
      sessionId: null,
      callerKey: null,
      calledAt: new Date(),
      allowedProviders: null,
    });
    return { tool: cmd.tool, input: coerced.value, planned };
  }

  /** The search service reads the catalog for the tenant this request carries. */
  private searchDiscover(input: Record<string, unknown>): Promise<DiscoverResult> {
    const deadline = requestContext.getStore()?.deadline;
    const left = deadline ? deadline - Date.now() - 100 : Infinity;
    const timeoutMs = Math.max(50, Math.min(this.config.ROTA_DISCOVER_TIMEOUT_MS, left));
    return this.rpc.send('search.discover', { input }, { timeoutMs });
  }

  /** The search service's answer as a call outcome. Its `invalid_args` becomes a result and writes nothing. */
  private async discover(search: Promise<DiscoverResult>): Promise<Outcome> {
    try {
      return this.ok(await search);
    } catch (err) {
      if (err instanceof AppError && err.code === 'invalid_args') {
        return { success: false, data: failureData('invalid_args', err.message, err.details ?? {}), error: err.message, server: null, record: false };
      }
      throw err;
    }
  }

  private async listTools(ctx: CallContext) {
    const [catalog, servers] = await Promise.all([
      this.tools.listTools(ctx.servers, ctx.tenant.project_id),
      this.providerStates(ctx.tenant, ctx.tenant.environment, ctx.servers),
    ]);
    return listTools(catalog, servers);
  }

  /** Every action lives in connections/manage; this only adapts the result. */
  private async manageConnections(input: Record<string, unknown>, ctx: CallContext): Promise<Outcome> {
    const done = await this.manage.run(input, { tenant: ctx.tenant, sessionId: ctx.sessionId, servers: ctx.servers });
    // `input` is the object the call row records: credentials sent to connect_start or connect_finish leave it here.
    redactCredentialsInPlace(input);
    return { ...done, server: null };
  }

  /** The project's connected providers plus the context's own providers, each with its status. */
  private async usableProviders(ctx: CallContext, environment: Environment): Promise<ProviderState[]> {
    const [connected, named] = await Promise.all([
      this.providerStates(ctx.tenant, environment, null),
      this.providerStates(ctx.tenant, environment, ctx.servers),
    ]);
    const byId = new Map([...connected, ...named].map((p) => [p.id, p]));
    return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  private async providerStates(tenant: Tenant, environment: Environment, ids: readonly string[] | null): Promise<ProviderState[]> {
    const rows = await this.connections.providerStates(tenant.project_id, environment, ids);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      category: r.category,
      authType: r.authType,
      status: connectionStatus(r.authType, r.connectedAt !== null),
      connectedAt: r.connectedAt,
    }));
  }
}
