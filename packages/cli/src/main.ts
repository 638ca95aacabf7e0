#!/usr/bin/env node
/**
 * `rota`: operator commands for a Rota database (API keys, projects,
 * catalog), and the HTTP commands an agent developer runs against a gateway
 * (search, discover, route, tool, sessions).
 *
 * Exit codes, for every command: 0 done; 1 refused (a usage mistake, a 4xx,
 * a tool that answered `success: false`); 2 the server failed or could not be
 * reached (a 5xx, a timeout, the gateway or database down).
 *
 * All logic sits in `run(argv, io)` so tests drive it in-process; the bottom
 * of this file wires it to the real process when run as a binary.
 */
import {
  ENVIRONMENTS,
  KEY_MAX_TTL_SECONDS,
  OPERATOR_SCOPES,
  SCOPES,
  type Environment,
  type Scope,
} from '@rota/contracts';
import {
  ApiKeyRepository,
  DEFAULT_DATABASE_URL,
  DEV_ORG_ID,
  DEV_PROJECT_ID,
  ProjectRepository,
  createPrisma,
  prismaErrorCode,
  scopeProblem,
  type ApiKeySummary,
  type PrismaClient,
} from '@rota/db';
import { Command, Option } from 'commander';
import { registerAgentCommands, type ExitCodeSink } from './agent';
import { registerGovernanceCommands } from './governance';
import { registerMcpCommands } from './mcp';
import { registerLogsCommands } from './logs';
import { registerOperationsCommands } from './operations';
import { registerCatalogCommands } from './catalog';
import { registerConnectionCommands } from './connections';
import { EXIT } from './http';
import { CliError, formatTable, parseTtl, processIo, type CliIo } from './io';
import { printJson, reportFailure, reportUnexpected, rootCommand } from './program';

/** Splits `a, b,c` and checks every name against the known scopes. */
export function parseScopes(raw: string): Scope[] {
  const names = [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
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

/** A key as `--json` prints it: never its secret (`keys create` adds it once). */
function keyJson(k: ApiKeySummary) {
  return {
    id: k.id,
    prefix: k.prefix,
    name: k.name,
    project_id: k.projectId,
    environment: k.environment,
    operator: k.projectId === null,
    scopes: k.scopes,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
    expires_at: k.expiresAt?.toISOString() ?? null,
    parent_id: k.parentId,
    session_id: k.sessionId,
    user_id: k.userId,
  };
}

function keysTable(keys: ApiKeySummary[]): string {
  return formatTable(
    ['ID', 'PREFIX', 'ENVIRONMENT', 'SCOPES', 'CREATED', 'REVOKED', 'EXPIRES'],
    keys.map((k) => [
      k.id,
      k.prefix,
      k.environment ?? 'operator',
      k.scopes.join(','),
      formatDate(k.createdAt),
      formatDate(k.revokedAt),
      formatDate(k.expiresAt),
    ]),
  );
}

/** Prisma codes meaning the database is unreachable, missing or not migrated. */
const DATABASE_SETUP_CODES = new Set(['P1000', 'P1001', 'P1002', 'P1003', 'P1010', 'P1017', 'P2021', 'P2022']);

/**
 * Prisma puts a code excerpt before the actual reason in its messages; the
 * reason is the last line.
 */
function lastLine(message: string): string {
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines[lines.length - 1] ?? message;
}

/** A one-line explanation when `err` is about the database setup rather than a bug. */
function databaseProblem(err: unknown): string | undefined {
  const code = prismaErrorCode(err);
  if (code && DATABASE_SETUP_CODES.has(code)) {
    return `${lastLine((err as Error).message)} (check DATABASE_URL and run \`pnpm db:migrate\`)`;
  }
  const sysCode = (err as { code?: unknown } | null)?.code;
  if (sysCode === 'ECONNREFUSED' || sysCode === 'ENOTFOUND' || sysCode === '3D000')
    return `${(err as Error).message} (check DATABASE_URL)`;
  return undefined;
}

function buildProgram(io: CliIo, db: () => PrismaClient, exit: ExitCodeSink): Command {
  const program = rootCommand(io);

  const keys = program.command('keys').description('Create, list and revoke API keys');

  keys
    .command('create')
    .description('Create an API key and print it (it is shown only once)')
    .option(
      '--scopes <list>',
      `comma-separated scopes: ${SCOPES.join(', ')} (required for a project key; an operator key defaults to ${OPERATOR_SCOPES.join(',')})`,
    )
    .addOption(new Option('--environment <env>', 'key environment (default live)').choices([...ENVIRONMENTS]))
    .option('--project <id>', `project id (default ${DEV_PROJECT_ID})`)
    .option(
      '--operator',
      'a key of the deployment rather than of a project: the only kind that may carry the admin scope',
    )
    .option('--name <name>', 'label shown in listings')
    .option(
      '--ttl <lifetime>',
      'the key expires after this long (90s, 15m, 1h, 30d; at most 30d) and answers 401 from then on; default: never',
    )
    .option('--json', 'print the key and its details as JSON (the key is still shown only this once)')
    .action(
      async (opts: {
        scopes?: string;
        environment?: Environment;
        project?: string;
        operator?: boolean;
        name?: string;
        ttl?: string;
        json?: boolean;
      }) => {
        const repo = new ApiKeyRepository(db());
        const expiresAt =
          opts.ttl === undefined ? null : new Date(Date.now() + parseTtl(opts.ttl, KEY_MAX_TTL_SECONDS) * 1000);
        let created: Awaited<ReturnType<ApiKeyRepository['create']>>;
        if (opts.operator) {
          if (opts.project !== undefined || opts.environment !== undefined)
            throw new CliError(
              'an operator key belongs to no project and no environment: drop --project and --environment',
            );
          const scopes = opts.scopes === undefined ? [...OPERATOR_SCOPES] : parseScopes(opts.scopes);
          const problem = scopeProblem(scopes, true);
          if (problem) throw new CliError(problem);
          created = await repo.create({ operator: true, scopes, name: opts.name, expiresAt });
        } else {
          if (opts.scopes === undefined) throw new CliError("required option '--scopes <list>' not specified");
          const scopes = parseScopes(opts.scopes);
          const problem = scopeProblem(scopes, false);
          if (problem) throw new CliError(problem);
          created = await repo.create({
            projectId: opts.project ?? DEV_PROJECT_ID,
            environment: opts.environment ?? 'live',
            scopes,
            name: opts.name,
            expiresAt,
          });
        }
        if (!opts.json) return io.stdout(`${created.key}\n`);
        printJson(io, {
          id: created.id,
          key: created.key,
          prefix: created.prefix,
          name: opts.name ?? null,
          project_id: created.projectId,
          environment: created.environment,
          operator: created.projectId === null,
          scopes: created.scopes,
          expires_at: created.expiresAt?.toISOString() ?? null,
        });
      },
    );

  keys
    .command('list')
    .description('List API keys (never their secrets)')
    .option('--project <id>', 'only keys of this project')
    .option('--operator', 'only operator keys')
    .option('--json', 'print {keys: [...]} as JSON')
    .action(async (opts: { project?: string; operator?: boolean; json?: boolean }) => {
      // A typo in --project must not read as "this project has no keys".
      if (!opts.operator && opts.project !== undefined && !(await new ProjectRepository(db()).exists(opts.project)))
        throw new CliError(`no project ${opts.project}`, { code: 'project_not_found' });
      const rows = await new ApiKeyRepository(db()).list(opts.operator ? null : opts.project);
      if (opts.json) return printJson(io, { keys: rows.map(keyJson) });
      io.stdout(keysTable(rows));
    });

  keys
    .command('revoke')
    .description('Revoke an API key by id')
    .argument('<id>', 'key id (key_...)')
    .option('--json', 'print the revoked key as JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      const key = await new ApiKeyRepository(db()).revoke(id);
      if (opts.json) return printJson(io, keyJson(key));
      io.stdout(`revoked ${key.id}\n`);
    });

  const projects = program.command('projects').description('Manage projects');
  projects
    .command('create')
    .description('Create a project and print its id')
    .argument('<name>', 'project name')
    .option('--org <id>', 'owning org', DEV_ORG_ID)
    .option('--json', 'print the project as JSON')
    .action(async (name: string, opts: { org: string; json?: boolean }) => {
      const project = await new ProjectRepository(db()).create({ orgId: opts.org, name });
      if (opts.json)
        return printJson(io, {
          id: project.id,
          org_id: project.orgId,
          name: project.name,
          created_at: project.createdAt.toISOString(),
        });
      io.stdout(`${project.id}\n`);
    });

  registerCatalogCommands(program, io, db);
  registerConnectionCommands(program, io, db);
  registerAgentCommands(program, io, exit);
  registerGovernanceCommands(program, io);
  registerMcpCommands(program, io);
  registerLogsCommands(program, io);
  registerOperationsCommands(program, io);

  return program;
}

/**
 * Runs one command line (arguments after the program name) and resolves to
 * the exit code. Never throws and never calls `process.exit`.
 */
export async function run(argv: string[], io: CliIo = processIo()): Promise<number> {
  let prisma: PrismaClient | undefined;
  const db = () => (prisma ??= createPrisma(io.env.DATABASE_URL || DEFAULT_DATABASE_URL, { poolMax: 2 }));
  const exit: ExitCodeSink = { code: EXIT.ok };
  try {
    await buildProgram(io, db, exit).parseAsync(argv, { from: 'user' });
    return exit.code;
  } catch (err) {
    const json = argv.includes('--json');
    const known = reportFailure(io, err, json);
    if (known !== undefined) return known;
    const problem = databaseProblem(err);
    if (problem) {
      io.stderr(`error: ${problem}\n`);
      if (json) printJson(io, { error: 'database_unavailable', message: problem });
      return EXIT.serverError;
    }
    return reportUnexpected(io, err, err instanceof Error ? lastLine(err.message) : String(err));
  } finally {
    await prisma?.$disconnect().catch(() => undefined);
  }
}

if (require.main === module) {
  void run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
