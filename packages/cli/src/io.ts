/**
 * What every command module shares: where output goes, how a caller's mistake
 * is raised, and how tables are printed. It imports nothing of the CLI, so
 * `main` can load the command modules and they can load this without a cycle.
 */

/** Where the CLI reads its environment and writes its output. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** stdout is a terminal: progress redraws one line instead of printing many. */
  isTTY?: boolean;
}

/** A mistake on the caller's side: printed as one line, exit code 1, no stack. */
export class CliError extends Error {}

/** The real process's streams and environment. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    isTTY: Boolean(process.stdout.isTTY),
  };
}

/** Left-aligned columns separated by two spaces. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}
