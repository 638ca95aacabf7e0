import { Module } from '@nestjs/common';
import { CONFIG } from '@rota/service-kit';
import type { SessionConfig } from '../config';
import { ConnectionsModule } from '../connections/connections.module';
import { ConnectionsRepository } from '../connections/connections.repository';
import { CALL_CONTEXTS } from '../execute/executors';
import { SessionCallContexts } from './call-contexts';
import { SessionsController } from './sessions.controller';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

/** Sessions, and where an execute call runs (`CALL_CONTEXTS`). */
@Module({
  imports: [ConnectionsModule],
  controllers: [SessionsController],
  providers: [
    SessionsRepository,
    {
      // The idle settings are read from the config at boot.
      provide: SessionsService,
      inject: [SessionsRepository, ConnectionsRepository, CONFIG],
      useFactory: (s: SessionsRepository, c: ConnectionsRepository, config: SessionConfig) =>
        new SessionsService(s, c, config.ROTA_SESSION_IDLE_MINUTES, config.ROTA_SESSION_TOUCH_SECONDS),
    },
    { provide: CALL_CONTEXTS, useClass: SessionCallContexts },
  ],
  exports: [SessionsService, CALL_CONTEXTS],
})
export class SessionsModule {}
