import { Module } from '@nestjs/common';
import { ToolsRepository } from './tools.repository';

/** Catalog tools as a project may call them. */
@Module({ providers: [ToolsRepository], exports: [ToolsRepository] })
export class ToolsModule {}
