/**
 * What both halves of the CLI share (the HTTP commands and the operator
 * commands that open the database): the root command, and how a failure
 * becomes a message and an exit code. It loads no database driver, so the
 * HTTP half stays light.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '@rota/contracts';
import { Command, CommanderError } from 'commander';
import { EXIT, RotaError, exitCodeFor, formatRotaError } from './http';
import { CliError, type CliIo } from './io';

/** This package's version, for `rota --version` (dist/ sits beside package.json, whether built or bundled). */
export function cliVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export const EXIT_CODES_HELP = `
Exit codes:
  0  done
  1  refused: a usage mistake, a 4xx answer, or a tool that answered success: false
  2  the server failed or could not be reached: a 5xx, a timeout, the gateway, database or Redis down

HTTP commands use ROTA_URL and ROTA_API_KEY, or the profile saved by \`rota login\`.
Operator commands (keys, projects, catalog, connections) use DATABASE_URL.
Every command takes --json: the API's body, or the command's result, as JSON on stdout; a refusal too.
`;

/** The commands that open the database rather than call a gateway. */
export const OPERATOR_COMMANDS = ['keys', 'projects', 'catalog', 'connections'] as const;

export const printJson = (io: CliIo, value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);

/** The root command, before any subcommand is added. */
export function rootCommand(io: CliIo): Command {
  return new Command('rota')
    .description(
      'Talk to a Rota gateway (ROTA_URL, ROTA_API_KEY), and manage API keys, projects and the provider catalog in its database (DATABASE_URL)',
    )
    .version(cliVersion(), '-V, --version', 'print the version')
    .addHelpText('after', EXIT_CODES_HELP)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(false);
}

/**
 * The message (one line on stderr) and exit code of a failure. Under
 * `--json` a refusal is also printed as JSON on stdout, so a script reads
 * why as well as that it failed: a gateway refusal as `{error, message,
 * status, request_id, ...}`, the CLI's own as `{error, message, details?}`.
 * Answers undefined for an error it does not know.
 */
export function reportFailure(io: CliIo, err: unknown, json: boolean): number | undefined {
  // Commander has already printed its own message (usage errors, --help).
  if (err instanceof CommanderError) return err.exitCode;
  if (err instanceof RotaError) {
    io.stderr(`error: ${formatRotaError(err)}\n`);
    if (json) {
      const body =
        typeof err.body === 'object' && err.body !== null && !Array.isArray(err.body)
          ? (err.body as Record<string, unknown>)
          : {};
      printJson(io, { ...body, error: err.code, message: err.message, status: err.status, request_id: err.requestId });
    }
    return exitCodeFor(err);
  }
  if (err instanceof CliError) {
    io.stderr(`error: ${err.message.replace(/\s*\n\s*/g, ' ')}\n`);
    const code = err.code ?? (err.exitCode === EXIT.serverError ? 'unavailable' : 'refused');
    if (json)
      printJson(io, { error: code, message: err.message, ...(err.details.length ? { details: err.details } : {}) });
    if (io.env.ROTA_DEBUG) for (const d of err.details) io.stderr(`  ${d.text}\n`);
    return err.exitCode;
  }
  if (err instanceof AppError) {
    io.stderr(`error: ${err.message}\n`);
    if (json) printJson(io, { error: err.code, message: err.message });
    return err.status >= 500 ? EXIT.serverError : EXIT.refused;
  }
  return undefined;
}

/** The last resort: one line, the stack only with ROTA_DEBUG. */
export function reportUnexpected(io: CliIo, err: unknown, message: string): number {
  io.stderr(`error: ${message}\n`);
  if (io.env.ROTA_DEBUG && err instanceof Error && err.stack) io.stderr(`${err.stack}\n`);
  return 1;
}
