import { z } from 'zod';
import { Environment } from './tenant';

/**
 * The health rollup (`GET /v1/health`, `GET /v1/health/history`): six checks,
 * each run under its own budget, rolled up into one status.
 *
 * - `database` and `credentials` decide `down`: without them nothing runs.
 * - `embeddings`, `fx`, `telemetry` and `connections` off nominal make it
 *   `degraded`: Rota works, with reduced quality.
 *
 * The first four are deployment-wide; `telemetry` and `connections` belong to
 * the key's project and environment (an operator key, which has no project,
 * gets the deployment-wide four).
 */

export const HEALTH_STATUSES = ['healthy', 'degraded', 'down'] as const;
export const HealthStatus = z
  .enum(HEALTH_STATUSES)
  .describe('`down`: the database or the credential store fails; `degraded`: another check is off nominal.');
export type HealthStatus = z.infer<typeof HealthStatus>;

/** Who a check speaks for. */
export const HealthScope = z.enum(['deployment', 'project']);
export type HealthScope = z.infer<typeof HealthScope>;

const CheckBase = z.object({
  ok: z.boolean().describe('Whether the check is nominal.'),
  scope: HealthScope,
  ms: z.number().int().nonnegative().describe('Time the check took.'),
  message: z.string().optional().describe('What is off, when something is.'),
});

const count = z.number().int().nonnegative().nullable();
const at = z.string().nullable();

export const DatabaseCheck = CheckBase.extend({ status: z.enum(['up', 'down']) });
export const CredentialsCheck = CheckBase.extend({
  status: z
    .enum(['up', 'down'])
    .describe(
      '`up` when a canary sealed with the current key opens again, and the stored credentials are all sealed with keys the keyring holds.',
    ),
  key_id: z.string().nullable().describe('Id of the key that seals new credentials.'),
});
export const EmbeddingsCheck = CheckBase.extend({
  status: z
    .enum(['ok', 'low', 'empty', 'unknown'])
    .describe('`empty`: no catalog tool has a vector; `low`: under 50 % have one; `unknown`: the check could not run.'),
  model: z.string(),
  tools: count,
  embedded: count,
  coverage: z.number().min(0).max(1).nullable(),
});
export const FxCheck = CheckBase.extend({
  status: z
    .enum(['fresh', 'stale', 'missing', 'not_configured', 'unknown'])
    .describe(
      '`stale`: a currency pair was last fetched more than 72 hours ago; `missing`: a source is configured and no rate is stored; `not_configured`: no source and no rate (nominal: the deployment does not use FX).',
    ),
  source_configured: z.boolean(),
  pairs: count,
  stale_pairs: count,
  oldest_fetched_at: at,
});
export const TelemetryCheck = CheckBase.extend({
  status: z
    .enum(['active', 'idle', 'no_connections', 'unknown'])
    .describe(
      '`idle`: the project has connections and made no provider attempt in 24 hours; `no_connections`: nothing to measure (nominal).',
    ),
  attempts_24h: count,
  last_attempt_at: at,
});
export const ConnectionsCheck = CheckBase.extend({
  status: z
    .enum(['none', 'partial', 'wired', 'unknown'])
    .describe('`none`: no provider connected; `partial`: 1 or 2; `wired`: 3 or more (nominal).'),
  count,
  providers: z.array(z.string()),
});

export type DatabaseCheck = z.infer<typeof DatabaseCheck>;
export type CredentialsCheck = z.infer<typeof CredentialsCheck>;
export type EmbeddingsCheck = z.infer<typeof EmbeddingsCheck>;
export type FxCheck = z.infer<typeof FxCheck>;
export type TelemetryCheck = z.infer<typeof TelemetryCheck>;
export type ConnectionsCheck = z.infer<typeof ConnectionsCheck>;

export const HealthChecks = z.object({
  database: DatabaseCheck,
  credentials: CredentialsCheck,
  embeddings: EmbeddingsCheck,
  fx: FxCheck,
  telemetry: TelemetryCheck.optional().describe('Absent for an operator key.'),
  connections: ConnectionsCheck.optional().describe('Absent for an operator key.'),
});
export type HealthChecks = z.infer<typeof HealthChecks>;
export type HealthCheckName = keyof HealthChecks;
export type AnyHealthCheck = NonNullable<HealthChecks[HealthCheckName]>;

/** Checks whose failure means `down`. */
export const CRITICAL_HEALTH_CHECKS = ['database', 'credentials'] as const satisfies readonly HealthCheckName[];

/** The status a set of checks rolls up to. */
export function rollUpHealth(checks: Partial<HealthChecks>): HealthStatus {
  if (CRITICAL_HEALTH_CHECKS.some((name) => checks[name] && !checks[name].ok)) return 'down';
  return Object.values(checks).every((c) => !c || c.ok) ? 'healthy' : 'degraded';
}

/** `GET /v1/health`. */
export const HealthReport = z.object({
  status: HealthStatus,
  evaluated_at: z.string(),
  project_id: z.string().nullable().describe('The key’s project; null for an operator key.'),
  environment: Environment.nullable(),
  checks: HealthChecks,
});
export type HealthReport = z.infer<typeof HealthReport>;

export const HealthHistoryQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z
      .string()
      .regex(/^[0-9]{1,18}$/)
      .optional()
      .describe('`next_cursor` of the previous page.'),
    scope: z
      .enum(['deployment', 'project', 'all'])
      .default('all')
      .describe('Deployment-wide snapshots, the project’s, or both.'),
    transitions: z
      .enum(['true', 'false'])
      .optional()
      .describe('`true`: only snapshots that changed the stored status.'),
  })
  .strict();
export type HealthHistoryQuery = z.infer<typeof HealthHistoryQuery>;

/** One stored evaluation of one scope: its own checks and the status they roll up to. */
export const HealthSnapshot = z.object({
  id: z.string(),
  scope: HealthScope,
  project_id: z.string().nullable(),
  environment: Environment.nullable(),
  status: HealthStatus,
  previous_status: HealthStatus.nullable().describe(
    'Set when this evaluation changed the stored status (and emitted an event).',
  ),
  checks: HealthChecks.partial(),
  evaluated_at: z.string(),
});
export type HealthSnapshot = z.infer<typeof HealthSnapshot>;

export const HealthHistory = z.object({
  snapshots: z.array(HealthSnapshot).describe('Newest first.'),
  next_cursor: z.string().nullable(),
});
export type HealthHistory = z.infer<typeof HealthHistory>;

/** `worker.health`: evaluate now (the tenant comes from the envelope; none for an operator). */
export const HealthEvaluateCommand = z.object({}).strict();
export type HealthEvaluateCommand = z.infer<typeof HealthEvaluateCommand>;
export const HealthHistoryCommand = HealthHistoryQuery;
export type HealthHistoryCommand = z.infer<typeof HealthHistoryCommand>;

/** `session.credentials.check`: the credential store's canary. */
export const CredentialsCheckCommand = z.object({}).strict();
export type CredentialsCheckCommand = z.infer<typeof CredentialsCheckCommand>;
export const CredentialsCheckResult = z.object({
  ok: z.boolean(),
  key_id: z.string(),
  message: z.string().optional(),
});
export type CredentialsCheckResult = z.infer<typeof CredentialsCheckResult>;
