import 'reflect-metadata';
import { loadConfig, startService } from '@rota/service-kit';
import { WorkerConfig } from './config';
import { WorkerModule } from './worker.module';

const config = loadConfig(WorkerConfig);
startService('worker', WorkerModule.forConfig(config), config).catch((err) => {
  process.stderr.write(`worker failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
