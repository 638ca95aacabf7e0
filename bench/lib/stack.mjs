// Brings up a private gateway (with the benchmark routes) and search service
// on their own Redis prefix and port, against DATABASE_URL, plus a key.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, benchPrefix, freePort, startProcess, stop } from './common.mjs';

export function createKey(scopes, env = process.env) {
  const cli = join(ROOT, 'packages/cli/dist/main.js');
  execFileSync(process.execPath, [join(ROOT, 'packages/db/dist/migrate-cli.js')], { env, stdio: 'ignore' });
  execFileSync(process.execPath, [join(ROOT, 'packages/db/dist/seed-cli.js')], { env, stdio: 'ignore' });
  return execFileSync(process.execPath, [cli, 'keys', 'create', '--scopes', scopes, '--name', 'bench'], {
    env,
    encoding: 'utf8',
  }).trim();
}

/** `services`: which apps to start behind the gateway (`apps/<name>/dist/main.js`). */
export async function benchStack(extraEnv = {}, services = ['search']) {
  const port = await freePort();
  const env = { ROTA_REDIS_PREFIX: benchPrefix('stack'), PORT: String(port), ANTHROPIC_API_KEY: '', ...extraEnv };
  const base = `http://127.0.0.1:${port}`;
  const started = [];
  for (const name of services)
    started.push(await startProcess(join(ROOT, `apps/${name}/dist/main.js`), env, async () => true));
  const gateway = await startProcess(
    join(ROOT, 'bench/lib/gateway-child.cjs'),
    env,
    async () => (await fetch(`${base}/bench/transport`)).ok,
  );
  return {
    base,
    close: async () => {
      await stop(gateway);
      for (const p of started) await stop(p);
    },
  };
}
