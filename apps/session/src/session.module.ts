import { Module, type DynamicModule } from '@nestjs/common';
import { createPrisma, createSqlPool } from '@rota/db';
import { createLogger, InfraModule, loadConfig, REDIS } from '@rota/service-kit';
import type Redis from 'ioredis';
import { providerClients } from './provider-calls/clients';
import { ProviderCallsRepository } from './provider-calls/provider-calls.repository';
import { ProviderCallsService } from './provider-calls/provider-calls.service';
import { ProxyController } from './provider-calls/proxy.controller';
import { ProxyService } from './provider-calls/proxy.service';
import { SessionConfig } from './config';
import { ConnectionsController } from './connections/connections.controller';
import { ExecuteController } from './execute/execute.controller';
import { ConnectionsRepository } from './connections/connections.repository';
import { ConnectionsService } from './connections/connections.service';
import { keyringFromEnv } from './credentials/keyring';
import { ExecuteRepository } from './execute/execute.repository';
import { IdempotencyRepository } from './execute/idempotency.repository';
import { ExecuteService } from './execute/execute.service';
import { PingController } from './ping.controller';
import { PolicyController } from './policy/policy.controller';
import { PolicyRepository } from './policy/policy.repository';
import { PolicyService } from './policy/policy.service';
import { SessionsController } from './sessions/sessions.controller';
import { SessionsRepository } from './sessions/sessions.repository';
import { SessionsService } from './sessions/sessions.service';

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
      controllers: [PingController, SessionsController, ExecuteController, ProxyController, ConnectionsController, PolicyController],
      providers: [
        ConnectionsRepository,
        SessionsRepository,
        ExecuteRepository,
        IdempotencyRepository,
        PolicyRepository,
        PolicyService,
        // The keyring and the idle settings are computed from the config at boot.
        { provide: ConnectionsService, inject: [ConnectionsRepository], useFactory: (r: ConnectionsRepository) => new ConnectionsService(r, keyring) },
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
            new ProviderCallsService(repo, connections, providerClients(config, keyring, redis)),
        },
        {
          provide: ProxyService,
          inject: [SessionsService, IdempotencyRepository, ProviderCallsService],
          useFactory: (s: SessionsService, i: IdempotencyRepository, p: ProviderCallsService) => new ProxyService(s, i, p),
        },
        ExecuteService,
      ],
    };
  }
}
