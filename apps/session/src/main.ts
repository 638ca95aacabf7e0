import 'reflect-metadata';
import { BaseConfig, loadConfig, startService } from '@rota/service-kit';
import { SessionModule } from './session.module';

startService('session', SessionModule, loadConfig(BaseConfig)).catch((err) => {
  process.stderr.write(`session service failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
