import { Module } from '@nestjs/common';
import { CONFIG, REDIS } from '@rota/service-kit';
import type Redis from 'ioredis';
import { CallsModule } from '../calls/calls.module';
import { IdempotencyRepository } from '../calls/idempotency.repository';
import { ProviderCallsRepository } from '../calls/provider-calls.repository';
import type { SessionConfig } from '../config';
import { providerClients } from '../connections/clients';
import { ConnectionsModule } from '../connections/connections.module';
import { ConnectionsService } from '../connections/connections.service';
import { KEYRING } from '../credentials/canary.controller';
import type { Keyring } from '../credentials/keyring';
import { PolicyModule } from '../policy/policy.module';
import { PolicyService } from '../policy/policy.service';
import { SessionsModule } from '../sessions/sessions.module';
import { SessionsService } from '../sessions/sessions.service';
import { CallLookupController } from './call-lookup.controller';
import { CallLookupRepository } from './call-lookup.repository';
import { CallLookupService } from './call-lookup.service';
import { ProviderCallsService } from './provider-calls.service';
import { ProxyController } from './proxy.controller';
import { ProxyService } from './proxy.service';
import { RawToolExecutor } from './raw.executor';

/** Calls to providers: raw catalog tools, the proxy and the lookup of a call whose outcome is unknown. */
@Module({
  imports: [CallsModule, ConnectionsModule, SessionsModule, PolicyModule],
  controllers: [ProxyController, CallLookupController],
  providers: [
    {
      provide: ProviderCallsService,
      inject: [ProviderCallsRepository, ConnectionsService, REDIS, KEYRING, CONFIG],
      useFactory: (
        repo: ProviderCallsRepository,
        connections: ConnectionsService,
        redis: Redis,
        keyring: Keyring,
        config: SessionConfig,
      ) => new ProviderCallsService(repo, connections, providerClients(config, keyring, redis, connections)),
    },
    CallLookupRepository,
    {
      // Its own clients: a lookup never waits behind, or trips, the breaker of live calls.
      provide: CallLookupService,
      inject: [CallLookupRepository, ProviderCallsRepository, ConnectionsService, REDIS, KEYRING, CONFIG],
      useFactory: (
        calls: CallLookupRepository,
        repo: ProviderCallsRepository,
        connections: ConnectionsService,
        redis: Redis,
        keyring: Keyring,
        config: SessionConfig,
      ) => new CallLookupService(calls, repo, connections, providerClients(config, keyring, redis, connections)),
    },
    {
      provide: ProxyService,
      inject: [SessionsService, IdempotencyRepository, ProviderCallsService, PolicyService],
      useFactory: (s: SessionsService, i: IdempotencyRepository, p: ProviderCallsService, g: PolicyService) =>
        new ProxyService(s, i, p, g),
    },
    RawToolExecutor,
  ],
  exports: [ProviderCallsService, RawToolExecutor],
})
export class ProviderCallsModule {}
