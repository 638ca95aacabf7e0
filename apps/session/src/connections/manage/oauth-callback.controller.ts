import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { OAuthCallbackCommand, type OAuthCallbackOutcome } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { ConnectFlowService } from './connect-flow.service';

/** `session.connections.oauth_callback`: reached without a tenant; the signed state names one. */
@Controller()
export class OAuthCallbackController {
  constructor(@Inject(ConnectFlowService) private readonly flows: ConnectFlowService) {}

  @MessagePattern('session.connections.oauth_callback')
  callback(@Payload(new ZodPipe(OAuthCallbackCommand)) cmd: OAuthCallbackCommand): Promise<OAuthCallbackOutcome> {
    return this.flows.callback(cmd);
  }
}
