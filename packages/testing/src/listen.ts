import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts a fake's HTTP server on a free 127.0.0.1 port. `close()` also drops
 * connections left open, so a fake that is hanging on purpose still stops.
 */
export async function listenOnLoopback(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
