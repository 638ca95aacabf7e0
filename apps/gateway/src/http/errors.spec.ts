import { connect, createServer } from 'node:net';
import { AppError } from '@rota/contracts';
import { toHttpError } from './errors';

/** A real refused connection, as Node reports it to ioredis and pg: a port that was just free. */
async function refused(): Promise<Error> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', (err) => resolve(err));
  });
}

describe('toHttpError', () => {
  it('answers a dependency the gateway could not reach 503 unavailable, in the envelope, without internals', async () => {
    const cases: unknown[] = [
      await refused(),
      // ioredis, once the retries of a queued command are used up (the dashboard cookie check, the limits).
      Object.assign(
        new Error(
          'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.',
        ),
        {
          name: 'MaxRetriesPerRequestError',
        },
      ),
      new Error('Command timed out'),
      new Error('Connection is closed.'),
      // pg-pool with no connection to give, and Prisma's code for a server it cannot reach.
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error("Can't reach database server at `127.0.0.1:5432`"), {
        name: 'PrismaClientKnownRequestError',
        code: 'P1001',
      }),
    ];
    for (const err of cases) {
      const out = toHttpError(err, 'req-1');
      expect({ err: (err as Error).message, status: out.status, body: out.body }).toEqual({
        err: (err as Error).message,
        status: 503,
        body: { error: 'unavailable', message: expect.any(String), request_id: 'req-1' },
      });
      expect(JSON.stringify(out.body)).not.toMatch(/127\.0\.0\.1|maxRetries|pool|database server|Command/);
      // Logged as a dependency failure, not as a bug.
      expect(out.dependency).toBe(err);
      expect(out.unexpected).toBeUndefined();
    }
  });

  it('still answers a bug 500 internal, logged as unexpected', () => {
    const err = new TypeError("Cannot read properties of undefined (reading 'id')");
    const out = toHttpError(err, 'req-2');
    expect(out).toEqual({
      status: 500,
      body: { error: 'internal', message: 'Something went wrong on our side.', request_id: 'req-2' },
      unexpected: err,
      dependency: undefined,
    });
  });

  it('keeps a service’s own code: outcome_unknown from an acting route is not turned into unavailable', () => {
    const out = toHttpError(new AppError('outcome_unknown', 'It may have run.'), 'req-3');
    expect(out.status).toBe(503);
    expect(out.body).toMatchObject({ error: 'outcome_unknown' });
    expect(toHttpError({ code: 'outcome_unknown', message: 'It may have run.' }, 'req-4').body).toMatchObject({
      error: 'outcome_unknown',
    });
  });
});
