import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module';
import { ToolsModule } from '../tools/tools.module';
import { MockExecutor } from './mock.executor';
import { MocksController } from './mocks.controller';
import { MocksRepository } from './mocks.repository';
import { MocksService } from './mocks.service';

/** Mocks of a test session's calls. */
@Module({
  imports: [SessionsModule, ToolsModule],
  controllers: [MocksController],
  providers: [MocksRepository, MocksService, MockExecutor],
  exports: [MockExecutor],
})
export class MocksModule {}
