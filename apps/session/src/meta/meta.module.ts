import { Module } from '@nestjs/common';
import { ConnectionsModule } from '../connections/connections.module';
import { ToolsModule } from '../tools/tools.module';
import { MetaToolExecutor } from './meta.executor';

/** The meta-tools Rota answers from its own data. */
@Module({
  imports: [ConnectionsModule, ToolsModule],
  providers: [MetaToolExecutor],
  exports: [MetaToolExecutor],
})
export class MetaModule {}
