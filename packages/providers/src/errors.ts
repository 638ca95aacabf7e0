/**
 * What can go wrong before a request is sent. Every one of these is thrown
 * before a byte reaches the provider, so a caller may always treat a thrown
 * `ProviderError` as "not sent". Messages name fields, never their values:
 * they end up in logs and in error envelopes.
 */
export type ProviderErrorCode =
  /** A path placeholder of `endpoint_template` has no value in the input (the caller's `invalid_args`). */
  | 'missing_path_parameter'
  /** The input or template would leave the provider's base URL, or is not sendable (the caller's `invalid_args` / `invalid_endpoint`). */
  | 'unsafe_request'
  /** The connection lacks a credential field the auth type reads (the caller's `connection_required`). */
  | 'credential_missing'
  /** A credential is present but unusable: a PEM that does not parse, a token endpoint that rejects the client. */
  | 'credential_invalid'
  /** The OAuth2 token endpoint could not be reached or answered nonsense; nothing was sent to the provider. */
  | 'token_unavailable';

export class ProviderError extends Error {
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    readonly details: Record<string, string | number> = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** The request cannot be built from the template and the input. */
export class RequestBuildError extends ProviderError {
  constructor(
    code: 'missing_path_parameter' | 'unsafe_request',
    message: string,
    details: Record<string, string | number> = {},
  ) {
    super(code, message, details);
    this.name = 'RequestBuildError';
  }
}

/** The connection's credentials cannot authenticate the request. */
export class CredentialError extends ProviderError {
  constructor(
    code: 'credential_missing' | 'credential_invalid' | 'token_unavailable',
    message: string,
    details: Record<string, string | number> = {},
  ) {
    super(code, message, details);
    this.name = 'CredentialError';
  }
}
