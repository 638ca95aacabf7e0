import { Module } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { PolicyModule } from '../policy/policy.module';
import { ProviderCallsModule } from '../provider-calls/provider-calls.module';
import { RailExecutor } from './rail.executor';
import { RailsService } from './rails.service';

/** Acting meta-tools on provider rails. */
@Module({
  imports: [CallsModule, PolicyModule, ProviderCallsModule],
  providers: [RailsService, RailExecutor],
  exports: [RailExecutor],
})
export class RailsModule {}
