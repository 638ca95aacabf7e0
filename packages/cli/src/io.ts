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
  /**
   * Which addresses a catalog URL import may reach. Unset (always, outside
   * this package's tests, which serve fakes on loopback): public ones only.
   * No flag or environment variable sets it.
   */
  addressAllowed?: (address: string) => boolean;
}

/** Exit codes of every command: documented in docs/cli.md and `rota --help`. */
export const EXIT = {
  ok: 0,
  /** The caller's mistake or a refusal: bad arguments, 4xx, a tool that answered `success: false`. */
  refused: 1,
  /** The server failed or could not be reached: 5xx, timeout, connection refused, database or Redis down. */
  serverError: 2,
} as const;

export interface CliErrorOptions {
  /** `EXIT.serverError` when the fault is on the server's side; `EXIT.refused` otherwise. */
  exitCode?: number;
  /** A machine-readable reason, printed with the details under `--json`. */
  code?: string;
  /**
   * What the one line leaves out (every issue of an invalid file, say):
   * printed as JSON on stdout under `--json`, and line by line on stderr
   * with `ROTA_DEBUG` set.
   */
  details?: Array<{ text: string; [field: string]: unknown }>;
}

/**
 * A failure the CLI explains itself: printed as one line, no stack. Exit
 * code 1 (the caller's mistake or a refusal) unless `exitCode` says the
 * server side failed.
 */
export class CliError extends Error {
  readonly exitCode: number;
  readonly code: string | undefined;
  readonly details: NonNullable<CliErrorOptions['details']>;

  constructor(message: string, opts: CliErrorOptions = {}) {
    super(message);
    this.exitCode = opts.exitCode ?? EXIT.refused;
    this.code = opts.code;
    this.details = opts.details ?? [];
  }
}

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
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

const SPINNER = ['|', '/', '-', '\\'];

/**
 * Shows that a long step is still running: on a terminal, a spinner with the
 * elapsed seconds redrawn on one line of stderr and erased at the end; in a
 * pipe or a log, nothing, so output stays parseable. `work`'s result or
 * error passes through unchanged.
 */
export async function withProgress<T>(io: CliIo, label: string, work: Promise<T>, intervalMs = 120): Promise<T> {
  if (!io.isTTY) return work;
  const started = Date.now();
  let frame = 0;
  const draw = () =>
    io.stderr(`\r${SPINNER[frame++ % SPINNER.length]} ${label} ${((Date.now() - started) / 1000).toFixed(0)}s`);
  draw();
  const timer = setInterval(draw, intervalMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    io.stderr(`\r${' '.repeat(label.length + 12)}\r`);
  }
}

const TTL_UNITS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/**
 * A lifetime such as `90s`, `15m`, `1h` or `30d` (a bare number is seconds),
 * in seconds; `CliError` for anything else, zero, or more than `maxS`.
 */
export function parseTtl(raw: string, maxS: number): number {
  const m = /^\s*(\d{1,9})\s*([smhd]?)\s*$/.exec(raw);
  if (!m)
    throw new CliError(`--ttl takes a number of seconds or a lifetime such as 90s, 15m, 1h or 30d (not "${raw}")`);
  const seconds = Number(m[1]) * TTL_UNITS[(m[2] || 's') as keyof typeof TTL_UNITS];
  if (seconds < 1 || seconds > maxS) throw new CliError(`--ttl must be between 1 s and ${maxS / 86_400} days`);
  return seconds;
}
