import { Module, type DynamicModule } from '@nestjs/common';
import { createPrisma, createSqlPool } from '@rota/db';
import { createLogger, InfraModule, loadConfig } from '@rota/service-kit';
import { SessionConfig } from './config';
import { ConnectionsModule } from './connections/connections.module';
import { CredentialsModule } from './credentials/credentials.module';
import { keyringFromEnv } from './credentials/keyring';
import { ExecuteModule } from './execute/execute.module';
import { EXECUTORS, type Executors } from './execute/executors';
import { LogsModule } from './logs/logs.module';
import { MetaModule } from './meta/meta.module';
import { MetaToolExecutor } from './meta/meta.executor';
import { MockExecutor } from './mocks/mock.executor';
import { MocksModule } from './mocks/mocks.module';
import { PingController } from './ping.controller';
import { PolicyModule } from './policy/policy.module';
import { ProviderCallsModule } from './provider-calls/provider-calls.module';
import { RawToolExecutor } from './provider-calls/raw.executor';
import { RailExecutor } from './rails/rail.executor';
import { RailsModule } from './rails/rails.module';
import { SessionsModule } from './sessions/sessions.module';

/**
 * The session service: one module per feature, over the calls/ kernel. The
 * executor table is assembled here, so the execute pipeline imports no
 * feature and a tool kind without an executor does not compile.
 */
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
        CredentialsModule.forKeyring(keyring),
        SessionsModule,
        ConnectionsModule,
        PolicyModule,
        MocksModule,
        LogsModule,
        ProviderCallsModule,
        ExecuteModule.register({
          imports: [SessionsModule, PolicyModule, MetaModule, RailsModule, ProviderCallsModule, MocksModule],
          executors: {
            // One executor per tool kind: a kind left out does not compile.
            provide: EXECUTORS,
            inject: [MetaToolExecutor, RailExecutor, RawToolExecutor, MockExecutor],
            useFactory: (
              rota: MetaToolExecutor,
              rail: RailExecutor,
              raw: RawToolExecutor,
              mock: MockExecutor,
            ): Executors => ({ rota, rail, raw, mock }),
          },
        }),
      ],
      controllers: [PingController],
    };
  }
}
