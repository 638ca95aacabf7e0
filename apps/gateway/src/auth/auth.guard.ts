import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError, type Scope } from '@rota/contracts';
import type { FastifyRequest } from 'fastify';
import { ApiKeyService } from './api-key.service';
import { PUBLIC_ROUTE, ROUTE_SCOPE } from './decorators';
import type { Principal } from './principal';

/**
 * Every route needs a valid key unless marked `@Public()`; a route marked
 * `@RequireScope(s)` also needs that scope. Authentication runs before any
 * body validation, so a bad body from an unknown caller is still a 401.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeyService,
  ) {}

  canActivate(ctx: ExecutionContext): boolean | Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const req = ctx.switchToHttp().getRequest<FastifyRequest & { principal?: Principal }>();
    const found = this.keys.verify(req.headers.authorization);
    // A cached key is decided without a promise; a lookup is awaited.
    return found instanceof Promise ? found.then((p) => this.admit(targets, req, p)) : this.admit(targets, req, found);
  }

  private admit(targets: Parameters<Reflector['getAllAndOverride']>[1], req: FastifyRequest & { principal?: Principal }, principal: Principal | null): boolean {
    if (!principal) throw new AppError('unauthorized', 'unauthorized');
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(ROUTE_SCOPE, targets);
    if (scope && !principal.scopes.includes(scope)) {
      throw new AppError('forbidden', `API key does not have the '${scope}' scope.`);
    }
    req.principal = principal;
    return true;
  }
}
