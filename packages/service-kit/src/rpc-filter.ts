import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { AppError, isErrorCode, zodIssues, type WireError } from '@rota/contracts';
import { throwError, type Observable } from 'rxjs';
import { ZodError } from 'zod';
import { createLogger } from './logger';

const log = createLogger('rpc-errors');

/**
 * Maps whatever a service handler throws to the wire error shape: AppError as
 * is, validation failures to `invalid_body`, Prisma's unique and not-found
 * errors to `conflict` and `not_found`, and everything else to `internal`
 * (logged here, with the request id, and never sent to the caller).
 */
export function toWire(err: unknown): WireError {
  if (err instanceof AppError) return err.toWire();
  if (err && typeof err === 'object' && isErrorCode((err as WireError).code) && typeof (err as WireError).message === 'string') {
    return AppError.fromWire(err as WireError).toWire();
  }
  if (err instanceof ZodError) return { code: 'invalid_body', message: 'The request body is invalid.', details: { issues: zodIssues(err) } };
  const prismaCode = (err as { code?: unknown })?.code;
  if (prismaCode === 'P2002') return { code: 'conflict', message: 'The resource already exists.' };
  if (prismaCode === 'P2025') return { code: 'not_found', message: 'The resource was not found.' };
  log.error({ err }, 'unhandled error in service handler');
  return { code: 'internal', message: 'Internal error' };
}

@Catch()
export class WireErrorFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => toWire(exception));
  }
}
