import { AppError, DiscoverInput, zodIssues } from '@rota/contracts';

/** A discover input once validated: one use case, upper-case country, a limit. */
export interface DiscoverQuery {
  useCase: string;
  category: string | null;
  /** ISO code in upper case, or null for any country (`*` or absent). */
  country: string | null;
  limit: number;
}

/** Leading and trailing space never changes what a caller means. */
function text(v: unknown): string {
  return typeof v === 'string' ? v.trim() : '';
}

/**
 * Reads the raw tool input. `use_case` wins over its alias `query`; when both
 * are missing or blank, or another field is malformed, the call is refused
 * with `invalid_args` before anything touches the database.
 */
export function parseDiscoverInput(raw: Record<string, unknown>): DiscoverQuery {
  const useCase = text(raw.use_case) || text(raw.query);
  if (!useCase) {
    throw new AppError(
      'invalid_args',
      'codespar_discover needs a use_case (or query): a sentence describing what you want to do.',
    );
  }
  const parsed = DiscoverInput.safeParse(raw);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    const where = issues.map((i) => i.path.join('.') || 'input').join(', ');
    throw new AppError('invalid_args', `codespar_discover input is invalid (${where}).`, { issues });
  }
  const category = text(parsed.data.category).toLowerCase();
  const country = text(parsed.data.country).toUpperCase();
  return {
    useCase,
    category: category || null,
    country: country && country !== '*' ? country : null,
    limit: parsed.data.limit,
  };
}
