import {
  applyDecorators,
  createParamDecorator,
  HttpCode,
  RequestMapping,
  RequestMethod,
  type ExecutionContext,
} from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { RouteDef, RouteInput, Scope } from '@rota/contracts';
import type { FastifyRequest } from 'fastify';

/** What a route's Fastify `config` carries for the request pipeline (`http/pipeline.ts`). */
export interface RotaRouteConfig {
  /** A documented route: authentication, validation and body limit come from its definition. */
  rota?: RouteDef;
  /**
   * An undocumented route mounted by a benchmark or a test: authenticated
   * with this scope (or public with `null`), body left to the handler.
   */
  rotaAuth?: Scope | null;
}

const METHODS = {
  get: RequestMethod.GET,
  post: RequestMethod.POST,
  put: RequestMethod.PUT,
  patch: RequestMethod.PATCH,
  delete: RequestMethod.DELETE,
} as const;

/**
 * Binds a handler to its route definition in contracts: method, path,
 * success status, scope, validation and body limit all come from `def`, so
 * the handler and `/openapi.json` cannot disagree. Use in a controller
 * without a path prefix: `@Route(ROUTES.createSession)`.
 */
export function Route(def: RouteDef) {
  const path = def.path.replace(/\{([A-Za-z_]+)\}/g, ':$1');
  return applyDecorators(
    RequestMapping({ path, method: METHODS[def.method] }),
    HttpCode(def.success),
    RouteConfig({ rota: def } satisfies RotaRouteConfig),
  );
}

/** An undocumented route that needs a key carrying `scope` (benchmarks and tests only). */
export const RequireScope = (scope: Scope) => RouteConfig({ rotaAuth: scope } satisfies RotaRouteConfig);

/** An undocumented route without a credential (benchmarks and tests only). */
export const Public = () => RouteConfig({ rotaAuth: null } satisfies RotaRouteConfig);

/** The request's params, query and body as its route definition parsed them. */
export const Input = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  return (ctx.switchToHttp().getRequest<FastifyRequest>() as FastifyRequest & { rotaInput?: unknown }).rotaInput;
});

/** The parsed input of route `R`, for handler signatures: `@Input() input: In<typeof ROUTES.getSession>`. */
export type In<R extends RouteDef> = RouteInput<R>;
