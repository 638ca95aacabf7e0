import { connect, createServer, type Socket } from 'node:net';
import { AppError } from '@rota/contracts';
import Redis, { type RedisOptions } from 'ioredis';
import { Pool } from 'pg';
import { isConnectionError, toWire } from './rpc-filter';
import { freePort } from './testing/redis-server';

/** A real refused connection, as Node reports it to pg. */
async function refused(): Promise<Error> {
  const port = await freePort();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', (err) => resolve(err));
  });
}

/**
 * A TCP server that accepts connections and never answers a byte: a Redis or
 * Postgres that is stalled (paused, overloaded) rather than down.
 */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const srv = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        srv.close(() => resolve());
      }),
  };
}

/** What an ioredis command rejects with, from a client made with `options`; the client is closed afterwards. */
async function redisFailure(options: RedisOptions): Promise<unknown> {
  const redis = new Redis({ host: '127.0.0.1', ...options });
  redis.on('error', () => undefined);
  try {
    await redis.get('rota:rpc-filter-spec');
    throw new Error('the command was answered');
  } catch (err) {
    return err;
  } finally {
    redis.disconnect();
  }
}

/** The shape of pg's DatabaseError (pg-protocol) for a server-side SQLSTATE. */
function postgresError(code: string, message: string) {
  return Object.assign(new Error(message), {
    name: 'error',
    code,
    severity: 'FATAL',
    detail: undefined,
    hint: undefined,
  });
}

/** The shape of Prisma's known-request error, which wraps the driver adapter's error in `meta`. */
function prismaError(code: string, message: string, driverAdapterError?: unknown) {
  return Object.assign(new Error(message), {
    name: 'PrismaClientKnownRequestError',
    code,
    clientVersion: '7',
    meta: driverAdapterError ? { driverAdapterError } : undefined,
  });
}

describe('database connection errors', () => {
  it('recognises refused and reset connections, server shutdowns and Prisma connection codes', async () => {
    const cases: unknown[] = [
      await refused(),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read', errno: -104 }),
      // `localhost` tries ::1 and 127.0.0.1; both refusals arrive together.
      new AggregateError([await refused(), await refused()], 'connect failed'),
      postgresError('57P01', 'terminating connection due to administrator command'),
      postgresError('57P03', 'the database system is starting up'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      prismaError('P1001', "Can't reach database server at `127.0.0.1:5432`"),
      prismaError('P1017', 'Server has closed the connection.'),
      // Prisma's adapter keeps a shutdown's SQLSTATE only inside `meta`.
      prismaError('P2010', 'Raw query failed.', {
        name: 'DriverAdapterError',
        cause: { kind: 'postgres', originalCode: '57P01', code: '57P01' },
      }),
      Object.assign(new Error('query failed'), { cause: await refused() }),
    ];
    // The message rides along so a failure names the case.
    for (const err of cases)
      expect({ err: (err as Error).message, connection: isConnectionError(err) }).toEqual({
        err: (err as Error).message,
        connection: true,
      });
  });

  it('leaves bugs and constraint errors alone', () => {
    const cases: unknown[] = [
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      postgresError('23505', 'duplicate key value violates unique constraint'),
      postgresError('42P01', 'relation "x" does not exist'),
      prismaError('P2002', 'Unique constraint failed'),
      'a string',
      null,
    ];
    for (const err of cases) expect(isConnectionError(err)).toBe(false);
  });

  it('answers a lost database unavailable, or outcome_unknown inside a handler that acts', async () => {
    const err = await refused();
    expect(toWire(err)).toMatchObject({ code: 'unavailable' });
    expect(toWire(postgresError('57P01', 'terminating connection due to administrator command'))).toMatchObject({
      code: 'unavailable',
    });
    expect(toWire(err, { acts: true })).toMatchObject({ code: 'outcome_unknown' });
    // A handler that knows nothing ran says so itself.
    expect(toWire(new AppError('unavailable', 'nothing was done'), { acts: true })).toMatchObject({
      code: 'unavailable',
    });
    expect(toWire(new TypeError('bug'))).toEqual({ code: 'internal', message: 'Internal error' });
    expect(toWire(prismaError('P2002', 'Unique constraint failed'))).toMatchObject({ code: 'conflict' });
  });
});

describe('Redis and pool connection errors', () => {
  it('recognises ioredis giving up: retries used up, a closed connection, a command timeout', async () => {
    const silent = await silentServer();
    try {
      const cases = [
        // Refused, and no retry left for the queued command: MaxRetriesPerRequestError.
        await redisFailure({ port: await freePort(), maxRetriesPerRequest: 0, retryStrategy: () => 60_000 }),
        // Refused, and no reconnection: the queue is flushed with "Connection is closed.".
        await redisFailure({ port: await freePort(), retryStrategy: () => null }),
        // Connected to a server that never answers: `commandTimeout` passes.
        await redisFailure({ port: silent.port, commandTimeout: 50, retryStrategy: () => null }),
      ];
      expect(cases.map((err) => (err as Error).name)).toEqual(['MaxRetriesPerRequestError', 'Error', 'Error']);
      for (const err of cases)
        expect({ err: (err as Error).message, connection: isConnectionError(err) }).toEqual({
          err: (err as Error).message,
          connection: true,
        });
    } finally {
      await silent.close();
    }
  });

  it('recognises a pg pool that cannot get a connection in time, and Prisma adapter kinds', async () => {
    const silent = await silentServer();
    const pool = new Pool({
      host: '127.0.0.1',
      port: silent.port,
      user: 'rota',
      database: 'rota',
      connectionTimeoutMillis: 50,
    });
    pool.on('error', () => undefined);
    try {
      const err = await pool.query('SELECT 1').then(
        () => new Error('the query was answered'),
        (e: unknown) => e,
      );
      expect({ err: (err as Error).message, connection: isConnectionError(err) }).toEqual({
        err: (err as Error).message,
        connection: true,
      });
    } finally {
      await pool.end();
      await silent.close();
    }
    const cases: unknown[] = [
      // pg-pool's own words, whichever of its timer and the client's fires first above.
      new Error('timeout exceeded when trying to connect'),
      postgresError('53300', 'sorry, too many clients already'),
      prismaError('P2010', 'Raw query failed.', {
        name: 'DriverAdapterError',
        cause: { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 },
      }),
      prismaError('P2010', 'Raw query failed.', { name: 'DriverAdapterError', cause: { kind: 'ConnectionClosed' } }),
    ];
    for (const err of cases)
      expect({ err: (err as Error).message, connection: isConnectionError(err) }).toEqual({
        err: (err as Error).message,
        connection: true,
      });
  });

  it('leaves look-alikes alone: an aborted fetch, a Redis reply error, other timeouts', () => {
    const cases: unknown[] = [
      Object.assign(new Error('This operation was aborted'), { name: 'AbortError' }),
      Object.assign(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'), {
        name: 'ReplyError',
      }),
      new Error('The provider command timed out after 5000 ms'),
      prismaError('P2010', 'Raw query failed.', {
        name: 'DriverAdapterError',
        cause: { kind: 'UniqueConstraintViolation' },
      }),
    ];
    for (const err of cases) expect(isConnectionError(err)).toBe(false);
  });

  it('answers a Redis that gave up outcome_unknown inside a handler that acts, unavailable elsewhere', async () => {
    const err = await redisFailure({ port: await freePort(), maxRetriesPerRequest: 0, retryStrategy: () => 60_000 });
    expect(toWire(err)).toMatchObject({ code: 'unavailable' });
    expect(toWire(err, { acts: true })).toMatchObject({ code: 'outcome_unknown' });
  });
});
