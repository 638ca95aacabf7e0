/**
 * What happened to one provider call. The caller decides retries and
 * failover from `kind` alone: only `not_sent` proves the provider never saw
 * the request.
 */
export type CallResult = ProviderResponse | NotSent | OutcomeUnknown;

/** The provider answered (any status, including 4xx and 5xx). */
export interface ProviderResponse {
  kind: 'response';
  status: number;
  /** Names lowercased; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** Parsed JSON when the response says it is JSON and parses, else the text (`''` when empty). */
  body: unknown;
  /** Response body bytes read. */
  bytesIn: number;
  /** Request body bytes sent. */
  bytesOut: number;
  durationMs: number;
}

export const NOT_SENT_REASONS = [
  'connect_refused',
  'connect_timeout',
  'connect_failed',
  'dns',
  'tls',
  'circuit_open',
  'bulkhead_full',
  'address_refused',
  'invalid_request',
] as const;

/** No byte of the request reached the provider: retrying, or failing over to another provider, is safe. */
export interface NotSent {
  kind: 'not_sent';
  reason: (typeof NOT_SENT_REASONS)[number];
  durationMs: number;
}

export const OUTCOME_UNKNOWN_REASONS = [
  'timeout_after_send',
  'connection_reset_after_send',
  'response_too_large',
] as const;

/**
 * The request was (or may have been) written and no complete answer came
 * back: the provider may have acted on it. Never fail over; repeat only with
 * the same idempotency key, or reconcile by asking the provider.
 */
export interface OutcomeUnknown {
  kind: 'outcome_unknown';
  reason: (typeof OUTCOME_UNKNOWN_REASONS)[number];
  durationMs: number;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA', 'ENODATA', 'ESERVFAIL']);
const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'HOSTNAME_MISMATCH',
  'EPROTO',
]);
const INVALID_CODES = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_INVALID_URL',
  'ERR_INVALID_CHAR',
]);

/** Raised by the client itself when the whole response took longer than the provider's response timeout. */
export class ResponseTimeoutError extends Error {
  readonly code = 'ROTA_RESPONSE_TIMEOUT';
}

/** Raised by the client itself when the response passed the size cap; reading stops there. */
export class ResponseTooLargeError extends Error {
  readonly code = 'ROTA_RESPONSE_TOO_LARGE';
}

const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

/**
 * Error before the request was handed to the socket. undici calls a
 * handler's `onRequestStart` immediately before it writes the request line;
 * an error that arrives before that call happened while resolving,
 * connecting or handshaking TLS, so the request provably went nowhere.
 */
export function notSentReason(err: unknown): NotSent['reason'] {
  const code = codeOf(err);
  if (code === 'ROTA_ADDRESS_REFUSED') return 'address_refused';
  if (code === 'ECONNREFUSED') return 'connect_refused';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return 'connect_timeout';
  if (DNS_CODES.has(code)) return 'dns';
  if (TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.startsWith('ERR_OSSL_'))
    return 'tls';
  if (INVALID_CODES.has(code)) return 'invalid_request';
  return 'connect_failed';
}

/**
 * Error after the request began to be written. The provider may have read
 * it all and acted, whatever went wrong next (a timeout, a reset, a response
 * we refused to read in full), so every case here is an unknown outcome.
 */
export function afterSendReason(err: unknown): OutcomeUnknown['reason'] {
  const code = codeOf(err);
  if (code === 'ROTA_RESPONSE_TOO_LARGE') return 'response_too_large';
  if (code === 'ROTA_RESPONSE_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return 'timeout_after_send';
  return 'connection_reset_after_send';
}

/** Failures that say the provider is unwell, and so count toward opening its circuit. Our own refusals do not. */
export function isProviderFailure(result: CallResult): boolean {
  switch (result.kind) {
    case 'response':
      return result.status >= 500 || result.status === 429;
    case 'not_sent':
      return ['connect_refused', 'connect_timeout', 'connect_failed', 'dns', 'tls'].includes(result.reason);
    case 'outcome_unknown':
      return result.reason !== 'response_too_large';
    default: {
      const never: never = result;
      return never;
    }
  }
}
