import { z } from 'zod';
import { ConnectionStatus, ConnectionView } from './connections';
import { Environment } from './tenant';

/**
 * Connecting a provider from inside a session (`codespar_manage_connections`
 * `initiate`, `connect_start`, `connect_finish`), the OAuth2 callback those
 * flows come back through, and shopper profiles (`save_profile`,
 * `get_profile`). Credentials travel into these actions only; no answer, call
 * row or log line carries them back.
 */

/**
 * How a provider is connected: `authorization` sends the user to the
 * provider's authorization page (OAuth2 authorization code with PKCE),
 * `credentials` takes the fields the connect context names, `none` needs
 * nothing.
 */
export const ConnectMethod = z.enum(['authorization', 'credentials', 'none']);
export type ConnectMethod = z.infer<typeof ConnectMethod>;

/** One credential field a key-based provider needs. Never carries a value. */
export const ConnectField = z.object({
  name: z.string(),
  description: z.string(),
  required: z.boolean(),
});
export type ConnectField = z.infer<typeof ConnectField>;

/** How long a connect context (and the `state` of its authorization URL) stays usable. */
export const CONNECT_CONTEXT_TTL_SECONDS = 15 * 60;

/** `data` of `initiate`: what connecting this provider takes. Starts nothing. */
export const ManageInitiateData = z.object({
  action: z.literal('initiate'),
  environment: Environment,
  server_id: z.string(),
  name: z.string(),
  auth_type: z.string(),
  status: ConnectionStatus,
  method: ConnectMethod,
  /** The fields `connect_finish` takes (method `credentials`); empty otherwise. */
  fields: z.array(ConnectField),
  /** What to call next, in words. */
  next_step: z.string(),
});
export type ManageInitiateData = z.infer<typeof ManageInitiateData>;

/** `data` of `connect_start`: a connect context. */
export const ManageConnectStartData = z.object({
  action: z.literal('connect_start'),
  environment: Environment,
  server_id: z.string(),
  method: ConnectMethod,
  /** Pass it to `connect_finish`. Null for method `none`. */
  context_id: z.string().nullable(),
  /** Method `authorization`: the page to send the user to. */
  authorization_url: z.string().optional(),
  /** Method `authorization`: where the provider sends the user back (Rota's callback). */
  redirect_uri: z.string().optional(),
  /** Method `credentials`: the fields `connect_finish` takes in `credentials`. */
  fields: z.array(ConnectField),
  expires_at: z.string().nullable(),
  next_step: z.string(),
});
export type ManageConnectStartData = z.infer<typeof ManageConnectStartData>;

/** `data` of a successful `connect_finish`: the stored connection, without its credentials. */
export const ManageConnectFinishData = z.object({
  action: z.literal('connect_finish'),
  environment: Environment,
  server_id: z.string(),
  context_id: z.string(),
  status: z.literal('connected'),
  connection: ConnectionView,
});
export type ManageConnectFinishData = z.infer<typeof ManageConnectFinishData>;

/** Largest stored shopper profile, as JSON. */
export const SHOPPER_PROFILE_MAX_BYTES = 16 * 1024;

/** `data` of `save_profile` and `get_profile`. `profile` is null when nothing is saved for the consumer. */
export const ShopperProfileData = z.object({
  action: z.enum(['save_profile', 'get_profile']),
  environment: Environment,
  consumer_id: z.string(),
  profile: z.record(z.string(), z.unknown()).nullable(),
  updated_at: z.string().nullable(),
});
export type ShopperProfileData = z.infer<typeof ShopperProfileData>;

/**
 * `GET /v1/connections/oauth/callback` query: what the provider's
 * authorization server appends to the redirect URI (RFC 6749 §4.1.2). Other
 * parameters a provider adds (`scope`, `iss`…) are ignored.
 */
export const OAuthCallbackQuery = z.object({
  state: z.string().min(1).max(2048).describe('The signed state Rota put in the authorization URL.'),
  code: z.string().min(1).max(2048).optional().describe('The authorization code, when the user approved.'),
  error: z
    .string()
    .max(200)
    .optional()
    .describe('The provider’s refusal (`access_denied`…), when the user did not approve.'),
  error_description: z.string().max(2000).optional().describe('Ignored: free text from the provider.'),
});
export type OAuthCallbackQuery = z.infer<typeof OAuthCallbackQuery>;

/** `session.connections.oauth_callback` payload. No tenant travels with it: the signed state names one. */
export const OAuthCallbackCommand = z
  .object({
    state: z.string().min(1).max(2048),
    code: z.string().min(1).max(2048).optional(),
    error: z.string().max(200).optional(),
  })
  .strict();
export type OAuthCallbackCommand = z.infer<typeof OAuthCallbackCommand>;

/**
 * `session.connections.oauth_callback` answer, for a state that verified.
 * A refused or failed exchange is an answer too (`status: failed`), so the
 * gateway can still send the user back to `return_to`.
 */
export const OAuthCallbackOutcome = z.object({
  status: z.enum(['connected', 'failed']),
  server_id: z.string(),
  environment: Environment,
  context_id: z.string(),
  return_to: z.string().nullable(),
  /** `status: failed`: `oauth_authorization_failed` or `oauth_exchange_failed`, and why. */
  error: z.enum(['oauth_authorization_failed', 'oauth_exchange_failed']).optional(),
  message: z.string(),
});
export type OAuthCallbackOutcome = z.infer<typeof OAuthCallbackOutcome>;

/** `GET /v1/connections/oauth/callback` 200 body (no `return_to` was given). */
export const OAuthCallbackView = z.object({
  status: z.literal('connected'),
  server_id: z.string(),
  environment: Environment,
  context_id: z.string(),
  message: z.string(),
});
export type OAuthCallbackView = z.infer<typeof OAuthCallbackView>;
