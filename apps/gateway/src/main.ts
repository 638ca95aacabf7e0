import 'reflect-metadata';
import { createLogger, loadConfig, startMetricsListener } from '@rota/service-kit';
import { createGateway } from './app.factory';
import { GatewayConfig } from './config';

async function main() {
  const config = loadConfig(GatewayConfig);
  const app = await createGateway(config);
  await app.listen(config.PORT, config.HOST);
  const shown = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST;
  const log = createLogger('gateway', config.LOG_LEVEL);
  log.info(`gateway listening on http://${shown}:${config.PORT}`);
  // The same series as `GET /metrics`, without a key, on a port Prometheus alone reaches.
  if (config.ROTA_METRICS_PORT !== undefined) {
    const metrics = await startMetricsListener(config.ROTA_METRICS_PORT, config.ROTA_METRICS_HOST);
    log.info({ port: metrics.port }, `gateway metrics on http://${config.ROTA_METRICS_HOST}:${metrics.port}/metrics`);
  }
}

main().catch((err) => {
  process.stderr.write(`gateway failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
