import { type PipeTransform } from '@nestjs/common';
import { AppError, zodIssues } from '@rota/contracts';
import type { z } from 'zod';

/** Validates a payload against a contract schema; failures are 400 `invalid_body` with `issues`. */
export class ZodPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(
    private readonly schema: S,
    private readonly code: 'invalid_body' | 'invalid_query' = 'invalid_body',
  ) {}
  transform(value: unknown): z.infer<S> {
    const parsed = this.schema.safeParse(value);
    if (!parsed.success) {
      throw new AppError(
        this.code,
        this.code === 'invalid_body' ? 'The request body is invalid.' : 'The query string is invalid.',
        {
          issues: zodIssues(parsed.error),
        },
      );
    }
    return parsed.data;
  }
}
