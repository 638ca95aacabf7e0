import { z } from 'zod';

/** The two environments a key, a session, a connection and every tenant-scoped row belong to. */
export const ENVIRONMENTS = ['live', 'test'] as const;
export const Environment = z.enum(ENVIRONMENTS);
export type Environment = z.infer<typeof Environment>;

/**
 * Who a request acts for: the verified key's org, project and environment.
 * The gateway sets it from the key; the transport carries it in the envelope
 * beside the request id; services read it from there (`currentTenant()` in
 * service-kit), never from payload fields.
 */
export const Tenant = z
  .object({
    org_id: z.string().min(1),
    project_id: z.string().min(1),
    environment: Environment,
    /**
     * Set when the key is bound to one end user (`POST /v1/keys` with
     * `user_id`): sessions open only for this user, and only their sessions
     * and connections are visible.
     */
    user_id: z.string().min(1).max(256).optional(),
  })
  .strict();
export type Tenant = z.infer<typeof Tenant>;
