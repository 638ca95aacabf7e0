import { z } from 'zod';
import { PROJECT_SCOPES } from './scopes';
import { Environment } from './tenant';

/** Lifetime of a child key when `expires_in` is left out: one hour. */
export const KEY_DEFAULT_TTL_SECONDS = 3600;
/** The longest a child key may live: 30 days. */
export const KEY_MAX_TTL_SECONDS = 30 * 24 * 3600;

/** Scopes a child key may ask for: a project scope other than `keys:write` (a child never mints). */
export const CHILD_KEY_SCOPES = PROJECT_SCOPES.filter(
  (s): s is Exclude<(typeof PROJECT_SCOPES)[number], 'keys:write'> => s !== 'keys:write',
);

/**
 * `POST /v1/keys`: a short-lived child of the calling key, in its project and
 * environment, with at most its scopes, optionally bound to one session or
 * one end user.
 */
export const KeyCreateRequest = z
  .object({
    scopes: z
      .array(z.enum(PROJECT_SCOPES))
      .min(1)
      .max(PROJECT_SCOPES.length)
      .describe('At most the calling key’s scopes; never `keys:write` or `admin`.'),
    expires_in: z
      .number()
      .int()
      .min(1)
      .max(KEY_MAX_TTL_SECONDS)
      .default(KEY_DEFAULT_TTL_SECONDS)
      .describe(
        `Seconds until the key answers 401 (default ${KEY_DEFAULT_TTL_SECONDS}, at most ${KEY_MAX_TTL_SECONDS}); never after the calling key expires.`,
      ),
    session_id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,200}$/)
      .optional()
      .describe('Bind the key to this session of the project and environment: it reaches only this session’s routes.'),
    user_id: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe(
        'Bind the key to this end user: it opens sessions only for them and sees only their sessions and connections.',
      ),
    name: z.string().min(1).max(200).optional().describe('Label shown in key listings.'),
  })
  .strict();
export type KeyCreateRequest = z.infer<typeof KeyCreateRequest>;

/** The new key. `key` is shown once and never again. */
export const KeyCreated = z
  .object({
    id: z.string().describe('`key_…`.'),
    key: z.string().describe('The key itself (`csk_live_…` or `csk_test_…`); shown only in this answer.'),
    prefix: z.string().describe('Its first 12 characters, as listings show it.'),
    name: z.string().nullable(),
    scopes: z.array(z.enum(PROJECT_SCOPES)),
    environment: Environment,
    parent_id: z.string().describe('The key that minted it; revoking that key revokes this one.'),
    session_id: z.string().nullable(),
    user_id: z.string().nullable(),
    created_at: z.string().describe('ISO 8601.'),
    expires_at: z.string().describe('ISO 8601; after it the key answers 401.'),
  })
  .meta({ id: 'KeyCreated' });
export type KeyCreated = z.infer<typeof KeyCreated>;
