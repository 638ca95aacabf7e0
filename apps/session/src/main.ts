import 'reflect-metadata';
import { loadConfig, startService } from '@rota/service-kit';
import { SessionConfig } from './config';
import { SessionModule } from './session.module';

async function main() {
  const config = loadConfig(SessionConfig);
  await startService('session', SessionModule.forConfig(config), config);
}

main().catch((err) => {
  process.stderr.write(`session service failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
