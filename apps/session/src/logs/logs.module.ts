import { Module } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { LogsController } from './logs.controller';
import { LogsRepository } from './logs.repository';
import { LogsService } from './logs.service';

/** `GET /v1/logs` and the live stream's settled calls. */
@Module({
  imports: [CallsModule],
  controllers: [LogsController],
  providers: [LogsRepository, LogsService],
})
export class LogsModule {}
