import { Catch, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { AppError, isErrorCode, zodIssues, type WireError } from '@rota/contracts';
import { throwError, type Observable } from 'rxjs';
import { ZodError } from 'zod';
import { createLogger } from './logger';

// Made on first use, so it follows the logging settings (ROTA_LOG_FILE) of
// the process by then rather than at import.
let logger: ReturnType<typeof createLogger> | undefined;
const log = () => (logger ??= createLogger('rpc-errors'));

/** Socket errors: the database (or any dependency) could not be reached or dropped the connection. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/**
 * Postgres SQLSTATEs of a server going away or not accepting connections:
 * class 08 (connection exception), 53300 (too many connections: a new one
 * is refused) and 57P01..57P03 (admin shutdown, crash shutdown, cannot
 * connect now).
 */
const POSTGRES_CODES = /^(08\d{3}|08P01|53300|57P0[123])$/;
/** Prisma's codes for an unreachable server, a timeout reaching it, a socket timeout and a closed connection. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017']);
/**
 * `kind`s of Prisma's driver-adapter errors (`@prisma/adapter-pg`) for a
 * server that could not be reached, a connection that closed or timed out,
 * and a server refusing new connections.
 */
const DRIVER_ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);
/**
 * ioredis's error classes for a server it could not reach: retries of a
 * queued command used up, and a cluster with no reachable node. ioredis does
 * not export them from its entry point, and two majors are installed
 * (redis-gcra brings 4), so they are told apart by `name`, which each class
 * sets to its own.
 */
const ERROR_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);
/**
 * Messages of connection losses that carry no code or class of their own:
 * pg's client, Prisma wrapping it, pg-pool giving up on a connection
 * (`connectionTimeoutMillis`), and ioredis (`commandTimeout` passing, a
 * closed connection, a command dropped with it, no offline queue).
 */
const CONNECTION_MESSAGES = new RegExp(
  [
    'Connection terminated',
    "Can't reach database server",
    'Server has closed the connection',
    'terminating connection due to administrator command',
    'Client has encountered a connection error',
    'timeout exceeded when trying to connect',
    'Reached the max retries per request limit',
    '^Command timed out$',
    '^Connection is closed\\.',
    'Command aborted due to connection close',
    "^Stream isn't writeable",
  ].join('|'),
  'i',
);

/**
 * Whether `err` means a dependency's connection failed (refused, reset,
 * server shutting down, no connection or answer in time, the client giving
 * up) rather than a bug or a bad request. It says nothing about whether the
 * command reached the server: callers that act decide that (see `toWire`).
 * Looks through `cause`, Prisma's driver-adapter wrapping and aggregated
 * connection attempts.
 */
export function isConnectionError(err: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0 && seen.size < 16) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const o = e as {
      name?: unknown;
      kind?: unknown;
      code?: unknown;
      originalCode?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    for (const code of [o.code, o.originalCode]) {
      if (typeof code !== 'string') continue;
      if (SOCKET_CODES.has(code) || PRISMA_CODES.has(code) || POSTGRES_CODES.test(code)) return true;
    }
    if (typeof o.name === 'string' && ERROR_NAMES.has(o.name)) return true;
    if (typeof o.kind === 'string' && DRIVER_ADAPTER_KINDS.has(o.kind)) return true;
    if (typeof o.message === 'string' && CONNECTION_MESSAGES.test(o.message)) return true;
    queue.push(o.cause, o.meta?.driverAdapterError);
    if (Array.isArray(o.errors)) queue.push(...o.errors);
  }
  return false;
}

export interface ToWireOptions {
  /**
   * The handler belongs to a pattern that acts: once it has started, a lost
   * dependency cannot prove that nothing took effect.
   */
  acts?: boolean;
}

/**
 * Maps whatever a service handler throws to the wire error shape: AppError as
 * is, validation failures to `invalid_body`, Prisma's unique and not-found
 * errors to `conflict` and `not_found`, a lost database connection to
 * `unavailable` (`outcome_unknown` on patterns that act, whose handler may
 * already have done something), and everything else to `internal` (logged
 * here, with the request id, and never sent to the caller).
 */
export function toWire(err: unknown, opts: ToWireOptions = {}): WireError {
  if (err instanceof AppError) return err.toWire();
  if (
    err &&
    typeof err === 'object' &&
    isErrorCode((err as WireError).code) &&
    typeof (err as WireError).message === 'string'
  ) {
    return AppError.fromWire(err as WireError).toWire();
  }
  if (err instanceof ZodError)
    return { code: 'invalid_body', message: 'The request body is invalid.', details: { issues: zodIssues(err) } };
  const prismaCode = (err as { code?: unknown })?.code;
  if (prismaCode === 'P2002') return { code: 'conflict', message: 'The resource already exists.' };
  if (prismaCode === 'P2025') return { code: 'not_found', message: 'The resource was not found.' };
  if (isConnectionError(err)) {
    log().warn({ err }, 'dependency connection failed in service handler');
    return opts.acts
      ? {
          code: 'outcome_unknown',
          message: 'A dependency failed while the request was running; it may have taken effect.',
        }
      : { code: 'unavailable', message: 'A dependency is unavailable.' };
  }
  log().error({ err }, 'unhandled error in service handler');
  return { code: 'internal', message: 'Internal error' };
}

@Catch()
export class WireErrorFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, host?: ArgumentsHost): Observable<never> {
    // The transport hands every handler its context as the second argument.
    const ctx =
      host?.getType() === 'rpc' ? (host.switchToRpc().getContext() as { acts?: unknown } | undefined) : undefined;
    return throwError(() => toWire(exception, { acts: ctx?.acts === true }));
  }
}
