import { Module } from '@nestjs/common';
import { CONFIG, createLogger, REDIS, RpcClient } from '@rota/service-kit';
import type Redis from 'ioredis';
import type { SessionConfig } from '../config';
import { KEYRING } from '../credentials/canary.controller';
import type { Keyring } from '../credentials/keyring';
import { oauth2Tokens, providerClients } from './clients';
import { ConnectionsController } from './connections.controller';
import { ConnectionsRepository } from './connections.repository';
import { ConnectionsService } from './connections.service';
import { EligibilityNotifier } from './eligibility-notifier';
import { ConnectFlowService } from './manage/connect-flow.service';
import { ManageRepository } from './manage/manage.repository';
import { ManageConnectionsService } from './manage/manage.service';
import { OAuthCallbackController } from './manage/oauth-callback.controller';

/** Provider connections: saving sealed credentials, the connect flows, and `codespar_manage_connections`. */
@Module({
  controllers: [ConnectionsController, OAuthCallbackController],
  providers: [
    ConnectionsRepository,
    ManageRepository,
    {
      // Every connection write refreshes the router's eligibility before it answers.
      provide: ConnectionsService,
      inject: [ConnectionsRepository, RpcClient, KEYRING, CONFIG],
      useFactory: (r: ConnectionsRepository, rpc: RpcClient, keyring: Keyring, config: SessionConfig) =>
        new ConnectionsService(r, keyring, new EligibilityNotifier(rpc, createLogger('session', config.LOG_LEVEL))),
    },
    {
      provide: ConnectFlowService,
      inject: [ManageRepository, ConnectionsService, ConnectionsRepository, REDIS, KEYRING, CONFIG],
      useFactory: (
        m: ManageRepository,
        c: ConnectionsService,
        r: ConnectionsRepository,
        redis: Redis,
        keyring: Keyring,
        config: SessionConfig,
      ) =>
        new ConnectFlowService(
          m,
          c,
          r,
          keyring,
          providerClients(config, keyring, redis, c),
          oauth2Tokens(config, keyring, redis, c),
          {
            publicUrl: config.ROTA_PUBLIC_URL ? config.ROTA_PUBLIC_URL.replace(/\/+$/, '') : undefined,
            oauthClients: config.ROTA_OAUTH_CLIENTS,
          },
        ),
    },
    {
      provide: ManageConnectionsService,
      inject: [ConnectionsRepository, ManageRepository, ConnectFlowService],
      useFactory: (r: ConnectionsRepository, m: ManageRepository, f: ConnectFlowService) =>
        new ManageConnectionsService(r, m, f),
    },
  ],
  exports: [ConnectionsRepository, ConnectionsService, ManageConnectionsService],
})
export class ConnectionsModule {}
