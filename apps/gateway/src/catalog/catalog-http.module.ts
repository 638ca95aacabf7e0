import { Module } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { CatalogController } from './catalog.controller';

/**
 * Fastify takes a body limit per route, but Nest has no decorator for it.
 * Routes that carry `@RouteConfig({ bodyLimit })` get it as their real limit;
 * this runs while providers are built, before Nest registers any route.
 */
export const ROUTE_BODY_LIMITS = Symbol('ROUTE_BODY_LIMITS');

@Module({
  controllers: [CatalogController],
  providers: [
    {
      provide: ROUTE_BODY_LIMITS,
      inject: [HttpAdapterHost],
      useFactory: (host: HttpAdapterHost) => {
        const fastify = host.httpAdapter?.getInstance?.() as FastifyInstance | undefined;
        fastify?.addHook('onRoute', (route: RouteOptions) => {
          const limit = (route.config as { bodyLimit?: unknown } | undefined)?.bodyLimit;
          if (typeof limit === 'number') route.bodyLimit = limit;
        });
        return true;
      },
    },
  ],
})
export class CatalogHttpModule {}
