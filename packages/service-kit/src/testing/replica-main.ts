/**
 * A stand-alone replica used by transport tests and the scale-out benchmark.
 * It serves the `fixture` service with an echo, a slow and a CPU-bound handler,
 * a read-only one (`fixture.read`) and `fixture.act`, which counts its runs in Redis so a test can tell how
 * often a request really ran, even in a replica that was stopped or killed.
 * Env: REDIS_URL, ROTA_REDIS_PREFIX, REPLICA_NAME, HEARTBEAT_MS, RECLAIM_MS,
 * CONCURRENCY, BLOCK_MS.
 */
import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { WireErrorFilter } from '../rpc-filter';
import { RedisStreamsServer } from '../transport/server';
import { AppError } from '@rota/contracts';
import Redis from 'ioredis';
import { requestContext } from '../context';
import { fixtureRunsKey } from './fixture';

const replica = process.env.REPLICA_NAME ?? `replica-${process.pid}`;
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.ROTA_REDIS_PREFIX ?? 'rota-fixture';

const counter = new Redis(redisUrl, { maxRetriesPerRequest: null });
counter.on('error', () => undefined);

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

  /** Stands in for a handler with effects: the run is recorded before it waits. */
  @MessagePattern('fixture.act')
  async act(@Payload() data: { key: string; ms?: number; loseDatabase?: boolean }) {
    await counter.incr(fixtureRunsKey(prefix, data.key));
    if (data.ms) await new Promise((r) => setTimeout(r, data.ms));
    // What pg reports when the database goes away mid-request.
    if (data.loseDatabase) throw new Error('Connection terminated unexpectedly');
    return { replica, key: data.key };
  }

  /** The entry state keys of this service while the handler runs: `fixture.read` only reads, `fixture.write` does not. */
  @MessagePattern('fixture.read')
  read() {
    return this.states();
  }

  @MessagePattern('fixture.write')
  write() {
    return this.states();
  }

  private async states() {
    const keys = await counter.keys(`${prefix}:rpc-state:fixture:*`);
    return { replica, states: await Promise.all(keys.map((k) => counter.get(k))) };
  }

  /** What the transport restored into the request context. */
  @MessagePattern('fixture.context')
  context() {
    const store = requestContext.getStore();
    return {
      replica,
      requestId: store?.requestId,
      deadline: store?.deadline,
      tenant: store?.tenant ?? null,
      publicUrl: store?.publicUrl ?? null,
    };
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
    url: redisUrl,
    prefix,
    service: 'fixture',
    consumer: replica,
    heartbeatMs: Number(process.env.HEARTBEAT_MS ?? 300),
    reclaimEveryMs: Number(process.env.RECLAIM_MS ?? 300),
    concurrency: Number(process.env.CONCURRENCY ?? 128),
    blockMs: Number(process.env.BLOCK_MS ?? 500),
    onlyReads: (pattern) => pattern === 'fixture.read',
  });
  // Tells the test the moment shutdown has begun (the read loop is stopped
  // from here on), so it can send requests into the last blocking read.
  const close = server.close.bind(server);
  server.close = () => {
    const closing = close();
    process.send?.({ closing: true });
    return closing;
  };
  const app = await NestFactory.createMicroservice(FixtureModule, { strategy: server, logger: false });
  app.useGlobalFilters(new WireErrorFilter());
  app.enableShutdownHooks(['SIGTERM']);
  await app.listen();
  process.send?.({ ready: true, replica });
  setInterval(() => process.send?.({ handled: server.handledCount }), 200).unref();
}

void main();
