import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { ApiKeyRepository, createPrisma, type PrismaClient } from '@rota/db';
import { InfraModule, PRISMA } from '@rota/service-kit';
import { ApiKeyService } from './auth/api-key.service';
import { AuthFailureLimiter } from './auth/auth-failures';
import { KeysController } from './auth/keys.controller';
import { CatalogController } from './catalog/catalog.controller';
import { HttpPipeline } from './http/http-pipeline';
import type { GatewayConfig } from './config';
import { HealthController } from './health/health.controller';
import { OpenApiController } from './openapi/openapi.controller';
import { MetaToolsController } from './tools/meta-tools.controller';
import { ToolsSearchController } from './tools/tools-search.controller';
import { ConnectionsController } from './connections/connections.controller';
import { OAuthCallbackController } from './connections/oauth-callback.controller';
import { McpController } from './mcp/mcp.controller';
import { SessionsController } from './sessions/sessions.controller';
import { MocksController } from './sessions/mocks.controller';
import { RouteController } from './router/route.controller';
import { GovernanceController } from './governance/governance.controller';
import { CallRateLimiter } from './governance/rate-limits';
import { LogsController } from './logs/logs.controller';
import { LogStreamHub } from './logs/log-stream';
import { OperationsController } from './operations/operations.controller';
import { WebhooksController } from './webhooks/webhooks.controller';
import { DashboardController } from './dashboard/dashboard.controller';
import { DashboardRepository } from './dashboard/dashboard.repository';
import { DashboardSessions } from './dashboard/dashboard-sessions';

@Module({})
export class GatewayModule {
  /** `extra` lets benchmarks mount additional controllers on the same pipeline. */
  static forConfig(config: GatewayConfig, extra: Type<unknown>[] = []): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        InfraModule.forRoot({
          app: 'gateway',
          config,
          prisma: createPrisma,
          // No offline queue and short deadlines: /health/ready must answer
          // quickly when Redis is gone, and reports the failure itself.
          redis: {
            enableOfflineQueue: false,
            maxRetriesPerRequest: 0,
            connectTimeout: 800,
            commandTimeout: 800,
            quiet: true,
          },
          rpc: true,
        }),
        ...extra,
      ],
      controllers: [
        HealthController,
        CatalogController,
        ToolsSearchController,
        MetaToolsController,
        OpenApiController,
        SessionsController,
        MocksController,
        ConnectionsController,
        KeysController,
        OAuthCallbackController,
        McpController,
        RouteController,
        GovernanceController,
        LogsController,
        OperationsController,
        WebhooksController,
        DashboardController,
      ],
      providers: [
        // @rota/db has no Nest decorators, so its repository is built here.
        {
          provide: ApiKeyRepository,
          inject: [PRISMA],
          useFactory: (prisma: PrismaClient) => new ApiKeyRepository(prisma),
        },
        ApiKeyService,
        AuthFailureLimiter,
        CallRateLimiter,
        HttpPipeline,
        LogStreamHub,
        DashboardRepository,
        DashboardSessions,
      ],
    };
  }
}
