import { ROUTES } from './routes';

// README.md and ARCHITECTURE.md carry route and scope tables generated from ROUTES (scripts/docs-routes.cjs).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { stale } = require('../../../scripts/docs-routes.cjs') as { stale(routes: unknown): string[] };

describe('route tables in README.md and ARCHITECTURE.md', () => {
  it('match ROUTES (run pnpm docs:routes after changing a route or its scope)', () => {
    expect({ staleRouteTablesIn: stale(ROUTES) }).toEqual({ staleRouteTablesIn: [] });
  });
});
