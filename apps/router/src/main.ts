import 'reflect-metadata';
import { loadConfig, startService } from '@rota/service-kit';
import { RouterConfig } from './config';
import { RouterModule } from './router.module';

try {
  const config = loadConfig(RouterConfig);
  startService('router', RouterModule.forConfig(config), config).catch((err) => {
    process.stderr.write(`router service failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
} catch (err) {
  process.stderr.write(`router service failed to start: ${(err as Error).message}\n`);
  process.exit(1);
}
