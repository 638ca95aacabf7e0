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
  if (!operator)
    return scopes.includes('admin')
      ? "Only operator keys may carry the 'admin' scope (create one with --operator)."
      : null;
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
  | {
      operator?: false;
      projectId: string;
      environment: Environment;
      scopes: readonly Scope[];
      name?: string | null;
      expiresAt?: Date | null;
    }
  | { operator: true; scopes: readonly Scope[]; name?: string | null; expiresAt?: Date | null };

/** A short-lived child of `parentId`: same project and environment, at most its scopes, bound if asked. */
export interface CreateChildKeyInput {
  parentId: string;
  scopes: readonly Scope[];
  /** Seconds from now; capped at the parent's own expiry. */
  expiresInS: number;
  sessionId?: string | null;
  userId?: string | null;
  name?: string | null;
}

/** What `createChild` returns. `key` is shown once and never again. */
export interface CreatedChildKey {
  id: string;
  key: string;
  prefix: string;
  name: string | null;
  scopes: Scope[];
  projectId: string;
  environment: Environment;
  parentId: string;
  sessionId: string | null;
  userId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

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
  expiresAt: Date | null;
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
  expiresAt: Date | null;
  /** The key that minted it (`POST /v1/keys`), or null. */
  parentId: string | null;
  sessionId: string | null;
  userId: string | null;
}

/** The identity an accepted key grants: a project's environment, or (all three null) the deployment. */
export interface ApiKeyPrincipal {
  id: string;
  projectId: string | null;
  orgId: string | null;
  environment: Environment | null;
  scopes: string[];
  /** When the key stops working; null for a key without an expiry. */
  expiresAt?: Date | null;
  /** Set on a session-bound child key. */
  sessionId?: string | null;
  /** Set on a user-bound child key. */
  userId?: string | null;
  /** Set on a child key: the key that minted it. */
  parentId?: string | null;
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
  expiresAt: true,
  parentId: true,
  sessionId: true,
  userId: true,
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
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now())
      throw new AppError('invalid_body', 'The expiry must be in the future.');
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
          expiresAt: input.expiresAt ?? null,
        },
        select: { id: true, prefix: true, projectId: true, environment: true, expiresAt: true },
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

  /**
   * Mints a child of an active, unexpired project key, in one statement: the
   * parent's row decides project, environment and the latest expiry, and a
   * parent that is revoked, expired, an operator key, or lacks one of the
   * scopes yields no row (null). The caller checks the request against the
   * parent it verified; this statement holds the same line against a parent
   * revoked in between.
   */
  async createChild(input: CreateChildKeyInput): Promise<CreatedChildKey | null> {
    const unknown = unknownScopes(input.scopes);
    if (unknown.length) throw new AppError('invalid_body', `Unknown scopes: ${unknown.join(', ')}`, { unknown });
    if (input.scopes.includes('keys:write') || input.scopes.includes('admin'))
      throw new AppError('forbidden', 'A child key never carries keys:write or admin.');
    const scopes = [...new Set(input.scopes)];
    const id = newId('key');
    const rows = await this.prisma.$queryRaw<Array<{ environment: Environment }>>(
      Prisma.sql`SELECT environment::text AS environment FROM api_keys WHERE id = ${input.parentId} AND project_id IS NOT NULL`,
    );
    const environment = rows[0]?.environment;
    if (!environment) return null;
    const key = generateApiKey(environment);
    const inserted = await this.prisma.$queryRaw<
      Array<{
        project_id: string;
        environment: Environment;
        created_at: Date;
        expires_at: Date;
        scopes: string[];
        name: string | null;
      }>
    >(
      Prisma.sql`
        INSERT INTO api_keys (id, project_id, environment, name, prefix, key_hash, scopes, parent_id, expires_at, session_id, user_id)
        SELECT ${id}, p.project_id, p.environment, ${input.name ?? null}, ${key.slice(0, API_KEY_PREFIX_LENGTH)}, ${hashApiKey(key)},
               ${scopes}::text[], p.id,
               LEAST(now() + make_interval(secs => ${input.expiresInS}), COALESCE(p.expires_at, 'infinity'::timestamptz)),
               ${input.sessionId ?? null}, ${input.userId ?? null}
          FROM api_keys p
         WHERE p.id = ${input.parentId}
           AND p.project_id IS NOT NULL
           AND p.parent_id IS NULL
           AND p.revoked_at IS NULL
           AND (p.expires_at IS NULL OR p.expires_at > now())
           AND p.scopes @> ${scopes}::text[]
        RETURNING project_id, environment::text AS environment, created_at, expires_at, scopes, name`,
    );
    const row = inserted[0];
    if (!row) return null;
    return {
      id,
      key,
      prefix: key.slice(0, API_KEY_PREFIX_LENGTH),
      name: row.name,
      scopes: row.scopes as Scope[],
      projectId: row.project_id,
      environment: row.environment,
      parentId: input.parentId,
      sessionId: input.sessionId ?? null,
      userId: input.userId ?? null,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  /**
   * Marks a key and every key it minted revoked. Revoking twice keeps the
   * first time. (Children stop working at once anyway: the lookup refuses a
   * child whose parent is revoked.)
   */
  async revoke(id: string): Promise<ApiKeySummary> {
    await this.prisma.$executeRaw(
      Prisma.sql`
        WITH RECURSIVE tree AS (
          SELECT id FROM api_keys WHERE id = ${id}
          UNION
          SELECT k.id FROM api_keys k JOIN tree t ON k.parent_id = t.id
        )
        UPDATE api_keys SET revoked_at = now() WHERE id IN (SELECT id FROM tree) AND revoked_at IS NULL`,
    );
    const row = await this.prisma.apiKey.findUnique({ where: { id }, select: SUMMARY_SELECT });
    if (!row) throw new AppError('not_found', `API key ${id} not found`);
    return row;
  }

  /**
   * Resolves a plain key to its principal, or null when the key is malformed,
   * unknown, revoked or expired, or when the key that minted it is. One
   * lookup on the unique hash index (plus the parent's primary key).
   */
  async findActiveByKey(plainKey: string): Promise<ApiKeyPrincipal | null> {
    if (!API_KEY_PATTERN.test(plainKey)) return null;
    // An operator key has no project: the LEFT JOIN keeps it, with a null org.
    const rows = await this.prisma.$queryRaw<
      Array<{
        id: string;
        project_id: string | null;
        org_id: string | null;
        environment: Environment | null;
        scopes: string[];
        expires_at: Date | null;
        session_id: string | null;
        user_id: string | null;
        parent_id: string | null;
      }>
    >(
      Prisma.sql`
        SELECT k.id, k.project_id, p.org_id, k.environment::text AS environment, k.scopes,
               k.expires_at, k.session_id, k.user_id, k.parent_id
          FROM api_keys k
          LEFT JOIN projects p ON p.id = k.project_id
          LEFT JOIN api_keys parent ON parent.id = k.parent_id
         WHERE k.key_hash = ${hashApiKey(plainKey)}
           AND k.revoked_at IS NULL
           AND (k.expires_at IS NULL OR k.expires_at > now())
           AND (k.parent_id IS NULL OR (parent.revoked_at IS NULL AND (parent.expires_at IS NULL OR parent.expires_at > now())))
         LIMIT 1`,
    );
    const row = rows[0];
    if (!row) return null;
    const found: ApiKeyPrincipal = {
      id: row.id,
      projectId: row.project_id,
      orgId: row.org_id,
      environment: row.environment,
      scopes: row.scopes ?? [],
    };
    if (row.expires_at) found.expiresAt = row.expires_at;
    if (row.session_id) found.sessionId = row.session_id;
    if (row.user_id) found.userId = row.user_id;
    if (row.parent_id) found.parentId = row.parent_id;
    return found;
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
