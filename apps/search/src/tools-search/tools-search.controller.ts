import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ToolSearchRequest, type ToolSearchResponse } from '@rota/contracts';
import { createLogger, ZodPipe } from '@rota/service-kit';
import { searchTools } from './path-a/classifier';
import type { IntentClassifier } from './path-a/llm';

export const INTENT_CLASSIFIER = Symbol('INTENT_CLASSIFIER');
const log = createLogger('search');

/** Path A over the transport: `search.tools`. */
@Controller()
export class ToolSearchController {
  constructor(@Inject(INTENT_CLASSIFIER) private readonly llm: IntentClassifier | null) {}

  @MessagePattern('search.tools')
  search(@Payload(new ZodPipe(ToolSearchRequest)) body: ToolSearchRequest): Promise<ToolSearchResponse> {
    return searchTools(body, { llm: this.llm, logger: { warn: (msg, meta) => log.warn(meta ?? {}, msg) } });
  }
}
