/**
 * The HTTP half of `rota`: every command that calls a gateway with an API
 * key. It loads no database driver, queue or service framework, so it is
 * what the packed CLI ships and what starts fast.
 */
import type { Command } from 'commander';
import { registerAgentCommands, type ExitCodeSink } from './agent';
import { registerGovernanceCommands } from './governance';
import { EXIT } from './http';
import { CliError, processIo, type CliIo } from './io';
import { registerLogsCommands } from './logs';
import { registerMcpCommands } from './mcp';
import { registerOperationsCommands } from './operations';
import { OPERATOR_COMMANDS, reportFailure, reportUnexpected, rootCommand } from './program';

function buildHttpProgram(io: CliIo, exit: ExitCodeSink): Command {
  const program = rootCommand(io);
  registerAgentCommands(program, io, exit);
  registerGovernanceCommands(program, io);
  registerMcpCommands(program, io);
  registerLogsCommands(program, io);
  registerOperationsCommands(program, io);
  for (const name of OPERATOR_COMMANDS)
    program
      .command(name, { hidden: true })
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        throw new CliError(
          `\`rota ${name}\` opens the database (DATABASE_URL): run it from a Rota checkout (\`pnpm rota ${name} …\`); this install carries the HTTP commands only`,
        );
      });
  return program;
}

/** Runs one HTTP command line and resolves to the exit code; never throws. */
export async function runHttp(argv: string[], io: CliIo = processIo()): Promise<number> {
  const exit: ExitCodeSink = { code: EXIT.ok };
  try {
    await buildHttpProgram(io, exit).parseAsync(argv, { from: 'user' });
    return exit.code;
  } catch (err) {
    return (
      reportFailure(io, err, argv.includes('--json')) ??
      reportUnexpected(io, err, err instanceof Error ? err.message : String(err))
    );
  }
}
