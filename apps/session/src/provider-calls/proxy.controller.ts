import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ProxyCommand, type ProxyReply } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { ProxyService } from './proxy.service';

/** `session.proxy`: raw HTTP to a session's provider. */
@Controller()
export class ProxyController {
  constructor(private readonly proxies: ProxyService) {}

  @MessagePattern('session.proxy')
  proxy(@Payload(new ZodPipe(ProxyCommand)) cmd: ProxyCommand): Promise<ProxyReply> {
    return this.proxies.proxy(cmd);
  }
}
