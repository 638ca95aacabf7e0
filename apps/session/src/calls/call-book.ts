import { Inject, Injectable } from '@nestjs/common';
import {
  AppError,
  type ExecuteCommand,
  type ExecuteFailureCode,
  type ExecuteResult,
  type Tenant,
} from '@rota/contracts';
import { beforeDeadline, CONFIG, LOGGER, type Logger } from '@rota/service-kit';
import type { SessionConfig } from '../config';
import { answerFromKey, claimKey } from './idempotency';
import { IdempotencyRepository, type ClaimedKey, type KeyRef } from './idempotency.repository';
import { requestHash } from './request-hash';
import { ToolCallsRepository } from './tool-calls.repository';

/** Outputs larger than this are recorded as their size only: the call row is an audit line, not a cache. */
export const RECORDED_OUTPUT_MAX_BYTES = 16 * 1024;

function recordedOutput(data: unknown): unknown {
  if (data === null || data === undefined) return null;
  const bytes = Buffer.byteLength(JSON.stringify(data));
  return bytes > RECORDED_OUTPUT_MAX_BYTES ? { omitted: true, bytes } : data;
}

export const failureData = (code: ExecuteFailureCode, message: string, extra: Record<string, unknown> = {}) => ({
  code,
  message,
  ...extra,
});

/** How an execute call ended, for its row and its key. */
export interface Finished {
  key: ClaimedKey | null;
  result: ExecuteResult;
  /**
   * The row a provider call already wrote (and linked the key to), how it
   * ended, and whether its completion gave the key back (nothing was sent).
   */
  written?: { toolCallId: string; state: 'done' | 'outcome_unknown'; keyForgotten: boolean };
  /** Provably never sent (no rail could be tried): the row is written without the key, and the key is given back. */
  giveKeyBack?: boolean;
  /** What the row records when this call writes it. */
  row: {
    sessionId: string | null;
    tenant: Tenant;
    server: string | null;
    input: unknown;
    data: unknown;
    durable: boolean;
  };
}

/**
 * The bookkeeping of an execute call, around whatever runs it: the caller's
 * idempotency key (claim, replay, release, finish) and the call row.
 */
@Injectable()
export class CallBook {
  constructor(
    @Inject(CONFIG) private readonly config: SessionConfig,
    private readonly idempotency: IdempotencyRepository,
    private readonly rows: ToolCallsRepository,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  /**
   * Claims the caller's key, right after the gateway's authentication and
   * body validation: a repeat of a finished call gets its stored answer.
   */
  async claim(cmd: ExecuteCommand, tenant: Tenant): Promise<{ key: ClaimedKey | null; replay: ExecuteResult | null }> {
    const ref: KeyRef | null = cmd.idempotency_key ? { tenant, key: cmd.idempotency_key } : null;
    if (!ref) return { key: null, replay: null };
    const decision = await claimKey(this.idempotency, ref, requestHash(cmd));
    return decision.run
      ? { key: decision.key, replay: null }
      : { key: null, replay: decision.response as ExecuteResult };
  }

  /**
   * The answer of a request whose claim a later one took over while it
   * stalled before writing (`LostClaimError`): it sent nothing, and answers
   * from the key as a repeat would.
   */
  async answerLost(key: KeyRef, cmd: ExecuteCommand): Promise<ExecuteResult> {
    const decision = await answerFromKey(this.idempotency, key, requestHash(cmd));
    return decision.response as ExecuteResult;
  }

  /** Gives the key back after a refusal that ran nothing, so a retry is checked afresh. */
  async release(key: ClaimedKey | null): Promise<void> {
    if (!key) return;
    await this.idempotency
      .release(key)
      .catch((e: unknown) =>
        this.log.warn({ err: e }, 'could not release an idempotency key; it frees itself past its deadline'),
      );
  }

  /** The org's monthly quota (403 `quota_exceeded`), only when enforced. */
  async checkQuota(tenant: Tenant): Promise<void> {
    if (!this.config.ROTA_QUOTA_ENFORCE) return;
    const usage = await this.rows.usage(tenant.org_id);
    if (!usage) return;
    const limit = usage.quotaMonthlyCalls ?? this.config.ROTA_QUOTA_DEFAULT_MONTHLY_CALLS;
    if (usage.used >= limit) {
      throw new AppError('quota_exceeded', `The org has used its ${limit} tool calls for this month.`, {
        plan: usage.plan,
        limit,
        used: usage.used,
      });
    }
  }

  /** A fresh call-row id, for a result that names its row before the row is written. */
  newCallId(): string {
    return this.rows.newCallId();
  }

  /** A refusal that writes no call row; a repeat with the same idempotency key gets it again. */
  async unrecorded(
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

  /** Writes the call's row (unless a provider call wrote it), stores the answer under the key and logs the call. */
  async finish({ key, result, written, giveKeyBack, row }: Finished): Promise<void> {
    if (written) {
      // The provider call wrote its row (and linked the key to it) before it
      // sent anything, and the statement that completed it stored the answer
      // in the key (or gave the key back when nothing was sent).
      if (key && written.keyForgotten) await this.idempotency.forgetMarker(key);
    } else if (result.tool_call_id) {
      // Past the deadline the caller has been told the outcome is unknown;
      // what dispatch ran so far only read, so nothing is written and the
      // answer can honestly be `unavailable`.
      beforeDeadline();
      // Provably never sent: the row is the record, and the key is free for a retry (one rule on every channel).
      const keep = key && !giveKeyBack ? key : null;
      await this.rows.recordCall({
        id: result.tool_call_id,
        idempotency: keep
          ? { orgId: keep.tenant.org_id, key: keep.key, claim: keep.claim, state: 'done', response: result }
          : undefined,
        sessionId: row.sessionId,
        projectId: row.tenant.project_id,
        environment: row.tenant.environment,
        tool: result.tool,
        server: row.server,
        input: row.input,
        output: recordedOutput(row.data),
        success: result.success,
        error: result.error,
        durationMs: Math.round(result.duration),
        calledAt: new Date(result.called_at),
        durable: row.durable,
      });
      if (key && giveKeyBack) await this.idempotency.forget(key);
    } else if (key) {
      await this.idempotency.finish(key, 'done', result);
    }
    // One line per dispatched call; arguments and outputs stay in the call row, never in logs.
    this.log.info(
      {
        session_id: row.sessionId,
        project_id: row.tenant.project_id,
        tool: result.tool,
        server: row.server,
        success: result.success,
        duration_ms: result.duration,
        tool_call_id: result.tool_call_id,
      },
      'tool call',
    );
  }
}
