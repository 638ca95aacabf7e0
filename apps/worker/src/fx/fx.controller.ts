import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { FxListCommand, FxRatesImport, type FxImportResult, type FxRatesList } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { FxService } from './fx.service';

/** Exchange rates over the transport: the operator import and the list. */
@Controller()
export class FxController {
  constructor(@Inject(FxService) private readonly fx: FxService) {}

  @MessagePattern('worker.fx.import')
  import(@Payload(new ZodPipe(FxRatesImport)) body: FxRatesImport): Promise<FxImportResult> {
    return this.fx.import(body);
  }

  @MessagePattern('worker.fx.list')
  list(@Payload(new ZodPipe(FxListCommand)) _cmd: FxListCommand): Promise<FxRatesList> {
    return this.fx.list();
  }
}
