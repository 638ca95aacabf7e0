/**
 * `rota connections …`: store, list and remove provider credentials.
 *
 * Unlike the key and catalog commands, these go through the session service
 * over the transport (REDIS_URL, ROTA_REDIS_PREFIX) instead of writing to the
 * database: the session service is the only process that holds the
 * credentials key, so credentials are sealed in one place and the operator's
 * shell never needs the key. The stack must be running (`bash scripts/up.sh`).
 */
import { randomUUID } from 'node:crypto';
import { AppError, ConnectionCredentials, ENVIRONMENTS, type Environment, type Tenant } from '@rota/contracts';
import { DEV_PROJECT_ID, type PrismaClient } from '@rota/db';
import { requestContext, RpcClient } from '@rota/service-kit';
import { Option, type Command } from 'commander';
import { CliError, EXIT, formatTable, type CliIo } from './io';

/**
 * A connections command that cannot go on, printed as `error: …`: exit code
 * 1 for a refusal, 2 when the session service or Redis did not answer.
 */
export class ConnectionsCliError extends CliError {}

const printJson = (io: CliIo, value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);

interface ScopeOpts {
  environment: Environment;
  project: string;
  json?: boolean;
}

/** Parses `--credentials-json` into flat string fields, or explains what is wrong with it. */
export function parseCredentialsJson(raw: string): ConnectionCredentials {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConnectionsCliError(
      '--credentials-json is not valid JSON (quote it in single quotes: \'{"api_key":"..."}\')',
    );
  }
  const parsed = ConnectionCredentials.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    const where = first.path.length ? ` (${first.path.join('.')})` : '';
    throw new ConnectionsCliError(`--credentials-json must be an object of string fields${where}: ${first.message}`);
  }
  return parsed.data;
}

/** Sends as the given tenant: the operator acts for one project and environment, as a key of theirs would. */
async function withSessionService<T>(io: CliIo, tenant: Tenant, fn: (rpc: RpcClient) => Promise<T>): Promise<T> {
  const timeoutMs = Number(io.env.ROTA_RPC_TIMEOUT_MS) > 0 ? Number(io.env.ROTA_RPC_TIMEOUT_MS) : 5000;
  const rpc = new RpcClient({
    url: io.env.REDIS_URL || 'redis://127.0.0.1:6379',
    prefix: io.env.ROTA_REDIS_PREFIX || 'rota',
    timeoutMs,
  });
  try {
    await rpc.connect();
    return await requestContext.run({ requestId: randomUUID(), tenant }, () => fn(rpc));
  } catch (err) {
    if (err instanceof AppError) {
      if (err.code === 'upstream_timeout' || err.code === 'unavailable') {
        throw new ConnectionsCliError(
          `the session service did not answer (${err.message}); is Rota running with this REDIS_URL and ROTA_REDIS_PREFIX?`,
          {
            exitCode: EXIT.serverError,
          },
        );
      }
      const issues = (err.details?.issues ?? []) as Array<{ path: unknown[]; message: string }>;
      if (issues.length)
        throw new ConnectionsCliError(
          issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; '),
        );
      // A code the gateway would answer with a 5xx is the service's failure, not the caller's.
      throw new ConnectionsCliError(err.message, { exitCode: err.status >= 500 ? EXIT.serverError : EXIT.refused });
    }
    throw new ConnectionsCliError(
      `cannot reach Redis at ${io.env.REDIS_URL || 'redis://127.0.0.1:6379'}: ${(err as Error).message}`,
      {
        exitCode: EXIT.serverError,
      },
    );
  } finally {
    await rpc.close().catch(() => undefined);
  }
}

async function tenantOf(db: () => PrismaClient, opts: ScopeOpts): Promise<Tenant> {
  const project = await db().project.findUnique({ where: { id: opts.project }, select: { id: true, orgId: true } });
  if (!project) throw new ConnectionsCliError(`unknown project: ${opts.project}`);
  return { org_id: project.orgId, project_id: project.id, environment: opts.environment };
}

export function registerConnectionCommands(program: Command, io: CliIo, db: () => PrismaClient) {
  const connections = program
    .command('connections')
    .description('Store, list and remove provider credentials (through the running session service)');
  const envOption = () =>
    new Option('--environment <env>', 'environment the connection belongs to')
      .choices([...ENVIRONMENTS])
      .default('live');

  connections
    .command('add')
    .description(
      'Connect a provider: store its credentials, sealed, for a project and environment (replaces existing ones)',
    )
    .argument('<server>', 'provider id, for example asaas')
    .addOption(envOption())
    .option('--project <id>', 'project id', DEV_PROJECT_ID)
    .option(
      '--credentials-json <json>',
      'the provider credentials as a JSON object of strings, for example \'{"api_key":"..."}\'',
    )
    .option('--json', 'print {created, connection} as JSON (never the credentials)')
    .action(async (server: string, opts: ScopeOpts & { credentialsJson?: string }) => {
      const credentials = opts.credentialsJson === undefined ? undefined : parseCredentialsJson(opts.credentialsJson);
      const tenant = await tenantOf(db, opts);
      const saved = await withSessionService(io, tenant, (rpc) =>
        rpc.send('session.connections.save', { body: { server_id: server, credentials } }),
      );
      if (opts.json) return printJson(io, { created: saved.created, connection: saved.connection });
      const c = saved.connection;
      const what =
        c.status === 'not_required'
          ? `${c.server_id} needs no credentials; recorded`
          : saved.created
            ? `connected ${c.server_id}`
            : `replaced the credentials of ${c.server_id}`;
      io.stdout(`${what} in ${c.environment} for ${tenant.project_id} (${c.id})\n`);
    });

  connections
    .command('list')
    .description('List the connections of a project and environment (never their credentials)')
    .addOption(envOption())
    .option('--project <id>', 'project id', DEV_PROJECT_ID)
    .option('--json', 'print {environment, connections: [...]} as JSON, as GET /v1/connections answers')
    .action(async (opts: ScopeOpts) => {
      const tenant = await tenantOf(db, opts);
      const list = await withSessionService(io, tenant, (rpc) => rpc.send('session.connections.list', {}));
      if (opts.json) return printJson(io, list);
      io.stdout(
        formatTable(
          ['ID', 'SERVER', 'ENVIRONMENT', 'STATUS', 'UPDATED'],
          list.connections.map((c) => [c.id, c.server_id, c.environment, c.status, c.updated_at]),
        ),
      );
    });

  connections
    .command('remove')
    .description('Delete a connection and its credentials')
    .argument('<id>', 'connection id (conn_...)')
    .addOption(envOption())
    .option('--project <id>', 'project id', DEV_PROJECT_ID)
    .option('--json', 'print the removed connection as JSON, as DELETE /v1/connections/{id} answers')
    .action(async (id: string, opts: ScopeOpts) => {
      const tenant = await tenantOf(db, opts);
      const gone = await withSessionService(io, tenant, (rpc) =>
        rpc.send('session.connections.delete', { connection_id: id }),
      );
      if (opts.json) return printJson(io, gone);
      io.stdout(`removed ${gone.id} (${gone.server_id}, ${gone.environment})\n`);
    });
}
