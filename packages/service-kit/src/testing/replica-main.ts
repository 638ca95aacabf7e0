/**
 * A stand-alone replica used by transport tests and the scale-out benchmark.
 * It serves the `fixture` service with an echo, a slow and a CPU-bound handler.
 * Env: REDIS_URL, ROTA_REDIS_PREFIX, REPLICA_NAME.
 */
import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { WireErrorFilter } from '../rpc-filter';
import { RedisStreamsServer } from '../transport/server';
import { AppError } from '@rota/contracts';

const replica = process.env.REPLICA_NAME ?? `replica-${process.pid}`;

@Controller()
class FixtureController {
  @MessagePattern('fixture.echo')
  echo(@Payload() data: { n: number }) {
    return { replica, n: data.n };
  }

  @MessagePattern('fixture.slow')
  async slow(@Payload() data: { ms: number; n?: number }) {
    await new Promise((r) => setTimeout(r, data.ms));
    return { replica, n: data.n };
  }

  @MessagePattern('fixture.work')
  work(@Payload() data: { iterations: number }) {
    // Deterministic busy loop standing in for real CPU-bound work.
    let x = 0;
    for (let i = 0; i < data.iterations; i++) x = (x * 31 + i) % 1_000_003;
    return { replica, result: x };
  }

  @MessagePattern('fixture.fail')
  fail() {
    throw new AppError('conflict', 'fixture conflict', { hint: 'x' });
  }

  @MessagePattern('fixture.crash')
  crash() {
    throw new Error('boom with secret internals');
  }
}

@Module({ controllers: [FixtureController] })
class FixtureModule {}

async function main() {
  const server = new RedisStreamsServer({
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    prefix: process.env.ROTA_REDIS_PREFIX ?? 'rota-fixture',
    service: 'fixture',
    consumer: replica,
    heartbeatMs: Number(process.env.HEARTBEAT_MS ?? 300),
    reclaimEveryMs: Number(process.env.RECLAIM_MS ?? 300),
    concurrency: Number(process.env.CONCURRENCY ?? 128),
  });
  const app = await NestFactory.createMicroservice(FixtureModule, { strategy: server, logger: false });
  app.useGlobalFilters(new WireErrorFilter());
  app.enableShutdownHooks(['SIGTERM']);
  await app.listen();
  process.send?.({ ready: true, replica });
  setInterval(() => process.send?.({ handled: server.handledCount }), 200).unref();
}

void main();
