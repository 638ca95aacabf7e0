import { z } from 'zod';
import { Environment } from './tenant';
import { ServerIdInput } from './sessions';

/**
 * Connections: the provider credentials of one project in one environment.
 * Credentials go in once, are sealed at rest, and never come back out through
 * any route, tool result or log line.
 */

/** Most fields one credentials object may hold. */
export const CONNECTION_MAX_CREDENTIAL_FIELDS = 32;
/** Largest single credential value (room for a PEM certificate chain). */
export const CONNECTION_MAX_CREDENTIAL_VALUE = 16 * 1024;

/**
 * Provider credentials as flat string fields (`api_key`, `client_id`,
 * `client_secret`, `certificate`, ...). Which fields a provider needs is its
 * own business; Rota only stores them.
 */
export const ConnectionCredentials = z
  .record(z.string().min(1).max(100), z.string().max(CONNECTION_MAX_CREDENTIAL_VALUE))
  .refine(
    (c) => Object.keys(c).length <= CONNECTION_MAX_CREDENTIAL_FIELDS,
    `credentials may hold at most ${CONNECTION_MAX_CREDENTIAL_FIELDS} fields.`,
  );
export type ConnectionCredentials = z.infer<typeof ConnectionCredentials>;

/**
 * `POST /v1/connections` body. `credentials` may be omitted only for a
 * provider whose auth type is `none`; sending it again for a connected
 * provider replaces the stored credentials.
 */
export const ConnectionCreateRequest = z
  .object({
    server_id: ServerIdInput,
    credentials: ConnectionCredentials.optional(),
  })
  .strict();
export type ConnectionCreateRequest = z.infer<typeof ConnectionCreateRequest>;

/**
 * Whether the project can call a provider in an environment: `connected` (credentials
 * stored), `disconnected` (none stored), `not_required` (the provider needs no auth).
 */
export const ConnectionStatus = z.enum(['connected', 'disconnected', 'not_required']);
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;

/** One stored connection, as every route shows it: never the credentials themselves. */
export const ConnectionView = z.object({
  id: z.string(),
  server_id: z.string(),
  environment: Environment,
  status: ConnectionStatus,
  auth_type: z.string(),
  /** True when a sealed credentials blob is stored for this connection. */
  has_credentials: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ConnectionView = z.infer<typeof ConnectionView>;

/** `GET /v1/connections` body: the key's environment and its connections, oldest first. */
export const ConnectionList = z.object({ environment: Environment, connections: z.array(ConnectionView) });
export type ConnectionList = z.infer<typeof ConnectionList>;

/** `DELETE /v1/connections/{id}` body: the credentials are gone and the provider reads as `disconnected`. */
export const ConnectionDeleted = z.object({
  id: z.string(),
  server_id: z.string(),
  environment: Environment,
  status: z.literal('disconnected'),
  deleted: z.literal(true),
});
export type ConnectionDeleted = z.infer<typeof ConnectionDeleted>;

/*
 * The connection commands name no project or environment: a connection
 * always belongs to the request's tenant.
 */

/** `session.connections.save` payload. */
export const ConnectionSaveCommand = z.object({ body: ConnectionCreateRequest }).strict();
export type ConnectionSaveCommand = z.infer<typeof ConnectionSaveCommand>;

/** `session.connections.save` answer: the view, and whether a new row was made (201) or credentials replaced (200). */
export const ConnectionSaved = z.object({ connection: ConnectionView, created: z.boolean() });
export type ConnectionSaved = z.infer<typeof ConnectionSaved>;

/** `session.connections.list` payload. */
export const ConnectionListCommand = z.object({}).strict();
export type ConnectionListCommand = z.infer<typeof ConnectionListCommand>;

/** `session.connections.delete` payload. */
export const ConnectionDeleteCommand = z.object({ connection_id: z.string().min(1).max(200) }).strict();
export type ConnectionDeleteCommand = z.infer<typeof ConnectionDeleteCommand>;
