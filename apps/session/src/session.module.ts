import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { createPrisma, createSqlPool, type PrismaClient, type SqlPool } from '@rota/db';
import { createLogger, loadConfig, RpcClient } from '@rota/service-kit';
import { SESSION_CONFIG, SessionConfig } from './config';
import { ConnectionsController } from './connections/connections.controller';
import { ConnectionsRepository } from './connections/connections.repository';
import { ConnectionsService } from './connections/connections.service';
import { keyringFromEnv } from './credentials/keyring';
import { ExecuteRepository } from './execute/execute.repository';
import { ExecuteService } from './execute/execute.service';
import { PingController } from './ping.controller';
import { SessionsController } from './sessions/sessions.controller';
import { SessionsRepository } from './sessions/sessions.repository';
import { SessionsService } from './sessions/sessions.service';

const PRISMA = Symbol('PRISMA');
const SQL = Symbol('SQL_POOL');

/** Opens the transport client at boot; releases it and the database after the last request drained. */
@Injectable()
class Lifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(SQL) private readonly sql: SqlPool,
  ) {}
  async onModuleInit() {
    await this.rpc.connect();
  }
  async onApplicationShutdown() {
    await this.rpc.close();
    await this.prisma.$disconnect();
    await this.sql.end();
  }
}

@Module({})
export class SessionModule {
  static forConfig(config: SessionConfig = loadConfig(SessionConfig)): DynamicModule {
    // Fails the boot on a missing or malformed key, before any request is taken.
    const keyring = keyringFromEnv(config);
    if (keyring.insecure) {
      createLogger('session', config.LOG_LEVEL).warn(
        'ROTA_CREDENTIALS_KEY is not set: provider credentials are sealed with the public development key. Set a real key before storing real credentials.',
      );
    }
    return {
      module: SessionModule,
      controllers: [PingController, SessionsController, ConnectionsController],
      providers: [
        { provide: SESSION_CONFIG, useValue: config },
        { provide: PRISMA, useFactory: () => createPrisma(config.DATABASE_URL) },
        // The execute path's per-call statements run prepared on a plain pool.
        { provide: SQL, useFactory: () => createSqlPool(config.DATABASE_URL) },
        { provide: RpcClient, useFactory: () => new RpcClient({ url: config.REDIS_URL, prefix: config.ROTA_REDIS_PREFIX, timeoutMs: config.ROTA_RPC_TIMEOUT_MS }) },
        { provide: ConnectionsRepository, inject: [PRISMA], useFactory: (p: PrismaClient) => new ConnectionsRepository(p) },
        { provide: SessionsRepository, inject: [PRISMA, SQL], useFactory: (p: PrismaClient, sql: SqlPool) => new SessionsRepository(p, sql) },
        { provide: ExecuteRepository, inject: [PRISMA, SQL], useFactory: (p: PrismaClient, sql: SqlPool) => new ExecuteRepository(p, sql) },
        { provide: ConnectionsService, inject: [ConnectionsRepository], useFactory: (r: ConnectionsRepository) => new ConnectionsService(r, keyring) },
        {
          provide: SessionsService,
          inject: [SessionsRepository, ConnectionsRepository],
          useFactory: (s: SessionsRepository, c: ConnectionsRepository) => new SessionsService(s, c, config.ROTA_SESSION_IDLE_MINUTES, config.ROTA_SESSION_TOUCH_SECONDS),
        },
        {
          provide: ExecuteService,
          inject: [SessionsService, ConnectionsRepository, ExecuteRepository, RpcClient],
          useFactory: (s: SessionsService, c: ConnectionsRepository, e: ExecuteRepository, rpc: RpcClient) => new ExecuteService(config, s, c, e, rpc),
        },
        Lifecycle,
      ],
    };
  }
}
