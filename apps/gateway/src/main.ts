import 'reflect-metadata';
import { createLogger, loadConfig } from '@rota/service-kit';
import { createGateway } from './app.factory';
import { GatewayConfig } from './config';

async function main() {
  const config = loadConfig(GatewayConfig);
  const app = await createGateway(config);
  await app.listen(config.PORT, config.HOST);
  const shown = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST;
  createLogger('gateway', config.LOG_LEVEL).info(`gateway listening on http://${shown}:${config.PORT}`);
}

main().catch((err) => {
  process.stderr.write(`gateway failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
