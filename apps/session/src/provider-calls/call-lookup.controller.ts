import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CallLookupCommand, type CallLookupAnswer } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { CallLookupService } from './call-lookup.service';

/** `session.calls.lookup`: the reconcile sweep's question to a provider. */
@Controller()
export class CallLookupController {
  constructor(private readonly lookups: CallLookupService) {}

  @MessagePattern('session.calls.lookup')
  lookup(@Payload(new ZodPipe(CallLookupCommand)) cmd: CallLookupCommand): Promise<CallLookupAnswer> {
    return this.lookups.lookup(cmd);
  }
}
