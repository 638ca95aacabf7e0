import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CatalogImportCommand,
  CatalogStatusCommand,
  ProvidersListCommand,
  ServerToolsCommand,
  type CatalogImportResult,
  type CatalogStatus,
  type ProvidersList,
  type ServerToolsList,
} from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { CatalogService } from './catalog.service';

/** The provider catalog over the transport: `search.catalog.*`. */
@Controller()
export class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @MessagePattern('search.catalog.providers')
  providers(
    @Payload(new ZodPipe(ProvidersListCommand, 'invalid_query')) cmd: ProvidersListCommand,
  ): Promise<ProvidersList> {
    return this.catalog.providers(cmd);
  }

  @MessagePattern('search.catalog.tools')
  tools(@Payload(new ZodPipe(ServerToolsCommand, 'invalid_query')) cmd: ServerToolsCommand): Promise<ServerToolsList> {
    return this.catalog.tools(cmd);
  }

  @MessagePattern('search.catalog.status')
  status(@Payload(new ZodPipe(CatalogStatusCommand)) _cmd: unknown): Promise<CatalogStatus> {
    return this.catalog.status();
  }

  @MessagePattern('search.catalog.import')
  import(@Payload(new ZodPipe(CatalogImportCommand)) cmd: CatalogImportCommand): Promise<CatalogImportResult> {
    return this.catalog.import(cmd);
  }
}
