import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { MetaToolsDiscoverRequest, type MetaToolsDiscoverResponse } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { RouteService } from './route.service';

/** `router.route` over the transport: path C, the rail for an operation already chosen. */
@Controller()
export class RouteController {
  constructor(@Inject(RouteService) private readonly routes: RouteService) {}

  @MessagePattern('router.route')
  route(@Payload(new ZodPipe(MetaToolsDiscoverRequest)) body: MetaToolsDiscoverRequest): Promise<MetaToolsDiscoverResponse> {
    return this.routes.route(body);
  }
}
