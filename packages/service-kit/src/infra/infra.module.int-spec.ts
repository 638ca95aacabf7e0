import 'reflect-metadata';
import { Inject, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type Redis from 'ioredis';
import { BaseConfig, loadConfig } from '../config';
import { RpcClient } from '../rpc';
import { testPrefix } from '../testing/redis-server';
import { InfraLifecycle, InfraModule } from './infra.module';
import { CONFIG, PRISMA, REDIS, SQL_POOL } from './tokens';

/** Records the order in which the app's connections are released. */
const closed: string[] = [];

// Stand-ins for the Prisma client and the pg pool: this package does not
// depend on @rota/db, and only their close methods matter here.
const prisma = { $disconnect: async () => void closed.push('prisma') };
const pool = { end: async () => void closed.push('sql pool') };

@Injectable()
class Feature {
  constructor(
    lifecycle: InfraLifecycle,
    @Inject(CONFIG) readonly config: BaseConfig,
    @Inject(REDIS) readonly redis: Redis,
    readonly rpc: RpcClient,
  ) {
    lifecycle.closeOnShutdown('first', () => void closed.push('first'));
    lifecycle.closeOnShutdown('broken', () => {
      throw new Error('cannot close');
    });
    lifecycle.closeOnShutdown('last', () => void closed.push('last'));
  }
}

@Module({ providers: [Feature] })
class FeatureModule {}

describe('InfraModule', () => {
  it('provides the config and connections, connects the transport at boot, and closes everything once, in order, on shutdown', async () => {
    const config = loadConfig(BaseConfig, {
      ...process.env,
      ROTA_REDIS_PREFIX: testPrefix('infra'),
      LOG_LEVEL: 'silent',
    });
    const app = await NestFactory.createApplicationContext(
      {
        module: class AppModule {},
        imports: [
          InfraModule.forRoot({
            app: 'infra-test',
            config,
            prisma: () => prisma,
            sqlPool: () => pool,
            redis: { maxRetriesPerRequest: 1 },
            rpc: true,
          }),
          FeatureModule,
        ],
      },
      { logger: false },
    );
    await app.init();
    const feature = app.get(Feature);
    expect(feature.config).toBe(config);
    expect(app.get(PRISMA)).toBe(prisma);
    expect(app.get(SQL_POOL)).toBe(pool);
    expect(await feature.redis.ping()).toBe('PONG');
    // Connected at boot: a call to a service nobody serves times out instead of failing as not connected.
    await expect(feature.rpc.send('search.ping', {}, { timeoutMs: 200 })).rejects.toMatchObject({
      code: 'upstream_timeout',
    });

    const rpcClose = feature.rpc.close.bind(feature.rpc);
    feature.rpc.close = async () => {
      closed.push('transport client');
      await rpcClose();
    };
    const redisDisconnect = feature.redis.disconnect.bind(feature.redis);
    feature.redis.disconnect = (reconnect?: boolean) => {
      closed.push('redis');
      redisDisconnect(reconnect);
    };
    await app.close();

    // What features registered goes first, newest first; a failure does not keep the rest open.
    expect(closed).toEqual(['last', 'first', 'transport client', 'redis', 'prisma', 'sql pool']);
    // ioredis reports the end of a disconnect on its next turn.
    if (feature.redis.status !== 'end') await new Promise((resolve) => feature.redis.once('end', resolve));
    expect(feature.redis.status).toBe('end');
  });

  it('provides only what the app asked for', async () => {
    const config = loadConfig(BaseConfig, { ...process.env, LOG_LEVEL: 'silent' });
    const app = await NestFactory.createApplicationContext(
      { module: class BareModule {}, imports: [InfraModule.forRoot({ app: 'infra-test', config })] },
      { logger: false },
    );
    expect(app.get(CONFIG)).toBe(config);
    expect(() => app.get(REDIS)).toThrow();
    expect(() => app.get(RpcClient)).toThrow();
    await app.close();
  });
});
