#!/usr/bin/env node
/**
 * `rota`: operator commands for a Rota database (API keys, projects).
 *
 * All logic sits in `run(argv, io)` so tests drive it in-process; the bottom
 * of this file wires it to the real process when run as a binary.
 */
import { AppError, ENVIRONMENTS, SCOPES, type Environment, type Scope } from '@rota/contracts';
import { ApiKeyRepository, DEFAULT_DATABASE_URL, DEV_ORG_ID, DEV_PROJECT_ID, ProjectRepository, createPrisma, prismaErrorCode, type ApiKeySummary, type PrismaClient } from '@rota/db';
import { Command, CommanderError, Option } from 'commander';
import { CatalogCliError, registerCatalogCommands } from './catalog';
import { ConnectionsCliError, registerConnectionCommands } from './connections';
import { CliError, formatTable, processIo, type CliIo } from './io';

/** Splits `a, b,c` and checks every name against the known scopes. */
export function parseScopes(raw: string): Scope[] {
  const names = [...new Set(raw.split(',').map((s) => s.trim()).filter(Boolean))];
  if (names.length === 0) throw new CliError('--scopes needs at least one scope');
  const unknown = names.filter((n) => !(SCOPES as readonly string[]).includes(n));
  if (unknown.length) {
    const label = unknown.length === 1 ? 'unknown scope' : 'unknown scopes';
    throw new CliError(`${label}: ${unknown.join(', ')} (valid scopes: ${SCOPES.join(', ')})`);
  }
  return names as Scope[];
}

function formatDate(d: Date | null): string {
  return d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-';
}

function keysTable(keys: ApiKeySummary[]): string {
  return formatTable(
    ['ID', 'PREFIX', 'ENVIRONMENT', 'SCOPES', 'CREATED', 'REVOKED'],
    keys.map((k) => [k.id, k.prefix, k.environment, k.scopes.join(','), formatDate(k.createdAt), formatDate(k.revokedAt)]),
  );
}

/** Prisma codes meaning the database is unreachable, missing or not migrated. */
const DATABASE_SETUP_CODES = new Set(['P1000', 'P1001', 'P1002', 'P1003', 'P1010', 'P1017', 'P2021', 'P2022']);

/**
 * Prisma puts a code excerpt before the actual reason in its messages; the
 * reason is the last line.
 */
function lastLine(message: string): string {
  const lines = message.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines[lines.length - 1] ?? message;
}

/** A one-line explanation when `err` is about the database setup rather than a bug. */
function databaseProblem(err: unknown): string | undefined {
  const code = prismaErrorCode(err);
  if (code && DATABASE_SETUP_CODES.has(code)) {
    return `${lastLine((err as Error).message)} (check DATABASE_URL and run \`pnpm db:migrate\`)`;
  }
  const sysCode = (err as { code?: unknown } | null)?.code;
  if (sysCode === 'ECONNREFUSED' || sysCode === 'ENOTFOUND' || sysCode === '3D000') return `${(err as Error).message} (check DATABASE_URL)`;
  return undefined;
}

function buildProgram(io: CliIo, db: () => PrismaClient): Command {
  const program = new Command('rota')
    .description('Manage API keys, projects and the provider catalog in a Rota database (DATABASE_URL)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(false);

  const keys = program.command('keys').description('Create, list and revoke API keys');

  keys
    .command('create')
    .description('Create an API key and print it (it is shown only once)')
    .requiredOption('--scopes <list>', `comma-separated scopes: ${SCOPES.join(', ')}`)
    .addOption(new Option('--environment <env>', 'key environment').choices([...ENVIRONMENTS]).default('live'))
    .option('--project <id>', 'project id', DEV_PROJECT_ID)
    .option('--name <name>', 'label shown in listings')
    .action(async (opts: { scopes: string; environment: Environment; project: string; name?: string }) => {
      const scopes = parseScopes(opts.scopes);
      const created = await new ApiKeyRepository(db()).create({ projectId: opts.project, environment: opts.environment, scopes, name: opts.name });
      io.stdout(`${created.key}\n`);
    });

  keys
    .command('list')
    .description('List API keys (never their secrets)')
    .option('--project <id>', 'only keys of this project')
    .action(async (opts: { project?: string }) => {
      const rows = await new ApiKeyRepository(db()).list(opts.project);
      io.stdout(keysTable(rows));
    });

  keys
    .command('revoke')
    .description('Revoke an API key by id')
    .argument('<id>', 'key id (key_...)')
    .action(async (id: string) => {
      const key = await new ApiKeyRepository(db()).revoke(id);
      io.stdout(`revoked ${key.id}\n`);
    });

  const projects = program.command('projects').description('Manage projects');
  projects
    .command('create')
    .description('Create a project and print its id')
    .argument('<name>', 'project name')
    .option('--org <id>', 'owning org', DEV_ORG_ID)
    .action(async (name: string, opts: { org: string }) => {
      const project = await new ProjectRepository(db()).create({ orgId: opts.org, name });
      io.stdout(`${project.id}\n`);
    });

  registerCatalogCommands(program, io, db);
  registerConnectionCommands(program, io, db);

  return program;
}

/**
 * Runs one command line (arguments after the program name) and resolves to
 * the exit code. Never throws and never calls `process.exit`.
 */
export async function run(argv: string[], io: CliIo = processIo()): Promise<number> {
  let prisma: PrismaClient | undefined;
  const db = () => (prisma ??= createPrisma(io.env.DATABASE_URL || DEFAULT_DATABASE_URL, { poolMax: 2 }));
  try {
    await buildProgram(io, db).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    // Commander has already printed its own message (usage errors, --help).
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliError || err instanceof AppError || err instanceof CatalogCliError || err instanceof ConnectionsCliError) {
      io.stderr(`error: ${err.message}\n`);
      return 1;
    }
    const problem = databaseProblem(err);
    if (problem) {
      io.stderr(`error: ${problem}\n`);
      return 1;
    }
    const message = err instanceof Error ? lastLine(err.message) : String(err);
    io.stderr(`error: ${message}\n`);
    if (io.env.ROTA_DEBUG && err instanceof Error && err.stack) io.stderr(`${err.stack}\n`);
    return 1;
  } finally {
    await prisma?.$disconnect().catch(() => undefined);
  }
}

if (require.main === module) {
  void run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
