import {
  Global,
  Inject,
  Injectable,
  Module,
  Optional,
  type DynamicModule,
  type OnApplicationShutdown,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import Redis, { type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { BaseConfig } from '../config';
import { createLogger } from '../logger';
import { RpcClient } from '../rpc';
import { CONFIG, LOGGER, PRISMA, REDIS, SQL_POOL } from './tokens';

/** What the lifecycle needs of a Prisma client; service-kit itself stays free of Prisma. */
export interface DisconnectableClient {
  $disconnect(): Promise<void>;
}

/** What the lifecycle needs of a `pg` pool. */
export interface EndablePool {
  end(): Promise<void>;
}

export interface InfraOptions<C extends BaseConfig> {
  /** Names the app in its log lines. */
  app: string;
  /** The validated configuration, provided as `CONFIG`. */
  config: C;
  /**
   * Opens the app's Prisma client from `DATABASE_URL` (usually `createPrisma`
   * from `@rota/db`, passed in so this package does not depend on Prisma).
   */
  prisma?: (databaseUrl: string) => DisconnectableClient;
  /** Opens the plain `pg` pool of named statements (usually `createSqlPool`). */
  sqlPool?: (databaseUrl: string) => EndablePool;
  /**
   * Opens an ioredis client on `REDIS_URL` with these options. `quiet`
   * swallows its error events, for apps that report Redis being down
   * themselves instead of logging every failed reconnect.
   */
  redis?: RedisOptions & { quiet?: boolean };
  /** Opens the transport client, to call other services. */
  rpc?: boolean;
}

type Close = () => unknown;

/**
 * The one place an app's connections are opened and closed. The transport
 * client connects before any other module starts, so a handler never meets a
 * client that is not ready. On shutdown (after the transport server has
 * drained its in-flight requests) it first runs what feature modules
 * registered, newest first, since those hold work that may still need the
 * shared connections, then closes the transport client, Redis, Prisma and
 * the `pg` pool. Being global, Nest shuts this module down after every other.
 */
@Injectable()
export class InfraLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly closers: { name: string; close: Close }[] = [];

  constructor(
    @Inject(LOGGER) private readonly log: Logger,
    @Optional() private readonly rpc?: RpcClient,
    @Optional() @Inject(REDIS) private readonly redis?: Redis,
    @Optional() @Inject(PRISMA) private readonly prisma?: DisconnectableClient,
    @Optional() @Inject(SQL_POOL) private readonly sql?: EndablePool,
  ) {}

  /** Registers something a feature opened itself (a queue, a job runner, its own pool) to be closed on shutdown. */
  closeOnShutdown(name: string, close: Close): void {
    this.closers.push({ name, close });
  }

  async onModuleInit() {
    await this.rpc?.connect();
  }

  async onApplicationShutdown() {
    for (const { name, close } of [...this.closers].reverse()) await this.run(name, close);
    if (this.rpc) await this.run('transport client', () => this.rpc?.close());
    if (this.redis) await this.run('redis', () => this.redis?.disconnect());
    if (this.prisma) await this.run('prisma', () => this.prisma?.$disconnect());
    if (this.sql) await this.run('sql pool', () => this.sql?.end());
  }

  /** One failed close must not keep the others open. */
  private async run(name: string, close: Close) {
    try {
      await close();
    } catch (err) {
      this.log.warn({ err, resource: name }, 'closing a connection failed during shutdown');
    }
  }
}

/**
 * Config, logger, connections and the transport client of one app, global so
 * every feature module injects them by token instead of opening its own.
 */
@Global()
@Module({})
export class InfraModule {
  static forRoot<C extends BaseConfig>(opts: InfraOptions<C>): DynamicModule {
    const { config } = opts;
    const providers: Provider[] = [
      { provide: CONFIG, useValue: config },
      { provide: LOGGER, useValue: createLogger(opts.app, config.LOG_LEVEL) },
      InfraLifecycle,
    ];
    const exported: (symbol | typeof RpcClient | typeof InfraLifecycle)[] = [CONFIG, LOGGER, InfraLifecycle];
    const openPrisma = opts.prisma;
    if (openPrisma) {
      providers.push({ provide: PRISMA, useFactory: () => openPrisma(config.DATABASE_URL) });
      exported.push(PRISMA);
    }
    const openSqlPool = opts.sqlPool;
    if (openSqlPool) {
      providers.push({ provide: SQL_POOL, useFactory: () => openSqlPool(config.DATABASE_URL) });
      exported.push(SQL_POOL);
    }
    if (opts.redis) {
      const { quiet, ...options } = opts.redis;
      providers.push({
        provide: REDIS,
        useFactory: () => {
          const redis = new Redis(config.REDIS_URL, options);
          if (quiet) redis.on('error', () => undefined);
          return redis;
        },
      });
      exported.push(REDIS);
    }
    if (opts.rpc) {
      providers.push({
        provide: RpcClient,
        useFactory: () =>
          new RpcClient({
            url: config.REDIS_URL,
            prefix: config.ROTA_REDIS_PREFIX,
            timeoutMs: config.ROTA_RPC_TIMEOUT_MS,
          }),
      });
      exported.push(RpcClient);
    }
    return { module: InfraModule, providers, exports: exported };
  }
}
