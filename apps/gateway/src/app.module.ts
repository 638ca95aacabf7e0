import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyService } from './auth/api-key.service';
import { AuthGuard } from './auth/auth.guard';
import { CatalogHttpModule } from './catalog/catalog-http.module';
import type { GatewayConfig } from './config';
import { HealthController } from './health/health.controller';
import { InfraModule } from './infra/infra.module';
import { OpenApiController } from './openapi/openapi.controller';
import { MetaToolsController } from './tools/meta-tools.controller';
import { ToolsController } from './tools/tools.controller';
import { ConnectionsController } from './connections/connections.controller';
import { McpController } from './mcp/mcp.controller';
import { SessionsController } from './sessions/sessions.controller';
import { RouterController } from './router/path-c.controller';

@Module({})
export class GatewayModule {
  /** `extra` lets benchmarks mount additional controllers on the same pipeline. */
  static forConfig(config: GatewayConfig, extra: Type<unknown>[] = []): DynamicModule {
    return {
      module: GatewayModule,
      imports: [InfraModule.forConfig(config), CatalogHttpModule, ...extra],
      controllers: [HealthController, ToolsController, MetaToolsController, OpenApiController, SessionsController, ConnectionsController, McpController, RouterController],
      providers: [
        ApiKeyService,
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
    };
  }
}
