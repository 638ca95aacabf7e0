import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { type DynamicModule, type INestMicroservice, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ServiceName } from '@rota/contracts';
import { createLogger, PinoNestLogger } from './logger';
import { startMetricsListener } from './metrics';
import { startTracing } from './tracing';
import { WireErrorFilter } from './rpc-filter';
import { RedisStreamsServer } from './transport/server';
import type { BaseConfig } from './config';

/** Identifies one running replica in logs, pings and benchmarks. */
export const REPLICA_ID = `${hostname()}-${process.pid}-${randomBytes(2).toString('hex')}`;

export interface StartedService {
  app: INestMicroservice;
  server: RedisStreamsServer;
}

/**
 * Boots a Nest microservice on the Redis Streams transport with JSON logs,
 * the wire-error filter, tracing (see `startTracing`) and graceful shutdown
 * on SIGTERM/SIGINT.
 */
export async function startService(
  service: ServiceName,
  module: Type<unknown> | DynamicModule,
  config: BaseConfig,
): Promise<StartedService> {
  const logger = createLogger(service, config.LOG_LEVEL);
  const tracing = startTracing(service, config, logger, REPLICA_ID);
  const server = new RedisStreamsServer({
    url: config.REDIS_URL,
    prefix: config.ROTA_REDIS_PREFIX,
    service,
    consumer: REPLICA_ID,
    drainTimeoutMs: config.ROTA_DRAIN_TIMEOUT_MS,
  });
  // Nest closes the transport last, on app.close() and on a signal alike:
  // after its drain, the spans of the last requests are flushed.
  const closeServer = server.close.bind(server);
  server.close = async () => {
    await closeServer();
    await tracing.close();
  };
  const app = await NestFactory.createMicroservice(module, {
    strategy: server,
    logger: new PinoNestLogger(logger),
    bufferLogs: false,
  });
  app.useGlobalFilters(new WireErrorFilter());
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen();
  logger.info({ replica: REPLICA_ID }, `${service} service listening on the transport`);
  if (config.ROTA_METRICS_PORT !== undefined) {
    const metrics = await startMetricsListener(config.ROTA_METRICS_PORT, config.ROTA_METRICS_HOST);
    logger.info(
      { port: metrics.port },
      `${service} metrics on http://${config.ROTA_METRICS_HOST}:${metrics.port}/metrics`,
    );
    const close = app.close.bind(app);
    app.close = async () => {
      await metrics.close();
      await close();
    };
  }
  return { app, server };
}

/** The answer every service gives to `<service>.ping`. */
export function pingAnswer(service: ServiceName) {
  return { service, replica: REPLICA_ID, at: new Date().toISOString() };
}
