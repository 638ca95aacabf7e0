import { createHash } from 'node:crypto';
import { API_KEY_PATTERN, AppError, OPERATOR_SCOPES, SCOPES, type Environment, type Scope } from '@rota/contracts';
import { Prisma, type PrismaClient } from './client';
import { mapPrismaError } from './errors';
import { newId, randomBase62 } from './ids';

/** Characters of the plain key kept for display (`csk_live_abc`). */
export const API_KEY_PREFIX_LENGTH = 12;
const SECRET_LENGTH = 32;

/** A fresh plain-text key: `csk_<env>_<32 base62 characters>`. */
export function generateApiKey(env: Environment): string {
  return `csk_${env}_${randomBase62(SECRET_LENGTH)}`;
}

/** sha256 hex of the whole key; the only form of a key that is stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The scopes in `scopes` that are not known scope names. */
export function unknownScopes(scopes: readonly string[]): string[] {
  return scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
}

/**
 * Why a key with these scopes cannot be made: `admin` belongs to operator
 * keys only, and an operator key carries `admin` and nothing a project route
 * needs. Null when the scopes fit.
 */
export function scopeProblem(scopes: readonly string[], operator: boolean): string | null {
  const unknown = unknownScopes(scopes);
  if (unknown.length) return `Unknown scopes: ${unknown.join(', ')}`;
  if (!operator) return scopes.includes('admin') ? "Only operator keys may carry the 'admin' scope (create one with --operator)." : null;
  const foreign = scopes.filter((s) => !(OPERATOR_SCOPES as readonly string[]).includes(s));
  if (foreign.length)
    return `Operator keys act on the deployment, not on a project: they may carry only ${OPERATOR_SCOPES.join(', ')} (not ${foreign.join(', ')}).`;
  return scopes.includes('admin') ? null : "An operator key always carries the 'admin' scope.";
}

/**
 * A project key (`projectId` and `environment`), or an operator key
 * (`operator: true`): no project, no environment, the only kind that may
 * carry `admin`.
 */
export type CreateApiKeyInput =
  | { operator?: false; projectId: string; environment: Environment; scopes: readonly Scope[]; name?: string | null }
  | { operator: true; scopes: readonly Scope[]; name?: string | null };

/** What `create` returns. `key` is shown once and never again. */
export interface CreatedApiKey {
  id: string;
  key: string;
  prefix: string;
  scopes: Scope[];
  /** Null for an operator key. */
  environment: Environment | null;
  /** Null for an operator key. */
  projectId: string | null;
}

/** A key as listings show it: no hash, no secret. */
export interface ApiKeySummary {
  id: string;
  /** Null for an operator key. */
  projectId: string | null;
  environment: Environment | null;
  name: string | null;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** The identity an accepted key grants: a project's environment, or (all three null) the deployment. */
export interface ApiKeyPrincipal {
  id: string;
  projectId: string | null;
  orgId: string | null;
  environment: Environment | null;
  scopes: string[];
}

const SUMMARY_SELECT = {
  id: true,
  projectId: true,
  environment: true,
  name: true,
  prefix: true,
  scopes: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const satisfies Prisma.ApiKeySelect;

/** Only writes `last_used_at` when it is older than this, to keep hot keys from turning every request into a write. */
const TOUCH_INTERVAL = '1 minute';

export class ApiKeyRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async create(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const unknown = unknownScopes(input.scopes);
    if (unknown.length) throw new AppError('invalid_body', `Unknown scopes: ${unknown.join(', ')}`, { unknown });
    const problem = scopeProblem(input.scopes, input.operator === true);
    if (problem) throw new AppError('forbidden', problem);
    const projectId = input.operator ? null : input.projectId;
    const environment = input.operator ? null : input.environment;
    // Operator keys use the live form: the pattern every client already knows.
    const key = generateApiKey(environment ?? 'live');
    const scopes = [...new Set(input.scopes)];
    try {
      const row = await this.prisma.apiKey.create({
        data: {
          id: newId('key'),
          projectId,
          environment,
          name: input.name ?? null,
          prefix: key.slice(0, API_KEY_PREFIX_LENGTH),
          keyHash: hashApiKey(key),
          scopes,
        },
        select: { id: true, prefix: true, projectId: true, environment: true },
      });
      return { ...row, key, scopes };
    } catch (err) {
      throw mapPrismaError(err, `project ${projectId}`);
    }
  }

  /** Keys of one project, the operator keys (`null`), or every key, newest first. */
  async list(projectId?: string | null): Promise<ApiKeySummary[]> {
    return this.prisma.apiKey.findMany({
      where: projectId === undefined ? {} : { projectId },
      select: SUMMARY_SELECT,
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    });
  }

  /** Marks a key revoked. Revoking twice keeps the first time. */
  async revoke(id: string): Promise<ApiKeySummary> {
    await this.prisma.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    const row = await this.prisma.apiKey.findUnique({ where: { id }, select: SUMMARY_SELECT });
    if (!row) throw new AppError('not_found', `API key ${id} not found`);
    return row;
  }

  /**
   * Resolves a plain key to its principal, or null when the key is malformed,
   * unknown or revoked. One lookup on the unique hash index.
   */
  async findActiveByKey(plainKey: string): Promise<ApiKeyPrincipal | null> {
    if (!API_KEY_PATTERN.test(plainKey)) return null;
    // An operator key has no project: the LEFT JOIN keeps it, with a null org.
    const rows = await this.prisma.$queryRaw<
      Array<{ id: string; project_id: string | null; org_id: string | null; environment: Environment | null; scopes: string[] }>
    >(
      Prisma.sql`
        SELECT k.id, k.project_id, p.org_id, k.environment::text AS environment, k.scopes
          FROM api_keys k
          LEFT JOIN projects p ON p.id = k.project_id
         WHERE k.key_hash = ${hashApiKey(plainKey)}
           AND k.revoked_at IS NULL
         LIMIT 1`,
    );
    const row = rows[0];
    if (!row) return null;
    return { id: row.id, projectId: row.project_id, orgId: row.org_id, environment: row.environment, scopes: row.scopes ?? [] };
  }

  /** Records that a key was used; cheap to call on every request. */
  async touch(id: string): Promise<void> {
    await this.prisma.$executeRaw(
      Prisma.sql`
        UPDATE api_keys SET last_used_at = now()
         WHERE id = ${id}
           AND (last_used_at IS NULL OR last_used_at < now() - ${TOUCH_INTERVAL}::interval)`,
    );
  }
}
