import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Principal } from './principal';

export { Public, RequireScope } from '../http/route';

/** The verified caller, as the pipeline's authentication step set it. */
export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return (ctx.switchToHttp().getRequest<FastifyRequest>() as FastifyRequest & { principal: Principal }).principal;
});
