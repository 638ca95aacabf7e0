import { Module } from '@nestjs/common';
import { CallBook } from './call-book';
import { CallLogPublisher } from './call-log.publisher';
import { IdempotencyRepository } from './idempotency.repository';
import { ProviderCallsRepository } from './provider-calls.repository';
import { ToolCallsRepository } from './tool-calls.repository';

/** The calls kernel: call rows, idempotency keys and the call log, for every feature. */
@Module({
  providers: [CallLogPublisher, IdempotencyRepository, ToolCallsRepository, ProviderCallsRepository, CallBook],
  exports: [CallLogPublisher, IdempotencyRepository, ToolCallsRepository, ProviderCallsRepository, CallBook],
})
export class CallsModule {}
