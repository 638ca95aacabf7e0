#!/usr/bin/env node
/**
 * Container healthcheck for the transport services:
 *
 *   node packages/service-kit/dist/health-cli.js <search|session|router|worker>
 *
 * Sends `<service>.ping` over the transport with the container's own
 * REDIS_URL and ROTA_REDIS_PREFIX and exits 0 when an answer comes back
 * within ROTA_HEALTH_TIMEOUT_MS (default 3000), 1 otherwise. The services
 * listen on no port, so the path a real request takes is the one worth
 * probing: Redis reachable, the consumer group read, a replica answering.
 * Any replica of the service may answer; a replica that is wedged while its
 * peers answer shows up in the transport's own reclaim instead.
 */
import { SERVICES, type ServiceName } from '@rota/contracts';
import { RpcClient } from './rpc';

async function main(): Promise<number> {
  const service = process.argv[2] as ServiceName | undefined;
  if (!service || !(SERVICES as readonly string[]).includes(service)) {
    process.stderr.write(`usage: health-cli <${SERVICES.join('|')}>\n`);
    return 2;
  }
  const timeoutMs = Number(process.env.ROTA_HEALTH_TIMEOUT_MS ?? 3000);
  const rpc = new RpcClient({
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    prefix: process.env.ROTA_REDIS_PREFIX ?? 'rota',
    timeoutMs,
  });
  const guard = setTimeout(() => process.exit(1), timeoutMs + 2000);
  try {
    await rpc.connect();
    await rpc.send(`${service}.ping`, {}, { timeoutMs });
    return 0;
  } catch (err) {
    process.stderr.write(`${service}.ping failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    clearTimeout(guard);
    await rpc.close().catch(() => undefined);
  }
}

void main().then((code) => process.exit(code));
