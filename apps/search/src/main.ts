import 'reflect-metadata';
import { loadConfig, startService } from '@rota/service-kit';
import { SearchConfig } from './config';
import { SearchModule } from './search.module';

const config = loadConfig(SearchConfig);
startService('search', SearchModule.forConfig(config), config).catch((err) => {
  process.stderr.write(`search service failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
