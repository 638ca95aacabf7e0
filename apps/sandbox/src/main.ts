import { readFileSync } from 'node:fs';
import { loadEnv, readConfigFile, type SandboxEnv } from './config';
import { startSandbox } from './sandbox';

function fatal(message: string): never {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'fatal', msg: message })}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let env: SandboxEnv;
  try {
    env = loadEnv();
  } catch (err) {
    fatal(`sandbox refused to start: ${(err as Error).message}`);
  }
  let config;
  let tls;
  try {
    config = env.configPath ? readConfigFile(env.configPath) : undefined;
    tls = env.tls
      ? {
          port: env.tls.port,
          cert: readFileSync(env.tls.certPath),
          key: readFileSync(env.tls.keyPath),
          ca: readFileSync(env.tls.caPath),
        }
      : undefined;
  } catch (err) {
    fatal(`sandbox refused to start: ${(err as Error).message}`);
  }
  const sandbox = await startSandbox({
    port: env.port,
    host: env.host,
    control: env.control ?? false,
    ignoreIdempotencyKeys: env.ignoreIdempotencyKeys,
    ...(config ? { config } : {}),
    ...(tls ? { tls } : {}),
    log: (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
  });
  const providers = Object.entries(sandbox.config.providers).map(([id, p]) => `${id}:${p.auth.type}`);
  process.stdout.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'sandbox listening', url: sandbox.url, tls_url: sandbox.tlsUrl ?? null, control_url: sandbox.controlUrl ?? null, providers })}\n`,
  );
  if (!sandbox.controlUrl)
    process.stdout.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'control API off: set SANDBOX_CONTROL_TOKEN to serve it on SANDBOX_CONTROL_PORT' })}\n`,
    );
  const stop = (): void => {
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => fatal(`sandbox failed to start: ${(err as Error).message}`));
