import 'reflect-metadata';
import { BaseConfig, loadConfig, startService } from '@rota/service-kit';
import { RouterModule } from './router.module';

startService('router', RouterModule, loadConfig(BaseConfig)).catch((err) => {
  process.stderr.write(`router service failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
