import { z } from 'zod';
import { Environment } from './tenant';

/**
 * Sessions: a short-lived scope an agent opens over a set of providers, then
 * executes tools inside. A session belongs to the project and environment of
 * the key that created it and is invisible from anywhere else.
 */

/** Most providers one session may name. */
export const SESSION_MAX_SERVERS = 20;
/** Largest `metadata` object accepted, measured as JSON. */
export const SESSION_METADATA_MAX_BYTES = 16 * 1024;

/** A provider id as a client sends it; whether it names a provider is checked later (`unknown_servers`). */
export const ServerIdInput = z.string().min(1).max(100);

/** `POST /v1/sessions` body. */
export const SessionCreateRequest = z
  .object({
    /** Provider ids the session may call: 1 to 20, no repeats. */
    servers: z
      .array(ServerIdInput)
      .min(1)
      .max(SESSION_MAX_SERVERS)
      .superRefine((ids, ctx) => {
        const seen = new Set<string>();
        ids.forEach((id, i) => {
          if (seen.has(id))
            ctx.addIssue({
              code: 'custom',
              path: [i],
              message: `"${id}" is listed more than once; each server may appear once.`,
            });
          seen.add(id);
        });
      }),
    /** The end user the agent acts for, echoed back and stored with the session. */
    user_id: z.string().min(1).max(256).nullable().optional(),
    /** Free-form key/value pairs stored with the session (at most 16 KiB as JSON). */
    metadata: z
      .record(z.string(), z.unknown())
      .refine(
        (m) => Buffer.byteLength(JSON.stringify(m)) <= SESSION_METADATA_MAX_BYTES,
        `metadata must be at most ${SESSION_METADATA_MAX_BYTES} bytes as JSON.`,
      )
      .optional(),
  })
  .strict();
export type SessionCreateRequest = z.infer<typeof SessionCreateRequest>;

/** `active` until closed by the client (`closed`) or idle past the configured time (`expired`). */
export const SessionStatus = z.enum(['active', 'closed', 'expired']);
export type SessionStatus = z.infer<typeof SessionStatus>;

/** How an MCP client reaches the session. Clients add their own `Authorization` header. */
export const SessionMcp = z.object({ url: z.string(), transport: z.literal('streamable-http') });
export type SessionMcp = z.infer<typeof SessionMcp>;

/** The 201 body of `POST /v1/sessions`. */
export const SessionCreated = z.object({
  id: z.string(),
  user_id: z.string().nullable(),
  servers: z.array(z.string()),
  status: z.literal('active'),
  environment: Environment,
  created_at: z.string(),
  mcp: SessionMcp,
});
export type SessionCreated = z.infer<typeof SessionCreated>;

/** The 200 body of `GET /v1/sessions/{id}`: the created shape plus its current state. */
export const SessionView = SessionCreated.extend({
  status: SessionStatus,
  metadata: z.record(z.string(), z.unknown()).nullable(),
  last_active_at: z.string(),
  /** When an active session expires if nothing happens before; null once it is not active. */
  expires_at: z.string().nullable(),
  closed_at: z.string().nullable(),
});
export type SessionView = z.infer<typeof SessionView>;

/** The 200 body of `DELETE /v1/sessions/{id}`. A second DELETE answers the first `closed_at`. */
export const SessionClosed = z.object({ id: z.string(), status: z.literal('closed'), closed_at: z.string() });
export type SessionClosed = z.infer<typeof SessionClosed>;

/** A session as the session service returns it; the gateway adds the `mcp` block. */
export const SessionRecord = SessionView.omit({ mcp: true });
export type SessionRecord = z.infer<typeof SessionRecord>;

/** `session.create` payload; the session belongs to the request's tenant. */
export const SessionCreateCommand = z.object({ body: SessionCreateRequest }).strict();
export type SessionCreateCommand = z.infer<typeof SessionCreateCommand>;

/** `session.get` and `session.close` payload; only the request's tenant sees the session. */
export const SessionRefCommand = z.object({ session_id: z.string().min(1).max(200) }).strict();
export type SessionRefCommand = z.infer<typeof SessionRefCommand>;
