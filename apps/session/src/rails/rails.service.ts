import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import {
  FOLLOW_UP_REFS,
  actionOf,
  fromMinorAmount,
  isAmountProblem,
  parseMajorAmount,
  resultSchema,
  type ActingMetaTool,
  type AmountProblem,
  type ExactAmount,
  type ExecuteFailureCode,
  type RailCandidate,
  type RailStep,
  type RouterSelectRequest,
  type Tenant,
} from '@rota/contracts';
import { buildRequest, RequestBuildError, type CallResult, type ProviderRequest } from '@rota/providers';
import { beforeDeadline, CONFIG, createLogger, requestContext, RpcClient } from '@rota/service-kit';
import type { SessionConfig } from '../config';
import { LostClaimError } from '../calls/idempotency';
import {
  ProviderCallsRepository,
  type CallerKey,
  type KeyFinish,
  type RailAttemptRecord,
} from '../calls/provider-calls.repository';
import {
  completedRow,
  failureOf,
  ProviderCallsService,
  providerIdempotencyKey,
  type CallDone,
  type KeyOutcome,
} from '../provider-calls/provider-calls.service';
import { redactSecrets } from '../calls/redact';
import { evaluate, MappingError } from './mapping';
import { answerClass, missingRequirement, providerRefusal } from './refusal';

/** What an acting meta-tool call came to. */
export type RailOutcome =
  /** Refused before anything was written or sent (bad amount): no call row. */
  | { kind: 'refused'; code: ExecuteFailureCode; message: string; details: Record<string, unknown> }
  /** Policy allows no rail that could run the call: a policy refusal, nothing written or sent. */
  | { kind: 'not_allowed'; message: string }
  /** Nothing was sent (no rail, nothing connected): the execute pipeline records an ordinary row. */
  | { kind: 'not_sent'; code: ExecuteFailureCode; message: string; details: Record<string, unknown> }
  /** Written down and sent (or tried): the row is complete. */
  | {
      kind: 'called';
      toolCallId: string;
      state: 'done' | 'outcome_unknown';
      success: boolean;
      data: unknown;
      error: string | null;
      /** No request of any attempt reached a provider: the caller's key is given back. */
      sentNothing: boolean;
    };

/** The caller's key as the request holds it, and what it keeps for the call's end (stored by the completion statement). */
export interface RailKeyedCall {
  key: CallerKey;
  answer(done: Extract<RailOutcome, { kind: 'called' }>): KeyOutcome;
}

/** One acting meta-tool call as the execute pipeline hands it over. */
export interface RailCall {
  tool: ActingMetaTool;
  input: Record<string, unknown>;
  tenant: Tenant;
  sessionId: string | null;
  callerKey: string | null;
  /** The same key, claimed: the row is linked to it only while this request holds it, and its completion finishes it. */
  caller?: RailKeyedCall | null;
  calledAt: Date;
  /** A policy's `allow_providers`: only their rails may run; null for no restriction. */
  allowedProviders?: string[] | null;
}

/** What planning a call came to: a refusal, or the ranked rails to try. */
export type RailPlan =
  | Extract<RailOutcome, { kind: 'refused' | 'not_sent' | 'not_allowed' }>
  | { kind: 'ready'; action: string; amount: ExactAmount | null; candidates: RailCandidate[]; early?: EarlyPrepare };

type PrepareOutcome = Awaited<ReturnType<ProviderCallsService['prepare']>>;

/**
 * The provider and credentials of the rail the router picked last time for
 * the same kind of call, read while the router decides. Reading is all it
 * does; it is used only when the router picks that rail again.
 */
interface EarlyPrepare {
  provider_id: string;
  catalog_tool: string;
  read: Promise<{ value: PrepareOutcome } | { error: unknown }>;
}

/** How many kinds of call remember their last rail, per replica. */
const LAST_PICKS_MAX = 10_000;

const DEFAULT_CURRENCY = 'BRL';

/** A step's answer as later mappings see it. */
interface StepAnswer {
  status: number;
  body: unknown;
}

type Prepared = Exclude<Awaited<ReturnType<ProviderCallsService['prepare']>>, { kind: 'refused' }>;

/** The exact amount a call carries, per tool and action; null for calls without money. */
export function amountOf(
  tool: ActingMetaTool,
  action: string,
  input: Record<string, unknown>,
): ExactAmount | AmountProblem | null {
  const currency = typeof input.currency === 'string' ? input.currency.toUpperCase() : DEFAULT_CURRENCY;
  switch (tool) {
    case 'codespar_charge':
      return parseMajorAmount(input.amount, currency);
    case 'codespar_crypto_pay':
      return parseMajorAmount(input.amount, currency);
    case 'codespar_pay':
      return action === 'pay' && input.amount !== undefined ? fromMinorAmount(input.amount, currency) : null;
    case 'codespar_wallet':
      return action === 'receive' && input.amount !== undefined ? fromMinorAmount(input.amount, currency) : null;
    case 'codespar_checkout':
      return input.amount !== undefined ? parseMajorAmount(input.amount, currency) : itemsTotal(input.items, currency);
    default:
      return null;
  }
}

/** A cart's total from its lines (`quantity` × `unit_price` in major units), added up exactly. */
function itemsTotal(items: unknown, currency: string): ExactAmount | AmountProblem {
  if (!Array.isArray(items) || items.length === 0)
    return { message: 'amount is required when the items carry no prices' };
  let total = 0n;
  for (const [i, item] of items.entries()) {
    const line = item as Record<string, unknown>;
    const price = line.unit_price ?? line.price;
    const quantity = line.quantity ?? 1;
    if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity < 1)
      return { message: `items[${i}].quantity must be a whole number of at least 1` };
    const unit = parseMajorAmount(price, currency);
    if (isAmountProblem(unit)) return { message: `items[${i}].unit_price: ${unit.message}` };
    total += BigInt(unit.minor) * BigInt(quantity);
  }
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) return { message: 'the items add up to more than can be charged' };
  return fromMinorAmount(Number(total), currency);
}

/** The rail filter a call's own arguments imply. */
function selection(
  tool: ActingMetaTool,
  action: string,
  input: Record<string, unknown>,
  amount: ExactAmount | null,
): RouterSelectRequest {
  const req: RouterSelectRequest = { tool, action };
  const method =
    tool === 'codespar_charge' || tool === 'codespar_pay'
      ? input.method
      : tool === 'codespar_notify'
        ? input.channel
        : tool === 'codespar_invoice' && (input.type === 'nfe' || input.type === 'nfse' || input.type === 'invoice')
          ? input.type
          : undefined;
  // A refund goes back over the rail of its charge whatever method it was.
  if (typeof method === 'string' && !(tool === 'codespar_charge' && action === 'refund')) req.method = method;
  if (amount) {
    req.currency = amount.currency;
    req.amount_minor = amount.minor;
  }
  if (typeof input.country === 'string' && /^[A-Za-z]{2}$/.test(input.country))
    req.country = input.country.toUpperCase();
  return req;
}

/** The result field a follow-up names: a parcel is tracked by its tracking code, everything else by id. */
function objectRefOf(tool: ActingMetaTool, result: Record<string, unknown>): string | null {
  const ref = tool === 'codespar_ship' ? (result.tracking_code ?? result.id) : result.id;
  return typeof ref === 'string' && ref.length > 0 && ref.length <= 200 ? ref : null;
}

/** Provider-side trouble counts against a rail; a caller's own 4xx does not. */
function telemetryOf(
  result: CallDone['result'],
  notProcessed: readonly number[],
): { success: boolean; error_code?: string } | null {
  switch (result.kind) {
    case 'credentials':
      return null;
    case 'not_sent':
      return { success: false, error_code: `not_sent.${result.reason}` };
    case 'outcome_unknown':
      return { success: false, error_code: `outcome_unknown.${result.reason}`.slice(0, 64) };
    case 'response':
      if (result.status < 400) return { success: true };
      if (result.status >= 500 || result.status === 429 || notProcessed.includes(result.status))
        return { success: false, error_code: `upstream_${result.status}` };
      return null;
  }
}

/**
 * Acting meta-tools: each call is routed to a rail at execute time (the
 * router ranks the tenant's eligible rails as path C does, on current
 * telemetry), mapped to the rail's catalog tool by the rail's own data,
 * and sent with the provider-call bookkeeping raw tools use: the row is
 * `pending` before the first byte leaves, each further attempt is on the
 * row before it is sent, and a second rail is tried only when the first
 * provably never got the request or refused it as not processed.
 */
@Injectable()
export class RailsService {
  private readonly log;
  /** What a failed attempt costs in telemetry latency: a full provider deadline, so a failing rail never looks fast. */
  private readonly failureLatencyMs: number;
  /** The router's last first choice per kind of call (tenant, tool, action and filters): a hint for reading early, never a decision. */
  private readonly lastPicks = new Map<string, { provider_id: string; catalog_tool: string }>();

  constructor(
    @Inject(CONFIG) config: SessionConfig,
    private readonly rpc: RpcClient,
    private readonly providerCalls: ProviderCallsService,
    private readonly repo: ProviderCallsRepository,
  ) {
    this.log = createLogger('session', config.LOG_LEVEL);
    this.failureLatencyMs = config.ROTA_PROVIDER_TIMEOUT_MS;
  }

  async execute(a: RailCall): Promise<RailOutcome> {
    return this.perform(a, await this.plan(a));
  }

  /**
   * Everything before the first write: the amount, the follow-up's rail and
   * the router's choice. It only reads, so it may run alongside other
   * read-or-refuse checks and be dropped unused.
   */
  async plan(a: RailCall): Promise<RailPlan> {
    const action = actionOf(a.tool, a.input);
    const amount = amountOf(a.tool, action, a.input);
    if (amount && isAmountProblem(amount)) {
      return {
        kind: 'refused',
        code: 'invalid_args',
        message: `The amount is not valid: ${amount.message}.`,
        details: { issues: [{ path: ['amount'], message: amount.message, code: 'custom' }] },
      };
    }
    const req = selection(a.tool, action, a.input, amount);
    const refField = FOLLOW_UP_REFS[a.tool]?.[action];
    const ref = refField ? a.input[refField] : undefined;
    if (typeof ref === 'string' && ref.length > 0) {
      const railId = await this.repo.railForObject(a.tenant.project_id, a.tenant.environment, a.tool, ref);
      if (railId) {
        req.rail_id = railId;
        delete req.method;
        delete req.country;
      }
    }
    if (a.allowedProviders) req.providers = a.allowedProviders;
    // While the router decides, the provider it chose last time for this kind of call is read.
    const hintKey = JSON.stringify([a.tenant.project_id, a.tenant.environment, { ...req, amount_minor: undefined }]);
    const hint = this.lastPicks.get(hintKey);
    const early: EarlyPrepare | undefined = hint && {
      ...hint,
      read: this.providerCalls.prepare(a.tenant, hint.provider_id, hint.catalog_tool).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    };
    const picked = await this.rpc.send('router.select', req);
    if ('refusal' in picked) {
      const r = picked.refusal;
      if (r.code === 'not_allowed') return { kind: 'not_allowed', message: r.message };
      return {
        kind: 'not_sent',
        code: r.code,
        message: r.message,
        details: r.providers.length ? { connect: r.providers } : {},
      };
    }
    const top = picked.candidates[0];
    if (top) {
      if (this.lastPicks.size >= LAST_PICKS_MAX && !this.lastPicks.has(hintKey)) this.lastPicks.clear();
      this.lastPicks.set(hintKey, { provider_id: top.provider_id, catalog_tool: top.binding.catalog_tool });
    }
    const usable =
      early && top && early.provider_id === top.provider_id && early.catalog_tool === top.binding.catalog_tool;
    return { kind: 'ready', action, amount, candidates: picked.candidates, ...(usable ? { early } : {}) };
  }

  /** Runs a plan: a refusal is answered as it is; a ready one is written down and sent. */
  async perform(a: RailCall, plan: RailPlan): Promise<RailOutcome> {
    if (plan.kind !== 'ready') return plan;
    // Telemetry leaves once the call row is complete: sending it is a write of
    // its own, which has no business between the provider's answer and the
    // completion the caller waits for.
    const telemetry: Array<() => void> = [];
    try {
      return await this.run(a, plan.action, plan.amount, plan.candidates, telemetry, plan.early);
    } finally {
      for (const send of telemetry) send();
    }
  }

  private async run(
    a: {
      tool: ActingMetaTool;
      input: Record<string, unknown>;
      tenant: Tenant;
      sessionId: string | null;
      callerKey: string | null;
      caller?: RailKeyedCall | null;
      calledAt: Date;
    },
    action: string,
    amount: ExactAmount | null,
    candidates: RailCandidate[],
    telemetry: Array<() => void>,
    early?: EarlyPrepare,
  ): Promise<RailOutcome> {
    const id = this.repo.newCallId();
    const baseKey = providerIdempotencyKey(a.tenant, a.callerKey, id);
    const recordedInput = redactSecrets(a.input);
    const attempts: RailAttemptRecord[] = [];
    const started = performance.now();
    let written = false;
    let sent = 0;
    let last: {
      candidate: RailCandidate;
      result: CallDone['result'];
      steps: Record<string, StepAnswer>;
      secrets: string[];
    } | null = null;
    let skippedWhy: { code: ExecuteFailureCode; message: string; details?: Record<string, unknown> } | null = null;
    // A field every rail needs and the input lacks is the caller's to fill: refused before anything is written or sent.
    let unmet = 0;
    const today = new Date().toISOString().slice(0, 10);

    for (const [index, candidate] of candidates.entries()) {
      // Each rail gets its own key, stable for the call: two rails of one provider never share one.
      const providerKey = index === 0 ? baseKey : `${baseKey}-${shortHash(candidate.rail_id)}`;
      const binding = candidate.binding;
      const missing = missingRequirement(binding.requires, a.input);
      if (missing) {
        unmet++;
        attempts.push(skip(candidate, providerKey, `${missing.field} is required`));
        skippedWhy ??= {
          code: 'invalid_args',
          message: `${missing.field} is required for this call: ${missing.description}.`,
          details: {
            issues: [{ path: missing.field.split('.'), message: `required: ${missing.description}`, code: 'custom' }],
          },
        };
        continue;
      }
      const prepared =
        index === 0 && early
          ? await readEarly(early)
          : await this.providerCalls.prepare(a.tenant, candidate.provider_id, binding.catalog_tool);
      if ('kind' in prepared) {
        attempts.push(skip(candidate, providerKey, prepared.message));
        skippedWhy ??= { code: prepared.code, message: prepared.message };
        continue;
      }
      const context = {
        input: a.input,
        action,
        amount,
        idempotency_key: providerKey,
        idempotency_uuid: uuidFromKey(providerKey),
        today,
        steps: {} as Record<string, StepAnswer>,
      };
      const plan: Array<{ step: RailStep | null }> = [...binding.before.map((step) => ({ step })), { step: null }];

      // The first request is built before anything is written: a rail whose mapping cannot use these arguments is skipped.
      let first: ProviderRequest;
      try {
        first = await this.build(a.tenant, prepared, candidate, plan[0]!.step, context);
      } catch (err) {
        if (!(err instanceof MappingError) && !(err instanceof RequestBuildError)) throw err;
        attempts.push(skip(candidate, providerKey, err.message));
        skippedWhy ??= {
          code: 'invalid_args',
          message: `The arguments do not fill the provider request: ${err.message}`,
        };
        continue;
      }

      const attempt: RailAttemptRecord = {
        rail_id: candidate.rail_id,
        provider_id: candidate.provider_id,
        provider_idempotency_key: providerKey,
        outcome: 'sending',
      };
      // Written down before it is sent: the first attempt with the row, each further one appended to it.
      if (written) {
        // Past the deadline no further rail is tried: the row completes with the last attempt's answer.
        const deadline = requestContext.getStore()?.deadline;
        if (deadline !== undefined && Date.now() > deadline) break;
      } else {
        // Nothing written or sent yet: a late request is refused as never run.
        beforeDeadline();
      }
      if (!written) {
        const owned = await this.repo.insertPending(id, {
          sessionId: a.sessionId,
          projectId: a.tenant.project_id,
          environment: a.tenant.environment,
          tool: a.tool,
          server: candidate.provider_id,
          input: recordedInput,
          calledAt: a.calledAt,
          providerIdempotencyKey: baseKey,
          callerKey: a.caller?.key ?? null,
          rail: { railId: candidate.rail_id, attempt },
        });
        // A later request took the key over while this one stalled: it alone may send.
        if (!owned) throw new LostClaimError();
        written = true;
      } else {
        await this.repo.appendAttempt(id, attempt);
      }

      // Before-steps, then the main call. Only a failure before any byte was sent lets the next rail try.
      let result: CallDone['result'] | null = null;
      // Requests of this attempt that reached the provider, and whether the main (money) call did.
      let reached = 0;
      let mainReached = false;
      let latency = 0;
      let request: ProviderRequest | null = first;
      for (const { step } of plan) {
        if (!request) {
          try {
            request = await this.build(a.tenant, prepared, candidate, step, context);
          } catch (err) {
            if (!(err instanceof MappingError) && !(err instanceof RequestBuildError)) throw err;
            result = {
              kind: 'credentials',
              code: 'invalid_args',
              message: `The provider request could not be built: ${err.message}`,
            };
            break;
          }
        }
        const key = step ? `${providerKey}-${step.name}` : providerKey;
        const r = await this.providerCalls.sendOnce({
          tenant: a.tenant,
          server: candidate.provider_id,
          provider: prepared.provider,
          request,
          credentials: prepared.credentials,
          providerKey: key,
        });
        request = null;
        if ('durationMs' in r) latency += r.durationMs;
        if (r.kind === 'response' || r.kind === 'outcome_unknown') {
          reached++;
          if (!step) mainReached = true;
        }
        if (step && r.kind === 'response' && r.status < 300) {
          context.steps[step.name] = { status: r.status, body: r.body };
          continue;
        }
        // A before-step that failed after reaching the provider moved no money: the call fails as that answer.
        result =
          step && r.kind === 'outcome_unknown'
            ? {
                kind: 'credentials',
                code: 'upstream_unreachable',
                message: `A preparatory request got no answer (${r.reason}); no money was moved.`,
              }
            : r;
        break;
      }
      result ??= { kind: 'credentials', code: 'upstream_unreachable', message: 'No request was sent.' };
      if (result.kind === 'response' && result.status < 300) {
        for (const step of binding.after) {
          // Reads that complete the answer; losing one leaves a field out, never the call.
          try {
            const req = await this.build(a.tenant, prepared, candidate, step, {
              ...context,
              response: { status: result.status, body: result.body },
            });
            const r = await this.providerCalls.sendOnce({
              tenant: a.tenant,
              server: candidate.provider_id,
              provider: prepared.provider,
              request: req,
              credentials: prepared.credentials,
              providerKey: `${providerKey}-${step.name}`,
            });
            if (r.kind === 'response' && r.status < 300) context.steps[step.name] = { status: r.status, body: r.body };
          } catch (err) {
            if (!(err instanceof MappingError) && !(err instanceof RequestBuildError)) throw err;
          }
        }
      }
      last = { candidate, result, steps: context.steps, secrets: Object.values(prepared.credentials) };
      const notProcessed = binding.not_processed_statuses;
      const event = telemetryOf(result, notProcessed);
      const provider = candidate.provider_id;
      const measured = latency;
      telemetry.push(() => this.record(a.tool, provider, measured, event));
      const retryable =
        (!mainReached &&
          (result.kind === 'not_sent' || (result.kind === 'credentials' && result.code !== 'invalid_args'))) ||
        (result.kind === 'response' && notProcessed.includes(result.status));
      attempts.push({
        ...attempt,
        outcome:
          result.kind === 'response'
            ? retryable
              ? 'not_processed'
              : 'answered'
            : result.kind === 'outcome_unknown'
              ? 'outcome_unknown'
              : 'not_sent',
        upstream_status: result.kind === 'response' ? result.status : null,
        ...(result.kind === 'not_sent' || result.kind === 'outcome_unknown' ? { reason: result.reason } : {}),
        ...(result.kind === 'credentials' ? { reason: result.message } : {}),
        latency_ms: Math.round(latency * 100) / 100,
      });
      sent += reached;
      if (!retryable) break;
    }

    if (!written || !last) {
      // No rail could even be tried: nothing was written or sent.
      if (unmet === candidates.length && skippedWhy)
        return {
          kind: 'refused',
          code: skippedWhy.code,
          message: skippedWhy.message,
          details: skippedWhy.details ?? {},
        };
      const why = skippedWhy ?? { code: 'connection_required' as const, message: 'No rail could be called.' };
      return {
        kind: 'not_sent',
        code: why.code,
        message: why.message,
        details: { attempts: attempts.map(publicAttempt) },
      };
    }

    const { result } = last;
    const state = result.kind === 'outcome_unknown' ? 'outcome_unknown' : 'done';
    const row = completedRow(result, state);
    let success = row.success;
    let data: unknown;
    let error = row.error;
    let objectRef: string | null = null;
    if (result.kind === 'response' && success) {
      const mapped = await this.mapResult(a.tool, action, last.candidate, result, last.steps, a.input, amount);
      if (mapped.ok) {
        data = mapped.value;
        objectRef = objectRefOf(a.tool, mapped.value);
      } else {
        // The provider acted, but its answer does not read as this rail promised: say so, keep the raw answer on the row.
        success = false;
        error = 'The provider answered, but its answer could not be read; the call may have taken effect.';
        data = { code: 'upstream_invalid', message: error, upstream_status: result.status };
        this.log.warn(
          { rail_id: last.candidate.rail_id, tool: a.tool, action, reason: mapped.reason },
          'rail result mapping failed',
        );
      }
    } else {
      const names = [...new Set(candidates.map((c) => c.provider_id))];
      const failed = failureData(result, state, attempts, names, last.secrets);
      if (failed.code === 'provider_refused' || failed.code === 'connection_invalid') error = failed.message;
      data = failed;
    }
    const durationMs = Math.round(performance.now() - started);
    const outcome: Extract<RailOutcome, { kind: 'called' }> = {
      kind: 'called',
      toolCallId: id,
      state,
      success,
      data,
      error,
      sentNothing: sent === 0,
    };
    const finish: KeyFinish | undefined = a.caller ? { key: a.caller.key, ...a.caller.answer(outcome) } : undefined;
    await this.repo.completeRail(
      id,
      {
        ...row,
        success,
        error,
        durationMs,
        attempts: sent,
        server: last.candidate.provider_id,
        railId: last.candidate.rail_id,
        objectRef,
        attemptLog: attempts,
      },
      finish,
    );
    return outcome;
  }

  /** One provider request of a rail: the main call (`step` null) or one of its steps. */
  private async build(
    tenant: Tenant,
    prepared: Prepared,
    candidate: RailCandidate,
    step: RailStep | null,
    context: Record<string, unknown>,
  ): Promise<ProviderRequest> {
    let tool = prepared.provider.tool;
    if (step) {
      const other = await this.repo.providerForCall(candidate.provider_id, tenant.project_id, step.catalog_tool);
      tool = other?.tool ?? null;
    }
    const name = step ? step.catalog_tool : candidate.binding.catalog_tool;
    if (!tool?.httpMethod || !tool.endpointTemplate)
      throw new MappingError(`the catalog gives no method and endpoint for ${candidate.provider_id}/${name}`);
    const toolInput = await evaluate(step ? step.request : candidate.binding.request, context);
    if (toolInput === null || typeof toolInput !== 'object' || Array.isArray(toolInput))
      throw new MappingError('the rail mapping did not produce an object');
    return buildRequest({
      baseUrl: prepared.baseUrl,
      method: tool.httpMethod,
      endpointTemplate: tool.endpointTemplate,
      parameters: tool.parameters ?? undefined,
      input: toolInput as Record<string, unknown>,
    });
  }

  private async mapResult(
    tool: ActingMetaTool,
    action: string,
    candidate: RailCandidate,
    response: Extract<CallResult, { kind: 'response' }>,
    steps: Record<string, StepAnswer>,
    input: Record<string, unknown>,
    amount: ExactAmount | null,
  ): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; reason: string }> {
    let value: unknown;
    try {
      value = await evaluate(candidate.binding.result, {
        response: { status: response.status, body: response.body },
        steps,
        input,
        action,
        amount,
      });
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
    const schema = resultSchema(tool, action);
    const checked = schema?.safeParse(value);
    if (!checked?.success)
      return {
        ok: false,
        reason: checked
          ? checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
          : 'no result schema',
      };
    return { ok: true, value: checked.data as Record<string, unknown> };
  }

  /** Telemetry goes to the router without holding up the answer; losing one event only blurs a ranking. */
  private record(
    tool: ActingMetaTool,
    provider: string,
    measured: number,
    t: { success: boolean; error_code?: string } | null,
  ) {
    if (!t) return;
    // A refused connection or an open circuit fails in microseconds; counted as such it would make the failing rail the fastest.
    const latency = t.success ? measured : Math.max(measured, this.failureLatencyMs);
    this.rpc
      .send('router.record', {
        provider_id: provider,
        tool,
        success: t.success,
        latency_ms: Math.max(0, Math.min(latency, 600_000)),
        ...(t.error_code ? { error_code: t.error_code } : {}),
      })
      .catch((err: unknown) => this.log.warn({ err, provider_id: provider, tool }, 'router telemetry not recorded'));
  }
}

async function readEarly(early: EarlyPrepare): Promise<PrepareOutcome> {
  const read = await early.read;
  if ('error' in read) throw read.error;
  return read.value;
}

/**
 * The idempotency key as a UUID, for providers whose idempotent field must
 * be one (Wise's `customerTransactionId`): the same key always gives the
 * same UUID, shaped as version 4 so strict validators take it.
 */
export function uuidFromKey(key: string): string {
  const h = createHash('sha256').update(key).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function shortHash(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 8);
}

function skip(candidate: RailCandidate, key: string, reason: string): RailAttemptRecord {
  return {
    rail_id: candidate.rail_id,
    provider_id: candidate.provider_id,
    provider_idempotency_key: key,
    outcome: 'skipped',
    reason: reason.slice(0, 300),
  };
}

/** What the agent may see of an attempt: how it went, never which provider. */
function publicAttempt(a: RailAttemptRecord) {
  return { outcome: a.outcome, ...(a.upstream_status ? { upstream_status: a.upstream_status } : {}) };
}

/**
 * The `data` of a failed acting call. A 4xx the caller can act on is
 * `provider_refused` with a normalised reason and the provider's words
 * scrubbed of its name, credentials and ids (the raw answer stays on the
 * row); a refused credential is `connection_invalid`; 408, 429, 5xx and
 * network failures stay `upstream_error` / `outcome_unknown`.
 */
function failureData(
  result: CallDone['result'],
  state: 'done' | 'outcome_unknown',
  attempts: RailAttemptRecord[],
  providerIds: readonly string[],
  secrets: readonly string[],
): { code: ExecuteFailureCode; message: string; attempts: number; [k: string]: unknown } {
  const tried = attempts.filter((x) => x.outcome !== 'skipped').length;
  if (result.kind === 'credentials') return { code: result.code, message: result.message, attempts: tried };
  const failure = failureOf(result)!;
  if (result.kind === 'response') {
    switch (answerClass(result.status)) {
      case 'refused':
        return { ...providerRefusal(result.status, result.body, providerIds, secrets), attempts: tried };
      case 'credentials':
        return {
          code: 'connection_invalid',
          message: `The provider refused the stored credentials (status ${result.status}). Reconnect it with codespar_manage_connections.`,
          upstream_status: result.status,
          attempts: tried,
        };
      default:
        return {
          code: failure.code,
          message: `The provider refused the request (status ${result.status}).`,
          upstream_status: result.status,
          attempts: tried,
        };
    }
  }
  return {
    code: state === 'outcome_unknown' ? 'outcome_unknown' : failure.code,
    message: failure.message,
    attempts: tried,
  };
}
