import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Scope } from '@rota/contracts';
import type { FastifyRequest } from 'fastify';
import type { Principal } from './principal';

export const PUBLIC_ROUTE = 'rota:public';
export const ROUTE_SCOPE = 'rota:scope';

/** The route needs no credential (health, published catalogs, docs). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** The route needs a key carrying this scope. */
export const RequireScope = (scope: Scope) => SetMetadata(ROUTE_SCOPE, scope);

/** The verified caller, as set by the auth guard. */
export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return (ctx.switchToHttp().getRequest<FastifyRequest>() as FastifyRequest & { principal: Principal }).principal;
});
