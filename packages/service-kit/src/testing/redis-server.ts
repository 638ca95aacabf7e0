import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A private redis-server on its own port, for tests that stop and start Redis
 * without disturbing anything else on the machine.
 */
export class OwnRedis {
  private proc?: ChildProcess;
  constructor(readonly port: number) {}

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<OwnRedis> {
    const r = new OwnRedis(await freePort());
    await r.start();
    return r;
  }

  async start() {
    this.proc = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    for (let i = 0; i < 100; i++) {
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`redis-server did not start on port ${this.port}`);
  }

  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered. */
  pause() {
    this.proc?.kill('SIGSTOP');
  }

  /** Lets a paused server run again; it then works through what it received meanwhile. */
  resume() {
    this.proc?.kill('SIGCONT');
  }

  async stop() {
    const p = this.proc;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    });
  }
}

/** A Redis key prefix unique to one test run. */
export function testPrefix(label = 't'): string {
  return `rota-test-${label}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}
