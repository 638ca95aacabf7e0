import { Module, type DynamicModule } from '@nestjs/common';
import { createPrisma, createSqlPool } from '@rota/db';
import { createLogger, InfraModule, loadConfig, REDIS, RpcClient } from '@rota/service-kit';
import type Redis from 'ioredis';
import { oauth2Tokens, providerClients } from './provider-calls/clients';
import { ProviderCallsRepository } from './calls/provider-calls.repository';
import { ProviderCallsService } from './provider-calls/provider-calls.service';
import { RailsService } from './rails/rails.service';
import { ProxyController } from './provider-calls/proxy.controller';
import { CallLookupController } from './provider-calls/call-lookup.controller';
import { CallLookupRepository } from './provider-calls/call-lookup.repository';
import { CallLookupService } from './provider-calls/call-lookup.service';
import { ProxyService } from './provider-calls/proxy.service';
import { SessionConfig } from './config';
import { ConnectionsController } from './connections/connections.controller';
import { ExecuteController } from './execute/execute.controller';
import { ConnectionsRepository } from './connections/connections.repository';
import { ConnectionsService } from './connections/connections.service';
import { EligibilityNotifier } from './connections/eligibility-notifier';
import { ConnectFlowService } from './connections/manage/connect-flow.service';
import { ManageRepository } from './connections/manage/manage.repository';
import { ManageConnectionsService } from './connections/manage/manage.service';
import { OAuthCallbackController } from './connections/manage/oauth-callback.controller';
import { keyringFromEnv } from './credentials/keyring';
import { CanaryController, KEYRING } from './credentials/canary.controller';
import { CanaryRepository } from './credentials/canary.repository';
import { ToolCallsRepository } from './calls/tool-calls.repository';
import { IdempotencyRepository } from './calls/idempotency.repository';
import { ToolsRepository } from './tools/tools.repository';
import { ExecuteService } from './execute/execute.service';
import { MocksController } from './mocks/mocks.controller';
import { MocksRepository } from './mocks/mocks.repository';
import { MocksService } from './mocks/mocks.service';
import { PingController } from './ping.controller';
import { PolicyController } from './policy/policy.controller';
import { PolicyRepository } from './policy/policy.repository';
import { PolicyService } from './policy/policy.service';
import { SessionsController } from './sessions/sessions.controller';
import { SessionsRepository } from './sessions/sessions.repository';
import { SessionsService } from './sessions/sessions.service';
import { CallLogPublisher } from './calls/call-log.publisher';
import { LogsController } from './logs/logs.controller';
import { LogsRepository } from './logs/logs.repository';
import { LogsService } from './logs/logs.service';

@Module({})
export class SessionModule {
  static forConfig(config: SessionConfig = loadConfig(SessionConfig)): DynamicModule {
    // Fails the boot on a missing or malformed key, before any request is taken.
    const keyring = keyringFromEnv(config);
    if (keyring.insecure) {
      createLogger('session', config.LOG_LEVEL).warn(
        'ROTA_DEV_MODE is on and ROTA_CREDENTIALS_KEY is not set: provider credentials are sealed with the public development key. Set a real key before storing real credentials.',
      );
    }
    return {
      module: SessionModule,
      imports: [
        // The execute path's per-call statements run prepared on a plain pool.
        // Redis holds the OAuth2 access tokens of provider calls, sealed, shared by replicas.
        InfraModule.forRoot({
          app: 'session',
          config,
          prisma: createPrisma,
          sqlPool: createSqlPool,
          rpc: true,
          redis: { maxRetriesPerRequest: 1, quiet: true },
        }),
      ],
      controllers: [
        PingController,
        SessionsController,
        ExecuteController,
        ProxyController,
        CallLookupController,
        ConnectionsController,
        OAuthCallbackController,
        PolicyController,
        MocksController,
        LogsController,
        CanaryController,
      ],
      providers: [
        { provide: KEYRING, useValue: keyring },
        CanaryRepository,
        CallLogPublisher,
        LogsRepository,
        LogsService,
        ConnectionsRepository,
        SessionsRepository,
        ToolCallsRepository,
        ToolsRepository,
        IdempotencyRepository,
        PolicyRepository,
        PolicyService,
        // The keyring and the idle settings are computed from the config at boot.
        // Every connection write refreshes the router's eligibility before it answers.
        {
          provide: ConnectionsService,
          inject: [ConnectionsRepository, RpcClient],
          useFactory: (r: ConnectionsRepository, rpc: RpcClient) =>
            new ConnectionsService(r, keyring, new EligibilityNotifier(rpc, createLogger('session', config.LOG_LEVEL))),
        },
        ManageRepository,
        {
          provide: ConnectFlowService,
          inject: [ManageRepository, ConnectionsService, ConnectionsRepository, REDIS],
          useFactory: (m: ManageRepository, c: ConnectionsService, r: ConnectionsRepository, redis: Redis) =>
            new ConnectFlowService(m, c, r, keyring, providerClients(config, keyring, redis, c), oauth2Tokens(config, keyring, redis, c), {
              publicUrl: (config.ROTA_PUBLIC_URL || 'http://127.0.0.1:3000').replace(/\/+$/, ''),
              oauthClients: config.ROTA_OAUTH_CLIENTS,
            }),
        },
        {
          provide: ManageConnectionsService,
          inject: [ConnectionsRepository, ManageRepository, ConnectFlowService],
          useFactory: (r: ConnectionsRepository, m: ManageRepository, f: ConnectFlowService) => new ManageConnectionsService(r, m, f),
        },
        {
          provide: SessionsService,
          inject: [SessionsRepository, ConnectionsRepository],
          useFactory: (s: SessionsRepository, c: ConnectionsRepository) =>
            new SessionsService(s, c, config.ROTA_SESSION_IDLE_MINUTES, config.ROTA_SESSION_TOUCH_SECONDS),
        },
        ProviderCallsRepository,
        {
          provide: ProviderCallsService,
          inject: [ProviderCallsRepository, ConnectionsService, REDIS],
          useFactory: (repo: ProviderCallsRepository, connections: ConnectionsService, redis: Redis) =>
            new ProviderCallsService(repo, connections, providerClients(config, keyring, redis, connections)),
        },
        CallLookupRepository,
        {
          // Its own clients: a lookup never waits behind, or trips, the breaker of live calls.
          provide: CallLookupService,
          inject: [CallLookupRepository, ProviderCallsRepository, ConnectionsService, REDIS],
          useFactory: (calls: CallLookupRepository, repo: ProviderCallsRepository, connections: ConnectionsService, redis: Redis) =>
            new CallLookupService(calls, repo, connections, providerClients(config, keyring, redis, connections)),
        },
        {
          provide: ProxyService,
          inject: [SessionsService, IdempotencyRepository, ProviderCallsService, PolicyService],
          useFactory: (s: SessionsService, i: IdempotencyRepository, p: ProviderCallsService, g: PolicyService) => new ProxyService(s, i, p, g),
        },
        MocksRepository,
        MocksService,
        RailsService,
        ExecuteService,
      ],
    };
  }
}
