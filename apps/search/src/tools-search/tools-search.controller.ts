import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ToolSearchRequest, type ToolSearchResponse } from '@rota/contracts';
import { createLogger, ZodPipe } from '@rota/service-kit';
import type { IntentClassifier } from './llm';
import { ToolsSearchService } from './tools-search.service';

export const INTENT_CLASSIFIER = Symbol('INTENT_CLASSIFIER');
const log = createLogger('search');

/** Path A over the transport: `search.tools`. */
@Controller()
export class ToolsSearchController {
  private readonly tools: ToolsSearchService;

  constructor(@Inject(INTENT_CLASSIFIER) llm: IntentClassifier | null) {
    this.tools = new ToolsSearchService({ llm, logger: { warn: (msg, meta) => log.warn(meta ?? {}, msg) } });
  }

  @MessagePattern('search.tools')
  search(@Payload(new ZodPipe(ToolSearchRequest)) body: ToolSearchRequest): Promise<ToolSearchResponse> {
    return this.tools.search(body);
  }
}
