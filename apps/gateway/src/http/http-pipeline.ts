import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { ApiKeyService } from '../auth/api-key.service';
import { AuthFailureLimiter } from '../auth/auth-failures';
import { installPipeline } from './pipeline';

/**
 * Installs the request pipeline on the Fastify instance. Nest builds
 * providers before it registers any route, so the hooks (including the boot
 * check in `onRoute`) see every route.
 */
@Injectable()
export class HttpPipeline {
  constructor(host: HttpAdapterHost, keys: ApiKeyService, failures: AuthFailureLimiter) {
    installPipeline(host.httpAdapter.getInstance<FastifyInstance>(), keys, failures);
  }
}
