import type { ProviderModel, Reply, RouteDef } from './types';

/**
 * A prefix that answers any request with what it received (method, path,
 * query, body): it exists to exercise an auth scheme or a fault against a
 * provider the sandbox does not model. Credential headers never appear in
 * the answer, and neither does a query parameter that carries the key.
 */

function err(status: number, code: string, message: string): Reply {
  return { status, body: { error: code, message } };
}

export function echo(hiddenQueryParams: string[]): ProviderModel<Record<string, never>> {
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
  const routes: RouteDef<Record<string, never>>[] = methods.map((method) => ({
    name: 'echo',
    method,
    path: '/*',
    handle(ctx) {
      const query = Object.fromEntries([...ctx.query.entries()].filter(([k]) => !hiddenQueryParams.includes(k)));
      if (method !== 'GET') ctx.created('echoes');
      return {
        status: method === 'POST' ? 201 : 200,
        body: { method, path: `/${ctx.params['*'] ?? ''}`, query, body: ctx.body ?? null },
      };
    },
  }));
  return {
    idempotencyHeader: 'idempotency-key',
    conflictStatus: 409,
    error: err,
    unauthorized: (status) => err(status, status === 401 ? 'unauthorized' : 'forbidden', 'credential refused'),
    createState: () => ({}),
    routes,
  };
}
