import 'reflect-metadata';
import { BaseConfig, loadConfig, startService } from '@rota/service-kit';
import { SearchModule } from './search.module';

startService('search', SearchModule, loadConfig(BaseConfig)).catch((err) => {
  process.stderr.write(`search service failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
