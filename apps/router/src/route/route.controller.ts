import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  MetaToolsDiscoverRequest,
  RouterSelectRequest,
  type MetaToolsDiscoverResponse,
  type RouterSelectResponse,
} from '@rota/contracts';
import { currentTenant, ZodPipe } from '@rota/service-kit';
import { RouteService } from './route.service';
import { SelectService } from './select.service';

/** `router.route` over the transport: path C, the rail for an operation already chosen. */
@Controller()
export class RouteController {
  constructor(
    @Inject(RouteService) private readonly routes: RouteService,
    @Inject(SelectService) private readonly selector: SelectService,
  ) {}

  @MessagePattern('router.route')
  route(
    @Payload(new ZodPipe(MetaToolsDiscoverRequest)) body: MetaToolsDiscoverRequest,
  ): Promise<MetaToolsDiscoverResponse> {
    return this.routes.route(body);
  }

  /** The rails an acting meta-tool call may run on, best first (execute routes again on every call). */
  @MessagePattern('router.select')
  select(@Payload(new ZodPipe(RouterSelectRequest)) req: RouterSelectRequest): Promise<RouterSelectResponse> {
    return this.selector.select(currentTenant(), req);
  }
}
