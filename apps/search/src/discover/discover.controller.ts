import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DiscoverRequest, type DiscoverResult } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { DiscoverService } from './discover.service';

/** `codespar_discover` over the transport: `search.discover`. */
@Controller()
export class DiscoverController {
  constructor(private readonly discover: DiscoverService) {}

  @MessagePattern('search.discover')
  handle(@Payload(new ZodPipe(DiscoverRequest)) body: DiscoverRequest): Promise<DiscoverResult> {
    return this.discover.discover(body);
  }
}
