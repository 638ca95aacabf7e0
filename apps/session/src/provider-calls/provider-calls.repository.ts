import { Inject, Injectable } from '@nestjs/common';
import type { Environment } from '@rota/contracts';
import { CatalogRepository, type ProviderForCall } from '@rota/catalog/repository';
import { namedStatement, newId, type PrismaClient, type SqlPool } from '@rota/db';
import { PRISMA, SQL_POOL } from '@rota/service-kit';

/**
 * The first write of a provider call: the row, `pending`, before anything is
 * sent; with a caller's idempotency key, the key takes the row's id in the
 * same statement (one transaction). Always durable: this row is what stands
 * between a crash and a charge nobody knows about.
 */
const INSERT_PENDING = namedStatement(`
  WITH call AS (
    INSERT INTO session_tool_calls (id, session_id, project_id, environment, tool, server, input, success, duration_ms, called_at, state, attempts, provider_idempotency_key)
    VALUES ($1::text, $2::text, $3::text, $4::environment, $5::text, $6::text, $7::jsonb, false, 0, $8::timestamptz, 'pending', 0, $9::text)
    RETURNING id)
  UPDATE idempotency_keys SET tool_call_id = (SELECT id FROM call)
  WHERE $10::text IS NOT NULL AND org_id = $10::text AND project_id = $3::text AND environment = $4::environment AND key = $11::text`);

const COMPLETE = namedStatement(`
  UPDATE session_tool_calls
  SET state = $2::text, success = $3::boolean, output = $4::jsonb, error = $5::text, duration_ms = $6::int,
      upstream_status = $7::int, attempts = $8::int, bytes_in = $9::int, bytes_out = $10::int
  WHERE id = $1::text AND state = 'pending'`);

export interface PendingCall {
  sessionId: string | null;
  projectId: string;
  environment: Environment;
  tool: string;
  server: string;
  /** Already redacted. */
  input: unknown;
  calledAt: Date;
  providerIdempotencyKey: string;
  /** The caller's key, linked to the row in the same statement. */
  callerKey: { orgId: string; key: string } | null;
}

export interface CompletedCall {
  state: 'done' | 'outcome_unknown';
  success: boolean;
  output: unknown;
  error: string | null;
  durationMs: number;
  upstreamStatus: number | null;
  attempts: number;
  bytesIn: number | null;
  bytesOut: number | null;
}

/** What provider calls read from the catalog and write as call rows. */
@Injectable()
export class ProviderCallsRepository {
  private readonly catalog: CatalogRepository;

  constructor(
    @Inject(PRISMA) prisma: PrismaClient,
    @Inject(SQL_POOL) private readonly sql: SqlPool,
  ) {
    this.catalog = new CatalogRepository(prisma);
  }

  /** The provider (its own before a global one) and optionally one tool, as the project sees them. */
  providerForCall(serverId: string, projectId: string, toolName?: string): Promise<ProviderForCall | null> {
    return this.catalog.providerForCall(serverId, projectId, toolName);
  }

  newCallId(): string {
    return newId('tc');
  }

  async insertPending(id: string, call: PendingCall): Promise<void> {
    await this.sql.query({
      ...INSERT_PENDING,
      values: [
        id,
        call.sessionId,
        call.projectId,
        call.environment,
        call.tool,
        call.server,
        JSON.stringify(call.input),
        call.calledAt,
        call.providerIdempotencyKey,
        call.callerKey?.orgId ?? null,
        call.callerKey?.key ?? null,
      ],
    });
  }

  async complete(id: string, c: CompletedCall): Promise<void> {
    await this.sql.query({
      ...COMPLETE,
      values: [
        id,
        c.state,
        c.success,
        c.output === undefined ? null : JSON.stringify(c.output),
        c.error,
        c.durationMs,
        c.upstreamStatus,
        c.attempts,
        c.bytesIn,
        c.bytesOut,
      ],
    });
  }
}
