/**
 * @rota/providers: calls to provider APIs. Builds a request from a catalog
 * tool and its input, injects a connection's credentials per auth type
 * (OAuth2 tokens shared by replicas through Redis, sealed), and sends it
 * under per-provider limits, reporting whether the provider may have seen it.
 */
export { buildRequest, HTTP_METHODS, type BuildRequestArgs, type HttpMethod, type ProviderRequest } from './request';
export {
  injectAuth,
  type AuthContext,
  type AuthenticatedRequest,
  type ClientCertificate,
  type Credentials,
} from './auth';
export {
  OAuth2TokenCache,
  type AccessToken,
  type ConnectionRef,
  type OAuth2Auth,
  type OAuth2TokenCacheOptions,
  type Sealer,
  type TokenRequest,
} from './oauth2';
export {
  ProviderClient,
  DEFAULT_POLICY,
  SANDBOX_TENANT_HEADER,
  SCRUBBED,
  injectedSecrets,
  tenantTag,
  type CallArgs,
  type ProviderClientOptions,
  type ProviderPolicy,
} from './client';
export {
  NOT_SENT_REASONS,
  OUTCOME_UNKNOWN_REASONS,
  isProviderFailure,
  type CallResult,
  type NotSent,
  type OutcomeUnknown,
  type ProviderResponse,
} from './outcome';
export { AddressRefusedError, isPublicAddress, literalAddressRefused, type Resolver } from './address';
export { CredentialError, ProviderError, RequestBuildError, type ProviderErrorCode } from './errors';
export { CREDENTIAL_FIELDS, CREDENTIAL_REDACT_PATHS, redactingLogger, type ProviderLogger } from './log';
