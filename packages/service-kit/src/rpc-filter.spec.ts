import { connect } from 'node:net';
import { AppError } from '@rota/contracts';
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

/** The shape of pg's DatabaseError (pg-protocol) for a server-side SQLSTATE. */
function postgresError(code: string, message: string) {
  return Object.assign(new Error(message), { name: 'error', code, severity: 'FATAL', detail: undefined, hint: undefined });
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
      prismaError('P2010', 'Raw query failed.', { name: 'DriverAdapterError', cause: { kind: 'postgres', originalCode: '57P01', code: '57P01' } }),
      Object.assign(new Error('query failed'), { cause: await refused() }),
    ];
    // The message rides along so a failure names the case.
    for (const err of cases)
      expect({ err: (err as Error).message, connection: isConnectionError(err) }).toEqual({ err: (err as Error).message, connection: true });
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
    expect(toWire(postgresError('57P01', 'terminating connection due to administrator command'))).toMatchObject({ code: 'unavailable' });
    expect(toWire(err, { acts: true })).toMatchObject({ code: 'outcome_unknown' });
    // A handler that knows nothing ran says so itself.
    expect(toWire(new AppError('unavailable', 'nothing was done'), { acts: true })).toMatchObject({ code: 'unavailable' });
    expect(toWire(new TypeError('bug'))).toEqual({ code: 'internal', message: 'Internal error' });
    expect(toWire(prismaError('P2002', 'Unique constraint failed'))).toMatchObject({ code: 'conflict' });
  });
});
