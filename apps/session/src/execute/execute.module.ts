import { Module, type DynamicModule, type ModuleMetadata, type Provider } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { ToolsModule } from '../tools/tools.module';
import { ExecuteController } from './execute.controller';
import { ExecuteService } from './execute.service';
import { EXECUTORS } from './executors';
import { ToolResolver } from './resolve';

/**
 * The execute pipeline. It imports no feature: the application passes the
 * modules that provide the executor table (`EXECUTORS`), the policy gate and
 * the call contexts, and the provider that builds the table.
 */
@Module({})
export class ExecuteModule {
  static register(a: {
    imports: NonNullable<ModuleMetadata['imports']>;
    executors: Provider & { provide: typeof EXECUTORS };
  }): DynamicModule {
    return {
      module: ExecuteModule,
      imports: [CallsModule, ToolsModule, ...a.imports],
      controllers: [ExecuteController],
      providers: [ToolResolver, a.executors, ExecuteService],
    };
  }
}
