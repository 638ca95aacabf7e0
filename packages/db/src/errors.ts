import { AppError } from '@rota/contracts';

/** Prisma's known-request error codes that have a meaning for callers. */
const UNIQUE_VIOLATION = 'P2002';
const FOREIGN_KEY_VIOLATION = 'P2003';
const RECORD_NOT_FOUND = 'P2025';

/** The `code` of a Prisma known-request error, if `err` is one. */
export function prismaErrorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^P\d{4}$/.test(code) ? code : undefined;
}

/**
 * Turns Prisma's unique and not-found errors into `conflict` and `not_found`
 * AppErrors; anything else is returned untouched for the caller to rethrow.
 */
export function mapPrismaError(err: unknown, what = 'record'): unknown {
  switch (prismaErrorCode(err)) {
    case UNIQUE_VIOLATION:
      return new AppError('conflict', `${what} already exists`);
    case FOREIGN_KEY_VIOLATION:
    case RECORD_NOT_FOUND:
      return new AppError('not_found', `${what} not found`);
    default:
      return err;
  }
}
