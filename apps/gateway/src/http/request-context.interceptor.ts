import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { requestContext } from '@rota/service-kit';
import type { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';

/** Runs each handler inside the request's context so logs and service calls carry its id. */
@Injectable()
export class RequestContextInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    return new Observable((subscriber) => requestContext.run({ requestId: String(req.id) }, () => next.handle().subscribe(subscriber)));
  }
}
