import type { Environment, Scope } from '@rota/contracts';

/** A project key: it acts for one environment of one project. */
export interface ProjectPrincipal {
  kind: 'project';
  keyId: string;
  orgId: string;
  projectId: string;
  environment: Environment;
  scopes: Scope[];
  /** When the key stops working (ms since the epoch); absent for a key without an expiry. */
  expiresAt?: number;
  /** A session-bound key (`POST /v1/keys` with `session_id`) reaches only this session's routes. */
  sessionId?: string;
  /** A user-bound key acts only for this end user: it travels in the tenant as `user_id`. */
  userId?: string;
  /** Set on a child key: the key that minted it. */
  parentId?: string;
}

/**
 * An operator key: it acts on the deployment (the global catalog, operator
 * routes) and has no tenant, so it is refused on every route that acts for
 * a project.
 */
export interface OperatorPrincipal {
  kind: 'operator';
  keyId: string;
  scopes: Scope[];
  /** When the key stops working (ms since the epoch); absent for a key without an expiry. */
  expiresAt?: number;
}

/** Who is calling: the key's tenant and what it may do, or the deployment's operator. */
export type Principal = ProjectPrincipal | OperatorPrincipal;
