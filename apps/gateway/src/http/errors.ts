import { HttpException } from '@nestjs/common';
import { AppError, ERROR_STATUS, isErrorCode, type ErrorCode } from '@rota/contracts';
import { isConnectionError } from '@rota/service-kit';

export interface HttpErrorOut {
  status: number;
  body: Record<string, unknown>;
  /** Set for errors we did not expect; they are logged with the request id. */
  unexpected?: unknown;
  /** Set when a dependency (Redis, Postgres) could not be reached; logged as a warning. */
  dependency?: unknown;
}

/** Fastify's own refusals (body parsing, size, media type) and their codes. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_body',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_body',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  invalid_body: 'The request body is not valid JSON.',
  payload_too_large: 'The request body is larger than this route accepts.',
  unsupported_media_type: 'Send the body as application/json.',
  not_found: 'No route matches this method and path.',
};

function statusToCode(status: number): ErrorCode {
  if (status === 404) return 'not_found';
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 429) return 'rate_limited';
  if (status >= 400 && status < 500) return 'invalid_body';
  return 'internal';
}

/**
 * The single place where an error becomes an HTTP response: the status comes
 * from the contracts table, the body is the standard envelope, except the
 * raw `{"error":"unauthorized"}` of a 401. A 5xx never carries internals.
 */
export function toHttpError(err: unknown, requestId: string): HttpErrorOut {
  let code: ErrorCode;
  let message: string;
  let details: Record<string, unknown> | undefined;
  let unexpected: unknown;
  let dependency: unknown;

  if (err instanceof AppError) {
    ({ code, message, details } = err);
  } else if (err instanceof HttpException) {
    code = statusToCode(err.getStatus());
    message = MESSAGES[code] ?? err.message;
  } else if (
    err &&
    typeof err === 'object' &&
    typeof (err as { code?: unknown }).code === 'string' &&
    FASTIFY_CODES[(err as { code: string }).code]
  ) {
    code = FASTIFY_CODES[(err as { code: string }).code]!;
    message = MESSAGES[code] ?? 'The request was refused.';
  } else if (
    err &&
    typeof err === 'object' &&
    isErrorCode((err as { code?: unknown }).code) &&
    typeof (err as { message?: unknown }).message === 'string'
  ) {
    ({ code, message, details } = AppError.fromWire(err as never));
  } else if (
    err &&
    typeof err === 'object' &&
    typeof (err as { statusCode?: unknown }).statusCode === 'number' &&
    (err as { statusCode: number }).statusCode < 500
  ) {
    code = statusToCode((err as { statusCode: number }).statusCode);
    message = MESSAGES[code] ?? 'The request was refused.';
  } else if (isConnectionError(err)) {
    // The gateway's own Redis and Postgres calls (keys, limits, dashboard
    // cookies) come before anything is forwarded: the transport turns its
    // own failures into AppErrors with the right code (`outcome_unknown`
    // once a request may have run), so a raw connection error here means
    // the request never reached a service and is safe to send again.
    code = 'unavailable';
    message = 'A dependency is unavailable; send the request again shortly.';
    dependency = err;
  } else {
    code = 'internal';
    message = 'Internal error';
    unexpected = err;
  }

  const status = ERROR_STATUS[code];
  if (code === 'unauthorized') return { status, body: { error: 'unauthorized' } };
  // A policy refusal is its own body, with no `error` key: clients tell it from quota by that.
  if (code === 'policy_denied') return { status, body: { ...(details ?? {}) } };
  // The mocks store's 503 carries `code`, not `error`, as the published refusal table shows.
  if (code === 'mocks_engine_error') return { status, body: { code, message, request_id: requestId } };
  if (status >= 500) {
    // Generic text only: whatever went wrong stays in our logs.
    const generic = code === 'internal' ? 'Something went wrong on our side.' : message;
    return { status, body: { error: code, message: generic, request_id: requestId }, unexpected, dependency };
  }
  return { status, body: { ...(details ?? {}), error: code, message, request_id: requestId } };
}
