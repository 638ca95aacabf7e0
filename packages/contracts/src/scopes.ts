/**
 * API key scopes. A route names the one it needs; keys carry a list.
 * `admin` is the deployment's own scope (global catalog writes and other
 * operator routes): only operator keys, which belong to no project, carry it.
 * `policy:write` replaces a project's policy rules and rate limits;
 * `approvals:write` decides approvals (never for a call the same key made);
 * `logs:read` reads the project's call logs and follows their live stream;
 * `webhooks:write` manages webhook subscriptions, their deliveries and replays
 * (an operator key's subscriptions receive deployment-wide events);
 * `keys:write` mints short-lived child keys of the caller's project and
 * environment (`POST /v1/keys`); a child key never carries it.
 */
export const SCOPES = [
  'servers:read',
  'sessions:create',
  'tools:execute',
  'connections:write',
  'catalog:write',
  'policy:write',
  'approvals:write',
  'logs:read',
  'webhooks:write',
  'keys:write',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];
/** Scopes a project key may carry: every scope but `admin`. */
export const PROJECT_SCOPES = SCOPES.filter((s): s is Exclude<Scope, 'admin'> => s !== 'admin');
/**
 * Scopes an operator key may carry. It always carries `admin`; `catalog:write`
 * lets it through the import route, `servers:read` through the catalog status
 * and the health rollup, `webhooks:write` to the deployment's subscriptions.
 * An operator key is refused on every route that acts for a project.
 */
export const OPERATOR_SCOPES = [
  'admin',
  'catalog:write',
  'servers:read',
  'webhooks:write',
] as const satisfies readonly Scope[];
/** Plain-text API keys look like `csk_live_<secret>` or `csk_test_<secret>`; operator keys use the `live` form. */
export const API_KEY_PATTERN = /^csk_(live|test)_[A-Za-z0-9]{24,64}$/;
